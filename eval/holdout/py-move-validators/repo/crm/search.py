"""Finding contacts."""
from . import models


def find(contacts, query):
    """Contacts whose name, e-mail or phone matches ``query``."""
    q = query.strip().lower()
    if models.is_valid_email(q):
        return [c for c in contacts if c.email.lower() == q]
    phone = models.normalize_phone(q)
    if phone:
        return [c for c in contacts if c.phone == phone]
    return [c for c in contacts if q in c.name.lower()]
