"""Admin sign-in: staff accounts (the owner bootstrapped from the settings), server-side sessions,
login throttling, and the one check of what a signed-in role may do (`authorize`).

Passwords are kept only as Argon2id hashes (services/staff/passwords.py); a person signs in with
their username or email. A session token is 256 random bits, handed to the browser once and stored as a SHA-256
hash with an expiry; logging out revokes it.

Sign-in attempts are counted in the database (so the limits hold across workers) before the
password is checked, per (username, client address) and per address: over the limit an attempt
is refused unchecked, and a successful one is given back. Failures for a username alone, from any
address, never refuse anyone (that would let anyone lock the admin out); they slow every further
attempt for that username by a growing, capped delay, awaited without holding a thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select, update

from storefront.config import PRODUCTION, Settings
from storefront.models import AdminSession, StaffAccount, StaffPolicy, utcnow
from storefront.services.platform.errors import ForbiddenError, UnauthorizedError, ValidationError
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.staff import activity, roles, two_factor
from storefront.services.staff.accounts import ensure_owner, find_for_sign_in, owner_uses_settings_password
from storefront.services.staff.passwords import password_matches

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
#: Attempts a minute for one username from one address; the next ones are refused unchecked.
FAILED_LOGINS_PER_MINUTE = 5
#: Attempts a minute from one address, whatever the username.
LOGINS_PER_ADDRESS_PER_MINUTE = 10
#: Failures a minute for a username (from anywhere) before its attempts are slowed down.
FREE_USERNAME_FAILURES = 5
#: The first delay; each further failure doubles it, up to the cap.
FIRST_DELAY_SECONDS = 0.25
MAX_DELAY_SECONDS = 4.0
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 128
MAX_FIELD_CHARS = 200
# scrypt cost: about 50 ms a check, which makes guessing slow without making sign-in slow.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]


def username_delay(failures: int) -> float:
    """Seconds to wait before checking a password for a username that failed this often this minute."""
    if failures < FREE_USERNAME_FAILURES:
        return 0.0
    return min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (failures - FREE_USERNAME_FAILURES))


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
    #: services.staff.roles: what this person may do.
    role: str = roles.OWNER
    account_id: int | None = None
    #: Two-factor sign-in must be set up before anything else (services/staff/two_factor.is_due).
    two_factor_due: bool = False

    @property
    def actor(self) -> activity.Actor:
        """Who acts, for the activity log (the address is added where the request is known)."""
        return activity.Actor(self.username)


TOKEN_HASH_CHARS = 64


def hash_token(token: str) -> str:
    """The SHA-256 of a token, as stored: the only form of a session token the server keeps."""
    return hashlib.sha256(token.encode()).hexdigest()


class AdminAuth:
    """Signs the admin in and out and verifies session tokens."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        settings: Settings,
        clock: Clock = utcnow,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._session_factory = session_factory
        self._username = settings.admin_username
        self._settings_password = settings.admin_password
        self._owner_ready = False
        self._clock = clock
        self._sleep = sleep
        self.uses_default_password = settings.admin_uses_default_password
        #: In production the owner must set up two-factor sign-in too.
        self._production = settings.store_env == PRODUCTION
        self._per_address_user = RateLimiter(
            session_factory, limit=FAILED_LOGINS_PER_MINUTE, window_seconds=60, message=TOO_MANY_FAILURES, clock=clock
        )
        self._per_address = RateLimiter(
            session_factory,
            limit=LOGINS_PER_ADDRESS_PER_MINUTE,
            window_seconds=60,
            message=TOO_MANY_FAILURES,
            clock=clock,
        )
        # Never refuses (no `check`): only read for the delay.
        self._user_failures = RateLimiter(
            session_factory, limit=FREE_USERNAME_FAILURES, window_seconds=60, message=TOO_MANY_FAILURES, clock=clock
        )

    def default_credentials(self) -> tuple[str, str] | None:
        """ADMIN_USERNAME and the default password while they still sign the owner in (no
        ADMIN_PASSWORD is set and the owner never changed it in the back office): the login's hint.
        None otherwise."""
        if not self.uses_default_password:
            return None
        with self._session_factory() as session:
            if not owner_uses_settings_password(session):
                return None
        return self._username, self._settings_password

    async def login(self, username: object, password: object, client: str = "", code: object = None) -> str:
        """A new session token for the right credentials.

        ValidationError for missing fields, TooManyRequestsError after too many attempts this minute
        for the username from this address or from this address at all, UnauthorizedError for wrong
        credentials. After many failures for the username this minute, answers only after a delay.
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
        name, secret = name[:MAX_FIELD_CHARS], secret[:MAX_FIELD_CHARS]
        user_key = f"login-user:{name.lower()}"
        # The address first: a long username is what the key's length limit cuts.
        pair_key, address_key = f"login-addr-user:{client}|{name.lower()}", f"login-addr:{client}"
        delay = await asyncio.to_thread(self._count_attempt, pair_key, address_key, user_key)
        if delay:
            await self._sleep(delay)
        return await asyncio.to_thread(self._check, name, secret, client, (pair_key, address_key, user_key), code)

    def _count_attempt(self, pair_key: str, address_key: str, user_key: str) -> float:
        """Count the attempt (refused when over a limit); the delay the username's failures ask for."""
        self._per_address_user.attempt(pair_key)
        self._per_address.attempt(address_key)
        return username_delay(self._user_failures.count(user_key))

    def _ensure_owner(self) -> None:
        """The owner's account from the settings, made or brought in step once per process."""
        if self._owner_ready:
            return
        with self._session_factory() as session:
            ensure_owner(session, self._username, self._settings_password, self._clock())
        self._owner_ready = True

    def _check(self, name: str, secret: str, client: str, keys: tuple[str, str, str], code: object = None) -> str:
        """Check the credentials (and the two-factor code, when the person uses one) of a counted
        attempt; a session token when right."""
        pair_key, address_key, user_key = keys
        self._ensure_owner()
        with self._session_factory() as session:
            account = find_for_sign_in(session, name)
            # The hash is always checked (a dummy one without an account), so timing does not tell
            # a right username from a wrong one.
            password_ok = password_matches(account.password_hash if account else None, secret)
            if account is None or not password_ok or account.disabled_at is not None:
                self._user_failures.record(user_key)
                logger.warning("Failed admin sign-in for %r from %s", name, client or "unknown")
                raise UnauthorizedError(INVALID_CREDENTIALS)
            if account.totp_enabled_at is not None:
                self._check_code(session, account, code, keys, client)
            token = secrets.token_urlsafe(TOKEN_BYTES)
            now = self._clock()
            session.add(
                AdminSession(
                    token_hash=hash_token(token),
                    username=account.username,
                    client=client[:64],
                    created_at=now,
                    expires_at=now + SESSION_LIFETIME,
                )
            )
            activity.record(session, activity.Actor(account.username, client), activity.SIGN_IN, now=now)
            session.commit()
            username = account.username
        # A success is no guess: the person may sign in from here as often as needed (given back
        # after the commit: on SQLite another write while this session holds the lock would wait).
        self._per_address_user.give_back(pair_key)
        self._per_address.give_back(address_key)
        logger.info("Admin %s signed in from %s", username, client or "unknown")
        return token

    def _check_code(
        self, session: Session, account: StaffAccount, code: object, keys: tuple[str, str, str], client: str
    ) -> None:
        """The second factor of a right password: refused without a code, or with one that is wrong
        or used already (claimed with a compare-and-set, so two sign-ins never share one code)."""
        pair_key, address_key, user_key = keys
        if not str(code or "").strip():
            # The right password without its code is no guess: the attempt is given back (the
            # session's read ends first, so SQLite lets the counter be written).
            session.rollback()
            self._per_address_user.give_back(pair_key)
            self._per_address.give_back(address_key)
            raise UnauthorizedError(two_factor.CODE_REQUIRED, {"code": two_factor.CODE_REQUIRED})
        old_step, old_codes = account.totp_last_step, account.recovery_codes_json
        if two_factor.use_code(account, code, self._clock()):
            # The account's own changed fields are not flushed first: the claim compares the old values.
            with session.no_autoflush:
                claimed = session.execute(
                    update(StaffAccount)
                    .where(
                        col(StaffAccount.id) == account.id,
                        col(StaffAccount.totp_last_step).is_(None) if old_step is None
                        else col(StaffAccount.totp_last_step) == old_step,
                        col(StaffAccount.recovery_codes_json) == old_codes,
                    )
                    .values(totp_last_step=account.totp_last_step, recovery_codes_json=account.recovery_codes_json)
                    .execution_options(synchronize_session=False)
                )
            if claimed.rowcount == 1:  # type: ignore[attr-defined]
                return
        session.rollback()
        self._user_failures.record(user_key)
        logger.warning("Wrong two-factor code for %r from %s", account.username, client or "unknown")
        raise UnauthorizedError(two_factor.INVALID_CODE, {"code": two_factor.INVALID_CODE})

    def verify(self, token: object) -> SignedIn:
        """The session a token opens; UnauthorizedError when missing, wrong, expired or revoked."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
            raise UnauthorizedError(SESSION_REQUIRED)
        return self.verify_hash(hash_token(token))

    def verify_hash(self, token_hash: str) -> SignedIn:
        """The session whose token hashes to `token_hash` (what the pages keep instead of the token)."""
        if len(token_hash) != TOKEN_HASH_CHARS:
            raise UnauthorizedError(SESSION_REQUIRED)
        self._ensure_owner()
        # The owner's two-factor policy, read in the same query.
        required = select(StaffPolicy.require_two_factor).where(col(StaffPolicy.id) == 1).scalar_subquery()
        with self._session_factory() as session:
            # The account is read with the session: a disabled or removed person's session opens nothing.
            found = session.exec(
                select(AdminSession, StaffAccount, required)
                .join(StaffAccount, col(StaffAccount.username) == col(AdminSession.username))
                .where(
                    col(AdminSession.token_hash) == token_hash,
                    col(AdminSession.revoked_at).is_(None),
                    col(AdminSession.expires_at) > self._clock(),
                    col(StaffAccount.disabled_at).is_(None),
                )
            ).first()
        if found is None:
            raise UnauthorizedError(SESSION_REQUIRED)
        row, account, policy = found
        assert row.id is not None
        due = two_factor.is_due(
            enabled=account.totp_enabled_at is not None, required=bool(policy), role=account.role,
            production=self._production,
        )
        return SignedIn(row.id, row.username, row.expires_at, account.role, account.id, due)

    @staticmethod
    def authorize(signed_in: SignedIn, permission: str) -> SignedIn:
        """The session, when its role may do what `permission` names and, while two-factor sign-in
        is due for the person, only setting it up (roles.WHILE_TWO_FACTOR_DUE); ForbiddenError
        otherwise. The one check of roles: the API's guard and the pages' guard both call it."""
        if not roles.allows(signed_in.role, permission):
            raise ForbiddenError(roles.NOT_ALLOWED)
        if signed_in.two_factor_due and permission not in roles.WHILE_TWO_FACTOR_DUE:
            raise ForbiddenError(two_factor.SET_UP_FIRST, {"twoFactorDue": True})
        return signed_in

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
