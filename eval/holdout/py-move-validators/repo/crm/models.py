"""Contacts and the checks on their fields."""
import re
from dataclasses import dataclass, field

_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


def is_valid_email(address):
    """True for addresses like ``ann@example.org`` (one @, a dotted domain)."""
    return bool(_EMAIL.match(address or ""))


def normalize_phone(number, default_country="+49"):
    """Digits-only phone number with a country prefix, or None if it is not one.

    ``"030 1234-567"`` -> ``"+49301234567"``; ``"+1 (555) 010-9999"`` -> ``"+15550109999"``.
    """
    if not number:
        return None
    raw = number.strip()
    digits = re.sub(r"[\s()./-]", "", raw)
    if digits.startswith("+"):
        body = digits[1:]
        prefix = "+"
    elif digits.startswith("00"):
        body = digits[2:]
        prefix = "+"
    else:
        body = digits.lstrip("0")
        prefix = default_country
    if not body.isdigit() or not 6 <= len(body) <= 15:
        return None
    return prefix + body


@dataclass
class Contact:
    name: str
    email: str = ""
    phone: str = ""
    tags: list = field(default_factory=list)

    def problems(self):
        """List of human-readable problems with this contact's fields."""
        out = []
        if not self.name.strip():
            out.append("name is empty")
        if self.email and not is_valid_email(self.email):
            out.append(f"invalid e-mail {self.email!r}")
        if self.phone and normalize_phone(self.phone) is None:
            out.append(f"invalid phone {self.phone!r}")
        return out
