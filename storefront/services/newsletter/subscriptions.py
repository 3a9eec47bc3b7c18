"""Newsletter sign-up with double opt-in, confirmation, unsubscribing, and the back office's view.

An address is kept once, lower-cased. Signing up answers the same whether the address is new,
waiting for its confirmation or already confirmed, so the form never tells who subscribed. An
address that is not confirmed gets a confirmation email with a signed link that expires after
CONFIRM_LINK_DAYS; asking again re-sends it at most once per RESEND_INTERVAL (a compare-and-set
on the row, so parallel requests on any worker queue one message). Sign-ups are counted per
client address before anything else is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, or_, update
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from storefront.models import NewsletterSubscriber, utcnow
from storefront.services.discounts.welcome import welcome_code
from storefront.services.mail.outbox import queue_mail
from storefront.services.mail.templates import Contact
from storefront.services.newsletter.emails import confirmation_mail, welcome_mail
from storefront.services.platform.csv_cells import csv_safe, csv_text
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.rate_limit import RateLimiter, dialect_insert
from storefront.services.platform.signing import LinkSigner

THANKS = "Thanks! Check your inbox to confirm your subscription."
INVALID_EMAIL = "Please enter a valid email address."
TOO_MANY_SIGNUPS = "Too many sign-ups from your network. Please try again in a few minutes."
CONFIRMED = "Your subscription is confirmed. Thanks for joining the newsletter!"
CONFIRM_REFUSED = "This confirmation link is not valid or has expired. Please subscribe again on the home page."
UNSUBSCRIBED = "You're unsubscribed. We won't send you the newsletter any more."
UNSUBSCRIBE_REFUSED = "This unsubscribe link is not valid. Please use the link from one of our emails."

CONFIRM_PURPOSE = "newsletter-confirm"
UNSUBSCRIBE_PURPOSE = "newsletter-unsubscribe"
CONFIRM_ROUTE = "/newsletter/confirm"
UNSUBSCRIBE_ROUTE = "/newsletter/unsubscribe"
#: Where a mail program's one-click unsubscribe (List-Unsubscribe-Post, RFC 8058) POSTs.
ONE_CLICK_UNSUBSCRIBE_ROUTE = "/api/newsletter/unsubscribe"
CONFIRM_LINK_DAYS = 7
#: A repeat sign-up of an unconfirmed address re-sends its confirmation at most this often.
RESEND_INTERVAL = timedelta(hours=1)
#: Sign-ups per client address in each window: a form that mails whatever it is given is a tool
#: for flooding other people's inboxes.
SIGNUPS_PER_WINDOW = 5
SIGNUP_WINDOW_SECONDS = 600
SIGNUP_KEY_PREFIX = "newsletter:"
CSV_HEADER = ("Email", "Confirmed At (UTC)")
_EXPORT_BATCH = 500

Clock = Callable[[], datetime]


def normalise_email(value: object) -> str:
    """The address as kept: checked by email-validator (no DNS), then lower-cased whole."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(INVALID_EMAIL, {"email": INVALID_EMAIL})
    try:
        checked = validate_email(value.strip(), check_deliverability=False)
    except EmailNotValidError:
        raise ValidationError(INVALID_EMAIL, {"email": INVALID_EMAIL}) from None
    return checked.normalized.lower()


def signup_limiter(session_factory: Callable[[], Session], clock: Clock = utcnow) -> RateLimiter:
    """Sign-ups per client address and window."""
    return RateLimiter(
        session_factory,
        limit=SIGNUPS_PER_WINDOW,
        window_seconds=SIGNUP_WINDOW_SECONDS,
        message=TOO_MANY_SIGNUPS,
        clock=clock,
    )


def signup_key(client_address: str | None) -> str:
    """The counter key of one client address."""
    return f"{SIGNUP_KEY_PREFIX}{client_address or 'unknown'}"


def _link(public_url: str, route: str, email: str, signature: str) -> str:
    return f"{public_url.rstrip('/')}{route}?{urlencode({'email': email, 'sig': signature})}"


def confirm_link(signer: LinkSigner, public_url: str, email: str, now: datetime) -> str:
    """The address's confirm link, valid for CONFIRM_LINK_DAYS."""
    signature = signer.sign(CONFIRM_PURPOSE, email, expires_at=now + timedelta(days=CONFIRM_LINK_DAYS))
    return _link(public_url, CONFIRM_ROUTE, email, signature)


def unsubscribe_link(signer: LinkSigner, public_url: str, email: str) -> str:
    """The address's unsubscribe link (never expires: it is in every newsletter message)."""
    return _link(public_url, UNSUBSCRIBE_ROUTE, email, signer.sign(UNSUBSCRIBE_PURPOSE, email))


