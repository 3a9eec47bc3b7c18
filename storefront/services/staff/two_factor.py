"""Two-factor sign-in: TOTP (RFC 6238, any authenticator app) with ten single-use recovery codes.

Enrolment keeps a pending secret until the first right code confirms it; only then does sign-in
ask for a code. A code is accepted for the current 30-second step or the one either side (clock
drift), and never twice: the last accepted step is kept. Recovery codes are kept as SHA-256 hashes
and each is removed when used.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import pyotp
import segno
from sqlmodel import Session, col, select

from storefront.models import StaffAccount, StaffPolicy, utcnow
from storefront.services.platform.errors import ConflictError, NotFoundError, ValidationError
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor
from storefront.services.staff.roles import OWNER

ISSUER = "Storefront back office"
RECOVERY_CODES = 10
STEP_SECONDS = 30
CODE_REQUIRED = "Enter the 6-digit code from your authenticator app, or a recovery code"
INVALID_CODE = "That code is not right. Try the newest code from your app."
NOT_ENROLLING = "Start the set-up first"
ALREADY_ON = "Two-factor sign-in is on already"
ACCOUNT_NOT_FOUND = "Account not found"
#: What every admin route and handler but setting it up answers while it is due (see `is_due`).
SET_UP_FIRST = "Set up two-factor sign-in to continue"
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Enrolment:
    """What the person needs to add the account to an app: the secret, its otpauth:// address and its QR code."""

    secret: str
    uri: str
    qr_svg_data_uri: str


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().lower().replace(" ", "").encode()).hexdigest()


def new_recovery_codes() -> list[str]:
    """Ten codes like 'k7m2p-x9q4t' (50 random bits each)."""
    return [
        "-".join("".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(5)) for _ in range(2))
        for _ in range(RECOVERY_CODES)
    ]


def _step_of_code(secret: str, code: str, now: datetime) -> int | None:
    """The time step `code` is right for (now, or one step either side), or None."""
    totp = pyotp.TOTP(secret, interval=STEP_SECONDS)
    step = int(now.timestamp()) // STEP_SECONDS
    for candidate in (step, step - 1, step + 1):
        if hmac.compare_digest(totp.generate_otp(candidate), code):
            return candidate
    return None


def use_code(account: StaffAccount, code: object, now: datetime) -> bool:
    """Whether `code` (a TOTP code not used before, or an unused recovery code) signs `account` in;
    the account is changed so the same code never works again (the caller commits)."""
    text = str(code or "").strip().replace(" ", "")
    if not text or not account.totp_secret:
        return False
    if text.isdigit() and len(text) == 6:
        step = _step_of_code(account.totp_secret, text, now)
        if step is None or (account.totp_last_step is not None and step <= account.totp_last_step):
            return False
        account.totp_last_step = step
        return True
    hashes: list[str] = json.loads(account.recovery_codes_json or "[]")
    wanted = _hash(text)
    for stored in hashes:
        if hmac.compare_digest(stored, wanted):
            account.recovery_codes_json = json.dumps([h for h in hashes if h != stored])
            return True
    return False


def two_factor_required(session: Session) -> bool:
    """Whether the owner asked everyone to use two-factor sign-in."""
    policy = session.get(StaffPolicy, 1)
    return bool(policy and policy.require_two_factor)


def is_due(*, enabled: bool, required: bool, role: str, production: bool) -> bool:
    """Whether the person must set up two-factor sign-in before anything else: it is not on, and the
    owner requires it for everyone, or (in production) the person is the owner. The one rule: the
    admin guard (services/admin/auth.py) and the dashboard's status both ask it."""
    return not enabled and (required or (production and role == OWNER))


