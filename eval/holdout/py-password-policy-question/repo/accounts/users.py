"""An in-memory user store."""
from .forms import validate_signup
from .passwords import hash_password, verify_password


class UserStore:
    def __init__(self):
        self._users = {}

    def sign_up(self, form):
        errors = validate_signup(form)
        if form.get("username") in self._users:
            errors["username"] = "Taken."
        if errors:
            return errors
        self._users[form["username"]] = hash_password(form["password"])
        return {}

    def log_in(self, username, password):
        stored = self._users.get(username)
        return stored is not None and verify_password(password, stored)
