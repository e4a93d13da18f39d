"""Turning a parsed config into a deployment plan."""
from dataclasses import dataclass, field

from . import config


@dataclass
class Plan:
    app: str
    replicas: int
    env: dict = field(default_factory=dict)

    def describe(self):
        lines = [f"deploy {self.app} x{self.replicas}"]
        for key in sorted(self.env):
            lines.append(f"  env {key}={self.env[key]}")
        return "\n".join(lines)


def make_plan(cfg):
    """Build a :class:`Plan` from a parsed config dict."""
    if "app" not in cfg or "name" not in cfg["app"]:
        raise config.ConfigError("missing app.name")
    return Plan(
        app=cfg["app"]["name"],
        replicas=config.as_int(cfg, "app", "replicas", default=1),
        env=dict(cfg.get("env", {})),
    )


def plan_from_text(text):
    """Parse ``text`` and build its plan in one step."""
    return make_plan(config.parse_cfg(text))
