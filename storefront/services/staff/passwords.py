"""Staff passwords: Argon2id hashes (argon2-cffi) and the rules a new password must pass."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from storefront.services.platform.errors import ValidationError
from storefront.services.staff.common_passwords import COMMON_PASSWORDS

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 200
PASSWORD_TOO_SHORT = f"Use at least {MIN_PASSWORD_CHARS} characters"
PASSWORD_TOO_LONG = f"Use at most {MAX_PASSWORD_CHARS} characters"
PASSWORD_TOO_COMMON = "This password is too common: choose another one"
PASSWORD_IS_NAME = "The password must not be your username or email"

# OWASP's Argon2id settings (19 MiB, 2 passes, 1 lane): a check takes tens of milliseconds.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
#: A hash checked when no account matches, so a wrong username takes as long as a wrong password.
_DUMMY_HASH = _HASHER.hash("no account has this password")


def hash_password(password: str) -> str:
    """The Argon2id hash of `password` (starts '$argon2id$')."""
    return _HASHER.hash(password)


def password_matches(stored_hash: str | None, password: str) -> bool:
    """Whether `password` is the one `stored_hash` was made from (a wrong one costs the same time)."""
    try:
        return _HASHER.verify(stored_hash or _DUMMY_HASH, password) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def check_new_password(password: object, *names: str | None) -> str:
    """The password when it may be used; ValidationError({'password': why}) otherwise."""
    text = password if isinstance(password, str) else ""
    problem = ""
    if len(text) < MIN_PASSWORD_CHARS:
        problem = PASSWORD_TOO_SHORT
    elif len(text) > MAX_PASSWORD_CHARS:
        problem = PASSWORD_TOO_LONG
    elif text.lower() in COMMON_PASSWORDS:
        problem = PASSWORD_TOO_COMMON
    elif any(name and text.lower() == name.lower() for name in names):
        problem = PASSWORD_IS_NAME
    if problem:
        raise ValidationError(problem, {"password": problem})
    return text
