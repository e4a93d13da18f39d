"""Password rules and hashing."""
import hashlib
import hmac
import os
import string

from . import settings

COMMON = {"password", "123456", "12345678", "qwerty", "letmein", "iloveyou", "admin"}


def is_strong_password(password, username="", min_length=None):
    """True if ``password`` may be used for a new account.

    It must be at least ``min_length`` characters (the configured minimum by
    default), contain a letter and a digit, not be a well-known password, and
    not contain the username.
    """
    min_length = settings.PASSWORD_MIN_LENGTH if min_length is None else min_length
    if len(password) < min_length:
        return False
    if not any(c in string.ascii_letters for c in password):
        return False
    if not any(c.isdigit() for c in password):
        return False
    if password.lower() in COMMON:
        return False
    if username and username.lower() in password.lower():
        return False
    return True


def hash_password(password, salt=None):
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, settings.PASSWORD_HASH_ITERATIONS)
    return salt.hex() + "$" + digest.hex()


def verify_password(password, stored):
    salt_hex, digest_hex = stored.split("$", 1)
    expected = hash_password(password, bytes.fromhex(salt_hex)).split("$", 1)[1]
    return hmac.compare_digest(expected, digest_hex)
