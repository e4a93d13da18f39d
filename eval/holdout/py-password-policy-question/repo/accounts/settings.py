"""Configuration, read from the environment at import time."""
import os

SECRET_KEY = os.environ.get("ACCOUNTS_SECRET_KEY", "dev-only-secret")
PASSWORD_MIN_LENGTH = int(os.environ.get("PASSWORD_MIN_LENGTH", "10"))
PASSWORD_HASH_ITERATIONS = int(os.environ.get("PASSWORD_HASH_ITERATIONS", "200000"))
USERNAME_MAX_LENGTH = 32
SESSION_HOURS = 12
