"""Loading fetchbot's configuration file."""
import os
import tomllib
from dataclasses import dataclass, field

DEFAULT_PATH = "fetchbot.toml"


@dataclass(frozen=True)
class Settings:
    timeout: float = 30.0
    retries: int = 0
    user_agent: str = "fetchbot"
    urls: list = field(default_factory=list)


def from_dict(data):
    """Build :class:`Settings` from the parsed TOML document ``data``."""
    http = data.get("http", {})
    targets = data.get("targets", {})
    return Settings(
        timeout=float(http.get("timeout_secs", Settings.timeout)),
        retries=int(http.get("retries", Settings.retries)),
        user_agent=str(http.get("user_agent", Settings.user_agent)),
        urls=list(targets.get("urls", [])),
    )


def load(path=None):
    """Read the config file (``FETCHBOT_CONFIG`` or ./fetchbot.toml)."""
    path = path or os.environ.get("FETCHBOT_CONFIG", DEFAULT_PATH)
    with open(path, "rb") as fh:
        return from_dict(tomllib.load(fh))
