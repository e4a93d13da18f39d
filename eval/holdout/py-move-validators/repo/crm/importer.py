"""Importing contacts from CSV."""
import csv
import io

from crm.models import Contact, normalize_phone


def import_csv(text):
    """Parse ``name,email,phone,tags`` rows; returns (contacts, errors)."""
    contacts, errors = [], []
    for lineno, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        contact = Contact(
            name=(row.get("name") or "").strip(),
            email=(row.get("email") or "").strip().lower(),
            phone=(row.get("phone") or "").strip(),
            tags=[t for t in (row.get("tags") or "").split(";") if t],
        )
        problems = contact.problems()
        if problems:
            errors.append(f"line {lineno}: " + "; ".join(problems))
            continue
        if contact.phone:
            contact.phone = normalize_phone(contact.phone)
        contacts.append(contact)
    return contacts, errors
