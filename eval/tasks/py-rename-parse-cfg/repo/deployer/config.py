"""Reading deployment config files."""


class ConfigError(ValueError):
    """Raised for malformed config text."""


def parse_cfg(text):
    """Parse config ``text`` into ``{section: {key: value}}``.

    Keys and values are stripped; values stay strings. Entries before the
    first section header are an error.
    """
    sections = {}
    current = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip(), {})
            continue
        if "=" not in line:
            raise ConfigError(f"line {lineno}: expected 'key = value'")
        if current is None:
            raise ConfigError(f"line {lineno}: entry outside of a section")
        key, value = line.split("=", 1)
        current[key.strip()] = value.strip()
    return sections


def as_int(cfg, section, key, default=None):
    """Integer value of ``cfg[section][key]``, or ``default`` if absent."""
    try:
        raw = cfg[section][key]
    except KeyError:
        if default is None:
            raise ConfigError(f"missing {section}.{key}") from None
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{section}.{key} is not an integer: {raw!r}") from None


def load(path):
    """Read and parse the config file at ``path``."""
    with open(path, encoding="utf-8") as fh:
        return parse_cfg(fh.read())
