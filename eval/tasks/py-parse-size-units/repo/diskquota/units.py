"""Parsing and printing byte sizes."""
import re

_UNITS = {
    "": 1,
    "B": 1,
    "K": 1000,
    "KB": 1000,
    "M": 1000**2,
    "MB": 1000**2,
    "G": 1000**3,
    "GB": 1000**3,
    "T": 1000**4,
    "TB": 1000**4,
}

_SIZE = re.compile(r"^(\d+)([A-Z]*)$")


def parse_size(text):
    """Parse a size such as ``"500M"`` or ``"2GB"`` into a number of bytes.

    Units are decimal: K/KB = 1000, M/MB = 1000**2, G/GB = 1000**3,
    T/TB = 1000**4; B or no unit means bytes. Raises ValueError for
    anything else.
    """
    match = _SIZE.match(text.strip())
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"invalid size: {text!r}")
    number, unit = match.groups()
    return int(number) * _UNITS[unit]


def format_size(nbytes):
    """Format a byte count with the largest decimal unit that fits: 1500 -> "1.5K"."""
    for unit in ("T", "G", "M", "K"):
        factor = _UNITS[unit]
        if nbytes >= factor:
            value = nbytes / factor
            text = f"{value:.1f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return f"{nbytes}B"
