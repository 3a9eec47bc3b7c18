"""Staff accounts: the owner from the settings, invitations, password changes and resets,
disabling and removing (either ends the person's sessions at once).

An invitation or reset link carries the account, a random nonce kept on the account and an
expiring signature; setting a password clears the nonce, so each link works once and a newer link
replaces an older one.
"""

from __future__ import annotations

import html
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from email_validator import EmailNotValidError, validate_email
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, or_, select, update

from storefront.models import AdminSession, StaffAccount, utcnow
from storefront.services.mail.outbox import Mail, queue_mail
from storefront.services.platform.errors import ForbiddenError, NotFoundError, ValidationError
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.platform.signing import LinkSigner
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor
from storefront.services.staff.passwords import check_new_password, hash_password, password_matches
from storefront.services.staff.roles import INVITABLE_ROLES, OWNER, ROLE_LABELS

logger = logging.getLogger(__name__)

INVITE_LIFETIME = timedelta(days=7)
RESET_LIFETIME = timedelta(hours=1)
LINK_PURPOSE = "staff-password"
SET_PASSWORD_PATH = "/admin/set-password"
MAX_USERNAME_CHARS = 100

EMAIL_INVALID = "Enter a valid email address"
USERNAME_INVALID = "Use 2 to 100 letters, digits, dots, dashes or underscores"
ROLE_INVALID = "Choose a role: Staff or Fulfilment"
USERNAME_TAKEN = "That username is taken"
EMAIL_TAKEN = "An account with this email exists"
LINK_INVALID = "This link has expired or was already used. Ask for a new one."
CURRENT_PASSWORD_WRONG = "The current password is not right"
ACCOUNT_NOT_FOUND = "Account not found"
OWNER_IS_KEPT = "The owner's account cannot be disabled or removed"
PASSWORD_SET = "Your password is set. You can sign in now."
NAME_REQUIRED = "Enter your username or email"
#: The answer to every reset request, whether an account matches or not.
RESET_SENT = "If an account matches, a reset link is on its way to its email."
#: Reset requests are counted per client address under this key prefix (each may send an email).
RESET_KEY = "password-reset"

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class AccountView:
    """An account as the Staff tab lists it (never its hashes or secrets)."""

    id: int
    username: str
    email: str
    role: str
    status: str
    two_factor: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "username": self.username, "email": self.email, "role": self.role,
            "roleLabel": ROLE_LABELS.get(self.role, self.role), "status": self.status, "twoFactor": self.two_factor,
        }


def account_status(account: StaffAccount) -> str:
    if account.disabled_at is not None:
        return "disabled"
    return "active" if account.password_hash or account.password_from_settings else "invited"


def view_of(account: StaffAccount) -> AccountView:
    assert account.id is not None
    return AccountView(
        account.id, account.username, account.email or "", account.role, account_status(account),
        account.totp_enabled_at is not None,
    )


def find_for_sign_in(session: Session, name: str) -> StaffAccount | None:
    """The account whose username (exactly, as the single admin login always compared it) or email
    (in any case) is `name`."""
    name = name.strip()
    return session.exec(
        select(StaffAccount).where(or_(col(StaffAccount.username) == name, col(StaffAccount.email) == name.lower()))
    ).first()


def ensure_owner(session: Session, username: str, password: str, now: datetime) -> None:
    """Make the owner from ADMIN_USERNAME / ADMIN_PASSWORD on first start; while the owner never
    changed the password in the back office, keep the account in step with the settings."""
    owner = session.exec(select(StaffAccount).where(col(StaffAccount.role) == OWNER)).first()
    if owner is None:
        session.add(
            StaffAccount(
                username=username, role=OWNER, password_hash=hash_password(password), password_from_settings=True,
                created_at=now,
            )
        )
        try:
            session.commit()
        except IntegrityError:  # another worker made it first
            session.rollback()
        return
    if not owner.password_from_settings:
        return
    changed = False
    if owner.username != username and find_for_sign_in(session, username) is None:
        owner.username, changed = username, True
    if not password_matches(owner.password_hash, password):
        owner.password_hash, changed = hash_password(password), True
    if changed:
        session.add(owner)
        session.commit()


def owner_uses_settings_password(session: Session) -> bool:
    """Whether the owner still signs in with ADMIN_PASSWORD: no owner yet (the first sign-in makes
    it from the settings) or one nobody gave a password of their own in the back office."""
    owner = session.exec(select(StaffAccount).where(col(StaffAccount.role) == OWNER)).first()
    return owner is None or owner.password_from_settings


def revoke_sessions(session: Session, username: str, now: datetime) -> None:
    """End every open session of `username` (in the caller's transaction)."""
    session.execute(
        update(AdminSession)
        .where(col(AdminSession.username) == username, col(AdminSession.revoked_at).is_(None))
        .values(revoked_at=now)
    )


