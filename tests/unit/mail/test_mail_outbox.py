"""The mail outbox: each message queued once, sent once, kept through a mail-server outage."""

from __future__ import annotations

import os
import smtplib
import stat
import threading
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import MailMessage
from storefront.services.mail.mailers import FileMailer, SmtpMailer, mailer_for
from storefront.services.mail.outbox import Mail, MailOutbox, message_id, queue_mail
from storefront.services.platform.signing import LinkSigner, store_secret_key
from storefront.wiring import session_factory
from tests.fakes.smtp_server import smtp_server
from tests.ordering import FakeClock
from tests.serving import free_port

FROM = "Storefront <shop@example.com>"


def _mail(key: str = "order-SF-000001-confirmed") -> Mail:
    return Mail(
        kind="order-confirmed", recipient="ann@example.com", subject="Your order SF-000001",
        text="Thanks for your order.", html="<p>Thanks for your order.</p>", key=key,
    )


def _queue(engine: Engine, *mails: Mail) -> list[bool]:
    with Session(engine) as session:
        queued = [queue_mail(session, mail) for mail in mails]
        session.commit()
    return queued


def _rows(engine: Engine) -> list[MailMessage]:
    with Session(engine) as session:
        return list(session.exec(select(MailMessage).order_by(MailMessage.id)))


def test_a_message_queued_twice_is_kept_once(engine: Engine) -> None:
    assert _queue(engine, _mail(), _mail()) == [True, False]
    assert [row.message_id for row in _rows(engine)] == [message_id("order-SF-000001-confirmed")]


def test_a_refusing_server_delays_the_message_and_it_arrives_once(engine: Engine) -> None:
    _queue(engine, _mail())
    clock = FakeClock()
    with smtp_server() as (url, inbox):
        inbox.refuse_next = 2
        outbox = MailOutbox(session_factory(engine), SmtpMailer(url), FROM, clock)
        assert outbox.run_due() == 0
        (row,) = _rows(engine)
        assert row.attempts == 1 and row.sent_at is None and "451" in (row.last_error or "")
        assert outbox.run_due() == 0  # not due again before its backoff
        assert inbox.refused == 1
        clock.advance(31)
        assert outbox.run_due() == 0
        clock.advance(120)
        assert outbox.run_due() == 1
        clock.advance(7200)
        assert outbox.run_due() == 0
        assert inbox.message_ids() == [message_id("order-SF-000001-confirmed")]
        (received,) = inbox.messages
    assert received["From"] == FROM and received["To"] == "ann@example.com"
    assert received.get_body(("plain",)).get_content().strip() == "Thanks for your order."
    assert "<p>Thanks for your order.</p>" in received.get_body(("html",)).get_content()
    (row,) = _rows(engine)
    assert row.sent_at is not None and row.attempts == 2 and row.last_error is None


def test_a_server_out_of_reach_keeps_the_message_for_later(engine: Engine) -> None:
    _queue(engine, _mail())
    outbox = MailOutbox(session_factory(engine), SmtpMailer(f"smtp://127.0.0.1:{free_port()}", timeout=5), FROM)
    assert outbox.run_due() == 0
    (row,) = _rows(engine)
    assert row.sent_at is None and row.attempts == 1 and row.next_attempt_at > row.created_at


def test_two_workers_send_every_message_exactly_once(engine: Engine) -> None:
    keys = [f"order-SF-{n:06d}-confirmed" for n in range(20)]
    _queue(engine, *(_mail(key) for key in keys))
    with smtp_server() as (url, inbox):
        outboxes = [MailOutbox(session_factory(engine), SmtpMailer(url), FROM) for _ in range(2)]

        def drain(outbox: MailOutbox) -> None:
            for _ in range(40):
                outbox.run_due(limit=3)

        threads = [threading.Thread(target=drain, args=(outbox,)) for outbox in outboxes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        received = inbox.message_ids()
    assert sorted(received) == sorted(message_id(key) for key in keys)
    assert all(row.sent_at is not None for row in _rows(engine))


def test_without_smtp_each_message_is_an_eml_file_named_by_its_message_id(engine: Engine, tmp_path: Path) -> None:
    mailer = mailer_for("", tmp_path)
    assert isinstance(mailer, FileMailer)
    _queue(engine, _mail())
    assert MailOutbox(session_factory(engine), mailer, FROM).run_due() == 1
    (written,) = (tmp_path / "mail").glob("*.eml")
    message = message_from_bytes(written.read_bytes(), policy=policy.default)
    assert message["Message-ID"] == message_id("order-SF-000001-confirmed")
    assert message["Subject"] == "Your order SF-000001"
    assert "Thanks for your order." in message.get_body(("plain",)).get_content()


def test_a_password_is_never_sent_to_a_server_without_starttls() -> None:
    with smtp_server() as (url, inbox):
        mailer = SmtpMailer(url.replace("smtp://", "smtp://owner:secret@"))
        email = EmailMessage()
        email["Subject"], email["From"], email["To"] = "x", FROM, "ann@example.com"
        email.set_content("x")
        with pytest.raises(smtplib.SMTPException, match="STARTTLS"):
            mailer.send(email)
        assert inbox.messages == []


def test_a_signed_link_opens_what_it_was_signed_for_only() -> None:
    clock = FakeClock()
    signer = LinkSigner(b"a long secret")
    forever = signer.sign("order", "SF-000001")
    week = signer.sign("newsletter-confirm", "ann@example.com", clock() + timedelta(days=7))
    assert signer.verify("order", "SF-000001", forever, clock())
    assert not signer.verify("order", "SF-000002", forever, clock())
    assert not signer.verify("newsletter-confirm", "SF-000001", forever, clock())
    assert not signer.verify("order", "SF-000001", forever[:-1] + ("A" if forever[-1] != "A" else "B"), clock())
    assert not LinkSigner(b"another secret").verify("order", "SF-000001", forever, clock())
    assert signer.verify("newsletter-confirm", "ann@example.com", week, clock() + timedelta(days=6))
    assert not signer.verify("newsletter-confirm", "ann@example.com", week, clock() + timedelta(days=8))
    forged_expiry = "9999999999." + week.partition(".")[2]
    assert not signer.verify("newsletter-confirm", "ann@example.com", forged_expiry, clock() + timedelta(days=8))
    for junk in ("", ".", "abc.def", "1." + "x" * 300):
        assert not signer.verify("order", "SF-000001", junk, clock())


@pytest.mark.parametrize("expiry", ["²", "١٢٣", "0²", "１"])
def test_a_key_with_unicode_digits_is_refused_not_raised(expiry: str) -> None:
    signer = LinkSigner(b"a long secret")
    digest = signer.sign("order", "SF-000001").partition(".")[2]
    assert not signer.verify("order", "SF-000001", f"{expiry}.{digest}", FakeClock()())


def test_the_kept_secret_key_is_made_once_and_readable_by_its_owner_only(tmp_path: Path) -> None:
    first = store_secret_key("", tmp_path)
    assert store_secret_key("", tmp_path) == first and len(first) >= 48
    assert stat.S_IMODE(os.stat(tmp_path / "secret-key").st_mode) == 0o600
    assert store_secret_key("configured", tmp_path) == b"configured"
