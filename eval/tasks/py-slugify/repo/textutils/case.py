"""Identifier case conversion."""
import re

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def camel_to_snake(name: str) -> str:
    """``"HTTPServerError"`` -> ``"http_server_error"``."""
    return _BOUNDARY.sub("_", name).lower()


def snake_to_camel(name: str, upper_first: bool = False) -> str:
    """``"http_server_error"`` -> ``"httpServerError"``."""
    parts = [p for p in name.split("_") if p]
    if not parts:
        return ""
    head = parts[0].capitalize() if upper_first else parts[0].lower()
    return head + "".join(p.capitalize() for p in parts[1:])
