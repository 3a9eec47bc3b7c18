"""Admin sign-in: one admin account from the settings, server-side sessions, login throttling.

The password from the settings is kept only as a salted scrypt hash and compared in constant
time. A session token is 256 random bits, handed to the browser once and stored as a SHA-256
hash with an expiry; logging out revokes it. Failed logins are counted in the database per
username and per client address, so the limit holds across workers.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select, update

from storefront.config import Settings
from storefront.models import AdminSession, utcnow
from storefront.services.platform.errors import UnauthorizedError, ValidationError
from storefront.services.platform.rate_limit import RateLimiter

logger = logging.getLogger(__name__)

USERNAME_REQUIRED = "Username is required"
PASSWORD_REQUIRED = "Password is required"
INVALID_CREDENTIALS = "Invalid username or password"
TOO_MANY_FAILURES = "Too many failed sign-in attempts. Please wait a minute and try again."
SESSION_REQUIRED = "Please sign in again"
DEFAULT_PASSWORD_WARNING = (
    "The admin password is the default one (ADMIN_PASSWORD is not set): anyone who knows it can run the shop."
)

SESSION_LIFETIME = timedelta(hours=12)
FAILED_LOGINS_PER_MINUTE = 5
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 128
MAX_FIELD_CHARS = 200
# scrypt cost: about 50 ms a check, which makes guessing slow without making sign-in slow.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class PasswordHash:
    """A salted scrypt hash of a password."""

    salt: bytes
    digest: bytes

    @classmethod
    def of(cls, password: str) -> PasswordHash:
        salt = secrets.token_bytes(16)
        return cls(salt, hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT))

    def matches(self, password: str) -> bool:
        candidate = hashlib.scrypt(password.encode(), salt=self.salt, **_SCRYPT)
        return hmac.compare_digest(candidate, self.digest)


@dataclass(frozen=True)
class SignedIn:
    """A verified admin session."""

    session_id: int
    username: str
    expires_at: datetime


TOKEN_HASH_CHARS = 64


def hash_token(token: str) -> str:
    """The SHA-256 of a token, as stored: the only form of a session token the server keeps."""
    return hashlib.sha256(token.encode()).hexdigest()


class AdminAuth:
    """Signs the admin in and out and verifies session tokens."""

    def __init__(self, session_factory: Callable[[], Session], settings: Settings, clock: Clock = utcnow) -> None:
        self._session_factory = session_factory
        self._username = settings.admin_username
        self._password = PasswordHash.of(settings.admin_password)
        self._clock = clock
        self.uses_default_password = settings.admin_uses_default_password
        self._failures = RateLimiter(
            session_factory, limit=FAILED_LOGINS_PER_MINUTE, window_seconds=60, message=TOO_MANY_FAILURES, clock=clock
        )

    def login(self, username: object, password: object, client: str = "") -> str:
        """A new session token for the right credentials.

        ValidationError for missing fields, TooManyRequestsError after too many failures for the
        username or the address this minute, UnauthorizedError for wrong credentials.
        """
        name = username.strip() if isinstance(username, str) else ""
        secret = password if isinstance(password, str) else ""
        errors = {}
        if not name:
            errors["username"] = USERNAME_REQUIRED
        if not secret:
            errors["password"] = PASSWORD_REQUIRED
        if errors:
            raise ValidationError(next(iter(errors.values())), errors)
        keys = (f"login-user:{name[:MAX_FIELD_CHARS].lower()}", f"login-addr:{client}")
        self._failures.ensure_room(*keys)
        # Both checks always run, so timing does not tell a right username from a wrong one.
        name_ok = hmac.compare_digest(name[:MAX_FIELD_CHARS].encode(), self._username.encode())
        password_ok = self._password.matches(secret[:MAX_FIELD_CHARS])
        if not (name_ok and password_ok):
            for key in keys:
                self._failures.record(key)
            logger.warning("Failed admin sign-in for %r from %s", name[:MAX_FIELD_CHARS], client or "unknown")
            raise UnauthorizedError(INVALID_CREDENTIALS)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self._clock()
        with self._session_factory() as session:
            session.add(
                AdminSession(
                    token_hash=hash_token(token),
                    username=self._username,
                    client=client[:64],
                    created_at=now,
                    expires_at=now + SESSION_LIFETIME,
                )
            )
            session.commit()
        logger.info("Admin %s signed in from %s", self._username, client or "unknown")
        return token

    def verify(self, token: object) -> SignedIn:
        """The session a token opens; UnauthorizedError when missing, wrong, expired or revoked."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
            raise UnauthorizedError(SESSION_REQUIRED)
        return self.verify_hash(hash_token(token))

    def verify_hash(self, token_hash: str) -> SignedIn:
        """The session whose token hashes to `token_hash` (what the pages keep instead of the token)."""
        if len(token_hash) != TOKEN_HASH_CHARS:
            raise UnauthorizedError(SESSION_REQUIRED)
        with self._session_factory() as session:
            row = session.exec(
                select(AdminSession).where(
                    col(AdminSession.token_hash) == token_hash,
                    col(AdminSession.revoked_at).is_(None),
                    col(AdminSession.expires_at) > self._clock(),
                )
            ).first()
        if row is None:
            raise UnauthorizedError(SESSION_REQUIRED)
        assert row.id is not None
        return SignedIn(row.id, row.username, row.expires_at)

    def logout(self, token: object) -> None:
        """Revoke the session of this token (nothing happens for an unknown one)."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
            return
        self.logout_hash(hash_token(token))

    def logout_hash(self, token_hash: str) -> None:
        """Revoke the session whose token hashes to `token_hash` (nothing happens for an unknown one)."""
        with self._session_factory() as session:
            session.execute(
                update(AdminSession)
                .where(col(AdminSession.token_hash) == token_hash, col(AdminSession.revoked_at).is_(None))
                .values(revoked_at=self._clock())
            )
            session.commit()
