"""Assorted helpers."""
import re

_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


def parse_duration(text):
    """Parse ``"1h30m"``, ``"45m"``, ``"90s"`` or ``"2h"`` into seconds."""
    match = _DURATION.match(text.strip())
    if not text.strip() or not match:
        raise ValueError(f"not a duration: {text!r}")
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def format_duration(seconds):
    """Format seconds as ``"1h 30m"``, ``"45m"`` or ``"0m"`` (seconds dropped)."""
    hours, rest = divmod(int(seconds), 3600)
    minutes = rest // 60
    if hours and minutes:
        return f"{hours}h {minutes}m"
    if hours:
        return f"{hours}h"
    return f"{minutes}m"


def truncate(text, width):
    """Cut ``text`` to ``width`` characters, ending with "…" when cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def pluralize(count, word):
    """``pluralize(1, "task")`` -> ``"1 task"``; ``pluralize(2, "task")`` -> ``"2 tasks"``."""
    return f"{count} {word}" + ("" if count == 1 else "s")