def one_click_unsubscribe_link(signer: LinkSigner, public_url: str, email: str) -> str:
    """The address of the List-Unsubscribe header: a POST to it unsubscribes at once."""
    return _link(public_url, ONE_CLICK_UNSUBSCRIBE_ROUTE, email, signer.sign(UNSUBSCRIBE_PURPOSE, email))


def confirmation_key(subscriber_id: int, now: datetime) -> str:
    """The confirmation message's key: one per subscriber and RESEND_INTERVAL."""
    window = int(now.timestamp()) // int(RESEND_INTERVAL.total_seconds())
    return f"newsletter-confirm-{subscriber_id}-{window}"


def subscribed(subscriber: NewsletterSubscriber) -> bool:
    """Confirmed and not unsubscribed since: the newsletter goes to it."""
    return subscriber.confirmed_at is not None and subscriber.unsubscribed_at is None


def _find(session: Session, email: str) -> NewsletterSubscriber | None:
    return session.exec(select(NewsletterSubscriber).where(col(NewsletterSubscriber.email) == email)).first()


def subscribe(
    session: Session, email: str, signer: LinkSigner, public_url: str, now: datetime, contact: Contact | None = None
) -> bool:
    """Keep `email` (normalised) and queue its confirmation unless it is confirmed or one was
    queued within RESEND_INTERVAL; the caller commits. True when a confirmation was queued (for
    tests and logs only: the visitor is told THANKS either way)."""
    session.execute(
        dialect_insert(session)(NewsletterSubscriber)
        .values(email=email, created_at=now)
        .on_conflict_do_nothing(index_elements=[NewsletterSubscriber.email])
    )
    subscriber = _find(session, email)
    assert subscriber is not None and subscriber.id is not None
    if subscribed(subscriber):
        return False
    claimed = session.exec(
        update(NewsletterSubscriber)
        .where(
            col(NewsletterSubscriber.id) == subscriber.id,
            or_(
                col(NewsletterSubscriber.last_confirmation_sent_at).is_(None),
                col(NewsletterSubscriber.last_confirmation_sent_at) <= now - RESEND_INTERVAL,
            ),
        )
        .values(last_confirmation_sent_at=now)
    ).rowcount
    if claimed != 1:
        return False
    mail = confirmation_mail(
        email,
        confirm_link(signer, public_url, email, now),
        unsubscribe_link(signer, public_url, email),
        confirmation_key(subscriber.id, now),
        one_click_unsubscribe_link(signer, public_url, email),
        contact or Contact(),
    )
    return queue_mail(session, mail, now=now)


def confirm(session: Session, email: str, signature: str, signer: LinkSigner, now: datetime) -> bool:
    """Confirm the address a confirm link names; ValidationError(CONFIRM_REFUSED) for a forged
    or expired link. The caller commits. True the first time the address is ever confirmed (a
    compare-and-set on its row, so two clicks on the link count once)."""
    if not signer.verify(CONFIRM_PURPOSE, email, signature, now):
        raise ValidationError(CONFIRM_REFUSED)
    subscriber = _find(session, email)
    if subscriber is None:  # only signed for an address that signed up; kept again if it went
        subscriber = NewsletterSubscriber(email=email, created_at=now)
        session.add(subscriber)
        session.flush()
    first = (
        session.exec(
            update(NewsletterSubscriber)
            .where(col(NewsletterSubscriber.id) == subscriber.id, col(NewsletterSubscriber.confirmed_at).is_(None))
            .values(confirmed_at=now, unsubscribed_at=None)
            .execution_options(synchronize_session=False)
        ).rowcount
        == 1
    )
    session.refresh(subscriber)
    if not subscribed(subscriber):
        subscriber.confirmed_at, subscriber.unsubscribed_at = now, None
    session.add(subscriber)
    return first


def welcome_key(subscriber_id: int) -> str:
    """The welcome message's key: one per subscriber, ever."""
    return f"newsletter-welcome-{subscriber_id}"


