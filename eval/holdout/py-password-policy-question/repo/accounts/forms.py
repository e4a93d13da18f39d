"""Validation of the sign-up and login forms."""
import re

from . import settings
from .passwords import is_strong_password

USERNAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

HELP_TEXT = {
    "username": "Lower-case letters, digits and underscores.",
    "password": "At least 8 characters, with a letter and a digit.",
}


def validate_signup(form):
    """Return a dict of field -> error message (empty if the form is valid)."""
    errors = {}
    username = form.get("username", "").strip()
    password = form.get("password", "")
    if not USERNAME_RE.match(username) or len(username) > settings.USERNAME_MAX_LENGTH:
        errors["username"] = "Invalid username. " + HELP_TEXT["username"]
    if not is_strong_password(password, username=username):
        errors["password"] = "Password too weak. " + HELP_TEXT["password"]
    if password != form.get("password_again", ""):
        errors["password_again"] = "The passwords do not match."
    return errors


def validate_login(form):
    errors = {}
    if not form.get("username"):
        errors["username"] = "Required."
    if not form.get("password"):
        errors["password"] = "Required."
    return errors
