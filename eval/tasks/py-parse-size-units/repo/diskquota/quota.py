"""Reading quota files and checking usage."""
from .units import format_size, parse_size


def read_quotas(text):
    """Parse ``user limit`` lines (``#`` comments allowed) into {user: bytes}."""
    quotas = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        user, _, limit = line.partition(" ")
        if not limit.strip():
            raise ValueError(f"line {lineno}: missing limit for {user}")
        try:
            quotas[user] = parse_size(limit.strip())
        except ValueError as exc:
            raise ValueError(f"line {lineno}: {exc}") from None
    return quotas


def over_quota(usage, quotas):
    """Users whose usage (bytes) exceeds their quota, with a message each."""
    out = {}
    for user, used in sorted(usage.items()):
        limit = quotas.get(user)
        if limit is not None and used > limit:
            out[user] = f"{format_size(used)} used of {format_size(limit)}"
    return out