def _clean_email(value: object) -> str:
    try:
        return validate_email(str(value or "").strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError:
        raise ValidationError(EMAIL_INVALID, {"email": EMAIL_INVALID}) from None


def _clean_username(value: object) -> str:
    name = str(value or "").strip()
    allowed = all(ch.isalnum() or ch in "._-" for ch in name)
    if not (2 <= len(name) <= MAX_USERNAME_CHARS) or not allowed or not name.isascii():
        raise ValidationError(USERNAME_INVALID, {"username": USERNAME_INVALID})
    return name


def _clean_role(value: object) -> str:
    if value not in INVITABLE_ROLES:
        raise ValidationError(ROLE_INVALID, {"role": ROLE_INVALID})
    return str(value)


class StaffAccounts:
    """What the owner does with accounts, and what each person does with their own password."""

    def __init__(self, session_factory: Callable[[], Session], signer: LinkSigner, public_url: str,
                 clock: Clock = utcnow, reset_limiter: RateLimiter | None = None) -> None:
        self._session_factory = session_factory
        self._signer = signer
        self._public_url = public_url.rstrip("/")
        self._clock = clock
        #: Reset requests per client address (the API's and the page's count in the same one).
        self._reset_limiter = reset_limiter

    # Links.

    def _link(self, account: StaffAccount, lifetime: timedelta) -> str:
        """A fresh single-use link for the account (replacing any earlier one); the caller commits."""
        assert account.id is not None
        nonce = secrets.token_urlsafe(18)
        account.link_nonce = nonce
        signature = self._signer.sign(LINK_PURPOSE, f"{account.id}.{nonce}", self._clock() + lifetime)
        return f"{self._public_url}{SET_PASSWORD_PATH}?token={quote(f'{account.id}.{nonce}.{signature}')}"

    def _account_of_link(self, session: Session, token: object) -> StaffAccount:
        parts = str(token or "").split(".")
        if len(parts) != 4 or not parts[0].isdigit() or len(parts[0]) > 12:
            raise ValidationError(LINK_INVALID, {"token": LINK_INVALID})
        account_id, nonce, signature = parts[0], parts[1], f"{parts[2]}.{parts[3]}"
        if not self._signer.verify(LINK_PURPOSE, f"{account_id}.{nonce}", signature, self._clock()):
            raise ValidationError(LINK_INVALID, {"token": LINK_INVALID})
        account = session.get(StaffAccount, int(account_id))
        if account is None or account.disabled_at is not None or not account.link_nonce or not secrets.compare_digest(
            account.link_nonce, nonce
        ):
            raise ValidationError(LINK_INVALID, {"token": LINK_INVALID})
        return account

    def _queue_link_mail(self, session: Session, account: StaffAccount, link: str, invite: bool) -> None:
        assert account.email is not None
        if invite:
            subject = "You are invited to the store's back office"
            text = (
                f"Hello {account.username},\n\nYou have been invited to the back office as "
                f"{ROLE_LABELS[account.role]}. Set your password here (the link works once, for 7 days):\n\n{link}\n"
            )
        else:
            subject = "Reset your back office password"
            text = (
                f"Hello {account.username},\n\nSomeone asked to reset your back office password. Set a new "
                f"one here (the link works once, for an hour):\n\n{link}\n\nIf it was not you, ignore this email.\n"
            )
        body = "".join(f"<p>{html.escape(part)}</p>" for part in text.split("\n\n"))
        kind = "staff-invite" if invite else "staff-reset"
        queue_mail(
            session,
            Mail(kind=kind, recipient=account.email, subject=subject, text=text, html=body,
                 key=f"{kind}-{account.id}-{account.link_nonce}"),
            self._clock(),
        )

    # The owner's actions.

    def list_accounts(self) -> list[AccountView]:
        with self._session_factory() as session:
            rows = session.exec(select(StaffAccount).order_by(col(StaffAccount.id))).all()
            return [view_of(row) for row in rows]

    def invite(self, actor: Actor, email: object, username: object, role: object) -> tuple[AccountView, str]:
        """Make an invited account and email it a link to set a password; the account and the link."""
        errors: dict[str, str] = {}
        cleaned: dict[str, str] = {}
        for field, value, clean in (("email", email, _clean_email), ("username", username, _clean_username),
                                    ("role", role, _clean_role)):
            try:
                cleaned[field] = clean(value)
            except ValidationError as error:
                errors.update(error.field_errors)
        if errors:
            raise ValidationError(next(iter(errors.values())), errors)
        with self._session_factory() as session:
            if find_for_sign_in(session, cleaned["username"]) is not None:
                raise ValidationError(USERNAME_TAKEN, {"username": USERNAME_TAKEN})
            if find_for_sign_in(session, cleaned["email"]) is not None:
                raise ValidationError(EMAIL_TAKEN, {"email": EMAIL_TAKEN})
            account = StaffAccount(
                username=cleaned["username"], email=cleaned["email"], role=cleaned["role"], created_at=self._clock()
            )
            session.add(account)
            try:
                session.flush()
            except IntegrityError:
                session.rollback()
                raise ValidationError(USERNAME_TAKEN, {"username": USERNAME_TAKEN}) from None
            link = self._link(account, INVITE_LIFETIME)
            self._queue_link_mail(session, account, link, invite=True)
            activity.record(
                session, actor, activity.ACCOUNT_CHANGE, f"account {account.username}",
                after={"invited": account.email, "role": account.role}, now=self._clock(),
            )
            session.commit()
            return view_of(account), link

    def _owned_change(self, actor: Actor, account_id: int, change: str) -> AccountView | None:
        with self._session_factory() as session:
            account = session.get(StaffAccount, account_id)
            if account is None:
                raise NotFoundError(ACCOUNT_NOT_FOUND)
            if account.role == OWNER:
                raise ForbiddenError(OWNER_IS_KEPT)
            before = account_status(account)
            now = self._clock()
            if change in ("disable", "remove"):
                revoke_sessions(session, account.username, now)
            target = f"account {account.username}"
            if change == "remove":
                session.delete(account)
                activity.record(session, actor, activity.ACCOUNT_CHANGE, target, before={"status": before},
                                after={"status": "removed"}, now=now)
                session.commit()
                return None
            account.disabled_at = now if change == "disable" else None
            session.add(account)
            activity.record(session, actor, activity.ACCOUNT_CHANGE, target, before={"status": before},
                            after={"status": account_status(account)}, now=now)
            session.commit()
            return view_of(account)

    def disable(self, actor: Actor, account_id: int) -> AccountView:
        """Disable the account: its sessions end now and it cannot sign in until enabled."""
        view = self._owned_change(actor, account_id, "disable")
        assert view is not None
        return view

    def enable(self, actor: Actor, account_id: int) -> AccountView:
        view = self._owned_change(actor, account_id, "enable")
        assert view is not None
        return view

    def remove(self, actor: Actor, account_id: int) -> None:
        """Delete the account; its sessions end now (the activity log keeps its name)."""
        self._owned_change(actor, account_id, "remove")

    # Each person's own password.

    def set_password_with_link(self, token: object, password: object, client: str = "") -> str:
        """Set the password an invitation or reset link is for; the account's username. The link is
        then used up, and any session opened with an older password ends."""
        with self._session_factory() as session:
            account = self._account_of_link(session, token)
            secret = check_new_password(password, account.username, account.email)
            now = self._clock()
            first = account.password_hash is None
            account.password_hash = hash_password(secret)
            account.password_from_settings = False
            account.password_changed_at, account.link_nonce = now, None
            session.add(account)
            revoke_sessions(session, account.username, now)
            activity.record(session, Actor(account.username, client), activity.ACCOUNT_CHANGE,
                            f"account {account.username}",
                            after={"password": "set" if first else "reset by link"}, now=now)
            session.commit()
            return account.username

    def request_reset(self, name: object, client: str = "") -> None:
        """Email a reset link to the account with this username or email, when there is one that
        can sign in (the answer is the same either way, so it tells no one who has an account).
        Each request from `client` counts first: TooManyRequestsError over the limit."""
        if self._reset_limiter is not None:
            self._reset_limiter.attempt(f"{RESET_KEY}:{client}")
        text = str(name or "").strip()[:320]
        if not text:
            raise ValidationError(NAME_REQUIRED, {"username": NAME_REQUIRED})
        with self._session_factory() as session:
            account = find_for_sign_in(session, text)
            if account is None or account.disabled_at is not None or not account.email:
                return
            link = self._link(account, RESET_LIFETIME)
            session.add(account)
            self._queue_link_mail(session, account, link, invite=False)
            session.commit()

    def change_password(self, actor: Actor, current: object, new: object) -> None:
        """Change the signed-in person's password (the current one asked first)."""
        with self._session_factory() as session:
            account = session.exec(select(StaffAccount).where(col(StaffAccount.username) == actor.username)).first()
            if account is None:
                raise NotFoundError(ACCOUNT_NOT_FOUND)
            if not password_matches(account.password_hash, str(current or "")):
                raise ValidationError(CURRENT_PASSWORD_WRONG, {"current": CURRENT_PASSWORD_WRONG})
            secret = check_new_password(new, account.username, account.email)
            now = self._clock()
            account.password_hash = hash_password(secret)
            account.password_from_settings = False
            account.password_changed_at = now
            session.add(account)
            activity.record(session, actor, activity.ACCOUNT_CHANGE, f"account {account.username}",
                            after={"password": "changed"}, now=now)
            session.commit()

    def account(self, username: str) -> StaffAccount:
        with self._session_factory() as session:
            row = session.exec(select(StaffAccount).where(col(StaffAccount.username) == username)).first()
            if row is None:
                raise NotFoundError(ACCOUNT_NOT_FOUND)
            session.expunge(row)
            return row

