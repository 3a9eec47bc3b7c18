"""The contact form: a shopper's message, queued in the mail outbox to the support address.

It is never an open relay: the message goes to SUPPORT_EMAIL only, whatever the form says, and the
shopper's address appears in its text and its Reply-To, never as a recipient. Messages are limited per client
address and per sender address (CONTACT_PER_MINUTE a minute, counted before anything is checked).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from html import escape

from sqlmodel import Session

from storefront.models import utcnow
from storefront.services.mail.outbox import Mail, queue_mail
from storefront.services.orders.order_request import is_email
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.rate_limit import RateLimiter

CONTACT_KIND = "contact-message"
#: Messages one client address (or one sender address) may send a minute.
CONTACT_PER_MINUTE = 5
SENT = "Thanks! Your message was sent. We answer within two business days."
TOO_MANY_MESSAGES = "Too many messages from your address. Please wait a minute and try again."
NAME_REQUIRED = "Please enter your name"
EMAIL_INVALID = "Please enter a valid email address"
MESSAGE_TOO_SHORT = "Please write a message of at least 10 characters"
MAX_NAME_CHARS = 200
MAX_MESSAGE_CHARS = 5000
MAX_ORDER_CHARS = 40
SUBJECT = "Contact form: {name}"


@dataclass(frozen=True, slots=True)
class ContactMessage:
    name: str
    email: str
    message: str
    order_number: str = ""


def contact_limiter(session_factory: Callable[[], Session], clock: Callable[[], datetime] = utcnow) -> RateLimiter:
    return RateLimiter(
        session_factory, limit=CONTACT_PER_MINUTE, window_seconds=60, message=TOO_MANY_MESSAGES, clock=clock
    )


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def validate_contact(form: Mapping[str, object]) -> ContactMessage:
    """The form's fields as a message; ValidationError with a message per bad field."""
    name, email, message = _text(form.get("name")), _text(form.get("email")), _text(form.get("message"))
    order_number = _text(form.get("order"))[:MAX_ORDER_CHARS]
    errors: dict[str, str] = {}
    if not name:
        errors["name"] = NAME_REQUIRED
    elif len(name) > MAX_NAME_CHARS:
        errors["name"] = f"Must be at most {MAX_NAME_CHARS} characters"
    if not is_email(email):
        errors["email"] = EMAIL_INVALID
    if len(message) < 10:
        errors["message"] = MESSAGE_TOO_SHORT
    elif len(message) > MAX_MESSAGE_CHARS:
        errors["message"] = f"Must be at most {MAX_MESSAGE_CHARS:,} characters"
    if errors:
        raise ValidationError(next(iter(errors.values())), errors)
    return ContactMessage(" ".join(name.split()), email, message, order_number)


def contact_mail(message: ContactMessage, support_email: str) -> Mail:
    """The message as an email to the support address (plain text; the HTML part escapes it)."""
    lines = [f"From: {message.name} <{message.email}>"]
    if message.order_number:
        lines.append(f"Order: {message.order_number}")
    text = (
        "\n".join(lines)
        + "\n\n"
        + message.message
        + "\n\n-- \nSent with the contact form: a reply goes to the address above.\n"
    )
    html = (
        f'<p>From: {escape(message.name)} &lt;<a href="mailto:{escape(message.email)}">'
        f"{escape(message.email)}</a>&gt;</p>"
        + (f"<p>Order: {escape(message.order_number)}</p>" if message.order_number else "")
        + f'<p style="white-space:pre-wrap">{escape(message.message)}</p>'
    )
    return Mail(
        kind=CONTACT_KIND,
        recipient=support_email,
        subject=SUBJECT.format(name=message.name)[:300],
        text=text,
        html=html,
        key=f"contact-{uuid.uuid4().hex}",
        reply_to=message.email,
    )


class ContactForm:
    """The contact form of one store: counted, checked, queued to `support_email`."""

    def __init__(
        self, session_factory: Callable[[], Session], support_email: str, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self._session_factory = session_factory
        self._support_email = support_email
        self._clock = clock
        self.limiter = contact_limiter(session_factory, clock)

    def send(self, client_address: str | None, form: Mapping[str, object]) -> str:
        """Count the attempt under the client's address (and the sender's, when it is one), then
        check and queue the message; answers SENT. TooManyRequestsError past the limit."""
        keys = [f"contact:{client_address or 'unknown'}"]
        sender = _text(form.get("email")).lower()
        if is_email(sender):
            keys.append(f"contact-from:{sender}")
        self.limiter.attempt(*keys)
        message = validate_contact(form)
        with self._session_factory() as session:
            queue_mail(session, contact_mail(message, self._support_email), self._clock())
            session.commit()
        return SENT