class TwoFactor:
    """Enrolment, confirmation and turning it off, for the signed-in person."""

    def __init__(self, session_factory: Callable[[], Session], clock: Clock = utcnow, production: bool = False) -> None:
        self._session_factory = session_factory
        self._clock = clock
        #: In production the owner is asked to set it up at first sign-in.
        self._production = production

    def _account(self, session: Session, username: str) -> StaffAccount:
        account = session.exec(select(StaffAccount).where(col(StaffAccount.username) == username)).first()
        if account is None:
            raise NotFoundError(ACCOUNT_NOT_FOUND)
        return account

    def status(self, username: str) -> dict[str, object]:
        with self._session_factory() as session:
            account = self._account(session, username)
            enabled, required = account.totp_enabled_at is not None, two_factor_required(session)
            return {
                "enabled": enabled,
                "recoveryCodesLeft": len(json.loads(account.recovery_codes_json or "[]")),
                "required": required,
                # What the dashboard asks the person to do now (and all the guard lets them do).
                "due": is_due(enabled=enabled, required=required, role=account.role, production=self._production),
            }

    def start(self, actor: Actor) -> Enrolment:
        """A new pending secret for the person (replacing a pending one); refused while it is on."""
        with self._session_factory() as session:
            account = self._account(session, actor.username)
            if account.totp_enabled_at is not None:
                raise ConflictError(ALREADY_ON)
            secret = pyotp.random_base32()
            account.totp_secret, account.totp_last_step = secret, None
            session.add(account)
            session.commit()
            uri = pyotp.TOTP(secret, interval=STEP_SECONDS).provisioning_uri(name=account.username, issuer_name=ISSUER)
        return Enrolment(secret, uri, segno.make(uri, error="m").svg_data_uri(scale=4))

    def confirm(self, actor: Actor, code: object) -> list[str]:
        """Turn it on with the first right code; the ten recovery codes (shown once, kept as hashes)."""
        with self._session_factory() as session:
            account = self._account(session, actor.username)
            if account.totp_enabled_at is not None:
                raise ConflictError(ALREADY_ON)
            if not account.totp_secret:
                raise ConflictError(NOT_ENROLLING)
            text = str(code or "").strip().replace(" ", "")
            now = self._clock()
            step = _step_of_code(account.totp_secret, text, now) if text.isdigit() and len(text) == 6 else None
            if step is None:
                raise ValidationError(INVALID_CODE, {"code": INVALID_CODE})
            codes = new_recovery_codes()
            account.totp_enabled_at, account.totp_last_step = now, step
            account.recovery_codes_json = json.dumps([_hash(c) for c in codes])
            session.add(account)
            activity.record(session, actor, activity.ACCOUNT_CHANGE, f"account {account.username}",
                            after={"two-factor": "on"}, now=now)
            session.commit()
            return codes

    def turn_off(self, actor: Actor, code: object) -> None:
        """Turn it off with a right code (or a recovery code)."""
        with self._session_factory() as session:
            account = self._account(session, actor.username)
            now = self._clock()
            if account.totp_enabled_at is None or not use_code(account, code, now):
                raise ValidationError(INVALID_CODE, {"code": INVALID_CODE})
            account.totp_secret, account.totp_enabled_at, account.totp_last_step = None, None, None
            account.recovery_codes_json = "[]"
            session.add(account)
            activity.record(session, actor, activity.ACCOUNT_CHANGE, f"account {account.username}",
                            after={"two-factor": "off"}, now=now)
            session.commit()

    def is_required(self) -> bool:
        """Whether the owner asks everyone to use it (what the Staff tab's switch shows)."""
        with self._session_factory() as session:
            return two_factor_required(session)

    def require_for_everyone(self, actor: Actor, required: bool) -> None:
        with self._session_factory() as session:
            policy = session.get(StaffPolicy, 1) or StaffPolicy(id=1)
            before = policy.require_two_factor
            policy.require_two_factor = bool(required)
            session.add(policy)
            activity.record(session, actor, activity.ACCOUNT_CHANGE, "two-factor policy",
                            before={"required": before}, after={"required": policy.require_two_factor},
                            now=self._clock())
            session.commit()