def send_welcome(
    session: Session, email: str, percent: int, signer: LinkSigner, public_url: str, now: datetime,
    contact: Contact | None = None,
) -> bool:
    """Make the address's single-use welcome code and queue its email, in the caller's transaction
    (False, with no code kept by the caller's commit, when its welcome was queued before)."""
    subscriber = _find(session, email)
    assert subscriber is not None and subscriber.id is not None
    code = welcome_code(session, percent, now)
    assert code.ends_at is not None
    ends = code.ends_at.astimezone(UTC)
    mail = welcome_mail(
        email,
        code.code,
        percent,
        f"{ends:%B} {ends.day}, {ends.year}",
        public_url.rstrip("/") + "/products",
        unsubscribe_link(signer, public_url, email),
        welcome_key(subscriber.id),
        one_click_unsubscribe_link(signer, public_url, email),
        contact or Contact(),
    )
    if not queue_mail(session, mail, now=now):
        session.delete(code)
        return False
    return True


def unsubscribe(session: Session, email: str, signature: str, signer: LinkSigner, now: datetime) -> None:
    """Stop the newsletter to the address an unsubscribe link names; ValidationError
    (UNSUBSCRIBE_REFUSED) for a forged link. The caller commits."""
    if not signer.verify(UNSUBSCRIBE_PURPOSE, email, signature, now):
        raise ValidationError(UNSUBSCRIBE_REFUSED)
    subscriber = _find(session, email)
    if subscriber is not None and subscriber.unsubscribed_at is None:
        subscriber.unsubscribed_at = now
        session.add(subscriber)


def _is_subscribed() -> ColumnElement[bool]:
    return col(NewsletterSubscriber.confirmed_at).is_not(None) & col(NewsletterSubscriber.unsubscribed_at).is_(None)


def subscriber_count(session: Session) -> int:
    """How many addresses the newsletter goes to (confirmed, not unsubscribed)."""
    return int(session.exec(select(func.count()).select_from(NewsletterSubscriber).where(_is_subscribed())).one())


def _subscribers(session: Session) -> Iterator[NewsletterSubscriber]:
    """Every subscribed address in the order they signed up, a batch at a time."""
    after = 0
    while True:
        batch = session.exec(
            select(NewsletterSubscriber)
            .where(_is_subscribed(), col(NewsletterSubscriber.id) > after)
            .order_by(col(NewsletterSubscriber.id))
            .limit(_EXPORT_BATCH)
        ).all()
        yield from batch
        if len(batch) < _EXPORT_BATCH:
            return
        after = batch[-1].id or 0


def csv_row(subscriber: NewsletterSubscriber) -> list[str]:
    """One subscriber under CSV_HEADER; the address goes through the shared formula guard."""
    assert subscriber.confirmed_at is not None
    confirmed = subscriber.confirmed_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return [csv_safe(subscriber.email), confirmed]


def export_csv(session: Session) -> str:
    """Every subscribed address as CSV text under CSV_HEADER."""
    return csv_text(CSV_HEADER, (csv_row(subscriber) for subscriber in _subscribers(session)))


class Newsletter:
    """The newsletter of one store: the use cases the pages call, each in its own transaction."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        signer: LinkSigner,
        public_url: str,
        clock: Clock = utcnow,
        contact: Contact | None = None,
        welcome_percent: int = 0,
    ) -> None:
        self._contact = contact or Contact()
        #: NEWSLETTER_WELCOME_PERCENT: a confirmed subscriber's single-use code (0: none).
        self._welcome_percent = welcome_percent
        self._session_factory = session_factory
        self._signer = signer
        self._public_url = public_url
        self._clock = clock
        self.limiter = signup_limiter(session_factory, clock)

    def sign_up(self, client_address: str | None, value: object) -> str:
        """The form's sign-up: counted per client address first (TooManyRequestsError past the
        limit), then checked (ValidationError), kept and confirmed by email; answers THANKS."""
        self.limiter.check(signup_key(client_address))
        email = normalise_email(value)
        with self._session_factory() as session:
            subscribe(session, email, self._signer, self._public_url, self._clock(), self._contact)
            session.commit()
        return THANKS

    def confirm(self, email: str, signature: str) -> str:
        """Confirm the address; the first time, with NEWSLETTER_WELCOME_PERCENT set, its welcome
        code is made and emailed in the same transaction."""
        with self._session_factory() as session:
            now = self._clock()
            first = confirm(session, email, signature, self._signer, now)
            if first and self._welcome_percent > 0:
                send_welcome(session, email, self._welcome_percent, self._signer, self._public_url, now, self._contact)
            session.commit()
        return CONFIRMED

    def unsubscribe(self, email: str, signature: str) -> str:
        with self._session_factory() as session:
            unsubscribe(session, email, signature, self._signer, self._clock())
            session.commit()
        return UNSUBSCRIBED

    def count(self) -> int:
        with self._session_factory() as session:
            return subscriber_count(session)

    def export_csv(self) -> str:
        with self._session_factory() as session:
            return export_csv(session)
