"""The mail outbox: messages queued with the change that causes them, sent once each, retried with backoff.

A message is a row (MailMessage) written in the caller's transaction, so an order marked paid
always has its confirmation queued and a rolled-back change queues nothing. The worker claims
one due message at a time by moving its due time (a compare-and-set, as the order outbox does:
several workers on SQLite or PostgreSQL never send one message twice at once), sends it, and
marks it sent; a refused or unreachable server moves it to a later attempt. The Message-ID is
derived from what the message is about, so a message queued twice is kept once, and one sent
again after its answer was lost carries the same Message-ID (mail programs show it once).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime

from sqlalchemy import update
from sqlmodel import Session, col, select

from storefront.models import MailMessage, utcnow
from storefront.services.mail.mailers import FileMailer, Mailer
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.rate_limit import dialect_insert

logger = logging.getLogger(__name__)

#: How long a claimed message is the claimer's; a worker that dies frees it after this.
LEASE = timedelta(minutes=2)
RETRY_BASE_SECONDS = 30
RETRY_MAX_SECONDS = 3600
MAX_ERROR_CHARS = 2000
#: The domain part of every Message-ID the store makes.
MESSAGE_ID_DOMAIN = "storefront.mail"
#: How long the .eml file of a message written without SMTP is kept (MAIL_FILE_RETENTION_DAYS).
KEEP_MAIL_FILES = timedelta(days=30)
PRUNE_EVERY_SECONDS = 3600.0

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Mail:
    """A rendered message to queue."""

    kind: str
    recipient: str
    subject: str
    text: str
    html: str
    #: What the message is about, e.g. 'order-SF-000001-confirmed': the Message-ID is made from it.
    key: str
    order_id: int | None = None
    #: A newsletter message's one-click unsubscribe address (the List-Unsubscribe header).
    list_unsubscribe: str | None = None
    #: Where a reply goes instead of the support address (a contact message: its writer).
    reply_to: str | None = None


def message_id(key: str) -> str:
    """The Message-ID of the message about `key` (the same every time)."""
    return f"<{key}@{MESSAGE_ID_DOMAIN}>"


def queue_mail(session: Session, mail: Mail, now: datetime | None = None) -> bool:
    """Queue `mail` in the session's transaction (the caller commits); False when a message with
    its key was queued before (nothing is added)."""
    now = now or utcnow()
    statement = (
        dialect_insert(session)(MailMessage)
        .values(
            message_id=message_id(mail.key), kind=mail.kind, order_id=mail.order_id, recipient=mail.recipient,
            subject=mail.subject, text_body=mail.text, html_body=mail.html, attempts=0, next_attempt_at=now,
            created_at=now, list_unsubscribe=mail.list_unsubscribe, reply_to=mail.reply_to,
        )
        .on_conflict_do_nothing(index_elements=[MailMessage.message_id])
        .returning(MailMessage.id)
    )
    return session.execute(statement).scalar_one_or_none() is not None


def retry_delay(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min ... up to an hour between attempts."""
    return timedelta(seconds=min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0)))


def email_message(row: MailMessage, mail_from: str, reply_to: str = "") -> EmailMessage:
    """The message as sent: plain text with an HTML alternative; replies go to `reply_to` (the
    support address, or the message's own), and a newsletter message can be left with one click (RFC 8058)."""
    message = EmailMessage()
    message["From"] = mail_from
    if row.reply_to or reply_to:
        message["Reply-To"] = row.reply_to or reply_to
    message["To"] = row.recipient
    message["Subject"] = row.subject
    message["Message-ID"] = row.message_id
    message["Date"] = format_datetime(row.created_at)
    if row.list_unsubscribe:
        message["List-Unsubscribe"] = f"<{row.list_unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(row.text_body)
    message.add_alternative(row.html_body, subtype="html")
    return message


class MailOutbox:
    """Sends the due messages, one claim at a time."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        mailer: Mailer,
        mail_from: str,
        clock: Clock = utcnow,
        keep_files: timedelta = KEEP_MAIL_FILES,
        reply_to: str = "",
    ) -> None:
        self._reply_to = reply_to
        self._session_factory = session_factory
        self._mailer = mailer
        self._mail_from = mail_from
        self._clock = clock
        self._keep_files = keep_files

    def prune_files(self) -> int:
        """Remove the .eml files of messages written longer ago than the retention (MAIL_FILE_RETENTION_DAYS);
        nothing with an SMTP server, which keeps no copy here."""
        if not isinstance(self._mailer, FileMailer):
            return 0
        return self._mailer.prune(self._clock() - self._keep_files)

    def run_due(self, limit: int = 10) -> int:
        """Send up to `limit` due messages; returns how many were sent. Stops at the first failure
        (the server is likely down for the others too)."""
        sent = 0
        for _ in range(max(limit, 0)):
            outcome = self._send_next()
            if outcome is None:
                break
            sent += outcome
            if outcome == 0:
                break
        return sent

    def _send_next(self) -> int | None:
        """1 sent, 0 failed or claimed by another worker, None when nothing is due."""
        now = self._clock()
        with self._session_factory() as session:
            row = session.exec(
                select(MailMessage)
                .where(col(MailMessage.sent_at).is_(None), col(MailMessage.next_attempt_at) <= now)
                .order_by(col(MailMessage.next_attempt_at), col(MailMessage.id))
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if row is None:
                return None
            claimed = session.exec(
                update(MailMessage)
                .where(
                    col(MailMessage.id) == row.id,
                    col(MailMessage.next_attempt_at) == row.next_attempt_at,
                    col(MailMessage.sent_at).is_(None),
                )
                .values(next_attempt_at=now + LEASE)
            ).rowcount
            session.commit()
            if claimed != 1:
                return 0
            session.refresh(row)
            try:
                self._mailer.send(email_message(row, self._mail_from, self._reply_to))
            except Exception as exc:  # noqa: BLE001 - any failure is retried later, never lost
                row.attempts += 1
                row.next_attempt_at = now + retry_delay(row.attempts)
                row.last_error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
                session.add(row)
                session.commit()
                logger.warning(
                    "Email %s (%s) not sent (attempt %d), retry at %s: %s",
                    row.message_id, row.kind, row.attempts, row.next_attempt_at.isoformat(), row.last_error,
                )
                return 0
            row.sent_at = self._clock()
            row.last_error = None
            session.add(row)
            session.commit()
            return 1


def start_mail_worker(
    outbox: MailOutbox, interval_seconds: float = 5.0, batch_size: int = 10, prune_every: float = PRUNE_EVERY_SECONDS,
    monotonic: Callable[[], float] = time.monotonic,
) -> Worker:
    """Run outbox.run_due in a daemon thread every interval_seconds until stopped, and prune the
    old .eml files as it starts and every `prune_every` seconds."""
    next_prune = monotonic()

    def step() -> float:
        nonlocal next_prune
        if monotonic() >= next_prune:
            next_prune = monotonic() + prune_every
            outbox.prune_files()
        return 0.0 if outbox.run_due(batch_size) >= batch_size else interval_seconds

    return start_worker("mail-outbox", step, error_wait=interval_seconds)
