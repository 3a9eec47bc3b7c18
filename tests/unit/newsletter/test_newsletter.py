"""The newsletter (issue 24), on SQLite and PostgreSQL: double opt-in, equal answers, signed links,
the per-address throttle, and the back office's count and CSV."""

from __future__ import annotations

import contextlib
import csv
import io
import re
from datetime import timedelta
from email.message import EmailMessage
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import MailMessage, NewsletterSubscriber
from storefront.services.mail.mailers import SmtpMailer
from storefront.services.mail.outbox import MailOutbox
from storefront.services.newsletter.emails import CONFIRM_KIND, confirmation_mail
from storefront.services.newsletter.subscriptions import (
    CONFIRM_PURPOSE,
    CONFIRM_REFUSED,
    CONFIRM_ROUTE,
    CONFIRMED,
    CSV_HEADER,
    INVALID_EMAIL,
    RESEND_INTERVAL,
    SIGNUPS_PER_WINDOW,
    THANKS,
    TOO_MANY_SIGNUPS,
    UNSUBSCRIBE_PURPOSE,
    UNSUBSCRIBE_REFUSED,
    UNSUBSCRIBE_ROUTE,
    UNSUBSCRIBED,
    Newsletter,
    normalise_email,
)
from storefront.services.orders.order_lookup import lookup_key, lookup_limiter
from storefront.services.platform.errors import TooManyRequestsError, ValidationError
from storefront.services.platform.signing import LinkSigner
from storefront.wiring import session_factory
from tests.fakes.smtp_server import smtp_server
from tests.ordering import FakeClock

PUBLIC_URL = "https://shop.example"
CLIENT = "203.0.113.7"
SIGNER = LinkSigner(b"newsletter-test-key")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def news(engine: Engine, clock: FakeClock) -> Newsletter:
    return Newsletter(session_factory(engine), SIGNER, PUBLIC_URL, clock=clock)


def _subscribers(engine: Engine) -> list[NewsletterSubscriber]:
    with Session(engine) as session:
        return list(session.exec(select(NewsletterSubscriber).order_by(NewsletterSubscriber.id)))


def _messages(engine: Engine) -> list[MailMessage]:
    with Session(engine) as session:
        return list(session.exec(select(MailMessage).order_by(MailMessage.id)))


def _links(text: str) -> dict[str, tuple[str, str]]:
    """route -> (email, sig) of each store link in a message body."""
    found = {}
    for url in re.findall(r"https://shop\.example/\S+", text):
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        found[parts.path] = (query["email"][0], query["sig"][0])
    return found


def _confirm_link(engine: Engine) -> tuple[str, str]:
    return _links(_messages(engine)[-1].text_body)[CONFIRM_ROUTE]


# --------------------------------------------------------------------------- signing up


def test_a_new_an_unconfirmed_and_a_confirmed_address_get_the_same_answer_and_one_row(
    engine: Engine, news: Newsletter
) -> None:
    answers = [news.sign_up(CLIENT, "ann@example.com"), news.sign_up(CLIENT, "ann@example.com")]
    news.confirm(*_confirm_link(engine))
    answers.append(news.sign_up(CLIENT, "ann@example.com"))
    assert answers == [THANKS, THANKS, THANKS]
    (subscriber,) = _subscribers(engine)
    assert subscriber.email == "ann@example.com" and subscriber.confirmed_at is not None
    # A repeat within the resend interval and a confirmed address queue nothing more.
    assert [message.kind for message in _messages(engine)] == [CONFIRM_KIND]


def test_an_unconfirmed_address_gets_its_confirmation_again_at_most_once_an_interval(
    engine: Engine, news: Newsletter, clock: FakeClock
) -> None:
    news.sign_up(CLIENT, "ann@example.com")
    clock.advance(RESEND_INTERVAL.total_seconds() - 1)
    news.sign_up("198.51.100.1", "ann@example.com")
    assert len(_messages(engine)) == 1
    clock.advance(1)
    news.sign_up("198.51.100.2", "ann@example.com")
    first, second = _messages(engine)
    assert first.message_id != second.message_id and second.recipient == "ann@example.com"


def test_an_invalid_address_is_refused_with_a_message_and_kept_nowhere(engine: Engine, news: Newsletter) -> None:
    for n, value in enumerate(("not-an-email", "ann@", "", "   ", None, "a@b@example.com", '"<b>"@example.com')):
        with pytest.raises(ValidationError) as refused:
            news.sign_up(f"198.51.100.{n}", value)
        assert refused.value.message == INVALID_EMAIL
    assert _subscribers(engine) == [] and _messages(engine) == []


def test_addresses_are_kept_lower_cased_once(engine: Engine, news: Newsletter) -> None:
    assert normalise_email("  Ann.Lee@Example.COM ") == "ann.lee@example.com"
    news.sign_up(CLIENT, "Ann.Lee@Example.COM")
    news.sign_up(CLIENT, "ann.lee@example.com")
    news.sign_up(CLIENT, "ANN.LEE@EXAMPLE.COM")
    assert [subscriber.email for subscriber in _subscribers(engine)] == ["ann.lee@example.com"]
    assert [message.recipient for message in _messages(engine)] == ["ann.lee@example.com"]


def test_sign_ups_are_throttled_per_client_address(engine: Engine, news: Newsletter) -> None:
    for n in range(SIGNUPS_PER_WINDOW):
        assert news.sign_up(CLIENT, f"reader{n}@example.com") == THANKS
    with pytest.raises(TooManyRequestsError) as refused:
        news.sign_up(CLIENT, "one-more@example.com")
    assert refused.value.message == TOO_MANY_SIGNUPS
    assert "one-more@example.com" not in {subscriber.email for subscriber in _subscribers(engine)}
    assert news.sign_up("198.51.100.9", "one-more@example.com") == THANKS


def test_one_minute_limits_leave_the_sign_up_window_whole(engine: Engine, news: Newsletter, clock: FakeClock) -> None:
    lookups = lookup_limiter(session_factory(engine), per_minute=20, clock=clock)
    for n in range(SIGNUPS_PER_WINDOW + 1):
        with contextlib.suppress(TooManyRequestsError):
            news.sign_up(CLIENT, f"target+{n}@victim.example")
        clock.advance(61)  # six sign-ups within ten minutes
        lookups.check(lookup_key("198.51.100.50"))  # another limit counts in a new minute's window
    assert len(_messages(engine)) == SIGNUPS_PER_WINDOW


def test_refused_addresses_count_against_the_throttle_too(news: Newsletter) -> None:
    for _ in range(SIGNUPS_PER_WINDOW):
        with pytest.raises(ValidationError):
            news.sign_up(CLIENT, "nope")
    with pytest.raises(TooManyRequestsError):
        news.sign_up(CLIENT, "ann@example.com")


# --------------------------------------------------------------------------- the email and its links


def test_the_confirmation_email_sent_over_smtp_carries_a_confirm_link_that_verifies_and_an_unsubscribe_link(
    engine: Engine, news: Newsletter, clock: FakeClock
) -> None:
    news.sign_up(CLIENT, "Ann@Example.com")
    with smtp_server() as (url, inbox):
        outbox = MailOutbox(session_factory(engine), SmtpMailer(url), "Shop <shop@example.com>", clock=clock)
        assert outbox.run_due() == 1
    (message,) = inbox.messages
    assert isinstance(message, EmailMessage)
    assert message["To"] == "ann@example.com"
    text_part = message.get_body(preferencelist=("plain",))
    html_part = message.get_body(preferencelist=("html",))
    assert text_part is not None and html_part is not None
    links = _links(text_part.get_content())
    email, signature = links[CONFIRM_ROUTE]
    assert email == "ann@example.com"
    assert SIGNER.verify(CONFIRM_PURPOSE, email, signature, clock())
    assert not SIGNER.verify(CONFIRM_PURPOSE, email, signature, clock() + timedelta(days=7, seconds=1))
    assert SIGNER.verify(UNSUBSCRIBE_PURPOSE, *links[UNSUBSCRIBE_ROUTE], clock())
    html = html_part.get_content()
    assert 'href="https://shop.example/newsletter/confirm?email=ann%40example.com&amp;sig=' in html
    assert 'href="https://shop.example/newsletter/unsubscribe?email=ann%40example.com&amp;sig=' in html
    assert news.confirm(email, signature) == CONFIRMED
    assert news.count() == 1


def test_the_html_email_escapes_what_it_shows() -> None:
    mail = confirmation_mail("<b>x</b>@example.com", "https://shop.example/c?a=1&b=2", "https://shop.example/u", "k")
    assert "<b>x</b>" not in mail.html and "&lt;b&gt;x&lt;/b&gt;@example.com" in mail.html
    assert 'href="https://shop.example/c?a=1&amp;b=2"' in mail.html
    assert "<b>x</b>@example.com" in mail.text and "https://shop.example/c?a=1&b=2" in mail.text


def test_a_forged_or_expired_confirm_link_is_refused(engine: Engine, news: Newsletter, clock: FakeClock) -> None:
    news.sign_up(CLIENT, "ann@example.com")
    email, signature = _confirm_link(engine)
    forged = [
        ("bob@example.com", signature),  # another address with Ann's signature
        (email, signature[:-2] + ("AA" if not signature.endswith("AA") else "BB")),
        (email, LinkSigner(b"another-key").sign(CONFIRM_PURPOSE, email)),
        (email, SIGNER.sign(UNSUBSCRIBE_PURPOSE, email)),  # a signature for another purpose
        (email, ""),
    ]
    for value, sig in forged:
        with pytest.raises(ValidationError) as refused:
            news.confirm(value, sig)
        assert refused.value.message == CONFIRM_REFUSED
    clock.advance(timedelta(days=7, seconds=1).total_seconds())
    with pytest.raises(ValidationError) as expired:
        news.confirm(email, signature)
    assert expired.value.message == CONFIRM_REFUSED
    assert news.count() == 0 and [s.email for s in _subscribers(engine)] == ["ann@example.com"]


def test_confirm_then_unsubscribe(engine: Engine, news: Newsletter) -> None:
    news.sign_up(CLIENT, "ann@example.com")
    assert news.confirm(*_confirm_link(engine)) == CONFIRMED
    assert news.count() == 1
    unsubscribe = _links(_messages(engine)[0].text_body)[UNSUBSCRIBE_ROUTE]
    with pytest.raises(ValidationError) as refused:
        news.unsubscribe("ann@example.com", SIGNER.sign(UNSUBSCRIBE_PURPOSE, "bob@example.com"))
    assert refused.value.message == UNSUBSCRIBE_REFUSED
    assert news.count() == 1
    assert news.unsubscribe(*unsubscribe) == UNSUBSCRIBED
    assert news.unsubscribe(*unsubscribe) == UNSUBSCRIBED  # a second click says the same
    assert news.count() == 0
    (subscriber,) = _subscribers(engine)
    assert subscriber.unsubscribed_at is not None


def test_an_unsubscribed_address_that_signs_up_again_confirms_again(
    engine: Engine, news: Newsletter, clock: FakeClock
) -> None:
    news.sign_up(CLIENT, "ann@example.com")
    news.confirm(*_confirm_link(engine))
    news.unsubscribe(*_links(_messages(engine)[0].text_body)[UNSUBSCRIBE_ROUTE])
    clock.advance(RESEND_INTERVAL.total_seconds())
    assert news.sign_up(CLIENT, "ann@example.com") == THANKS
    assert news.count() == 0 and len(_messages(engine)) == 2
    news.confirm(*_confirm_link(engine))
    assert news.count() == 1


# --------------------------------------------------------------------------- the back office


def _add(engine: Engine, email: str, clock: FakeClock, confirmed: bool, unsubscribed: bool = False) -> None:
    with Session(engine) as session:
        session.add(
            NewsletterSubscriber(
                email=email,
                created_at=clock(),
                confirmed_at=clock() if confirmed else None,
                unsubscribed_at=clock() if unsubscribed else None,
            )
        )
        session.commit()


def test_the_count_and_the_csv_hold_confirmed_subscribers_only(
    engine: Engine, news: Newsletter, clock: FakeClock
) -> None:
    _add(engine, "waiting@example.com", clock, confirmed=False)
    _add(engine, "ann@example.com", clock, confirmed=True)
    clock.advance(90)
    _add(engine, "gone@example.com", clock, confirmed=True, unsubscribed=True)
    _add(engine, "bob@example.com", clock, confirmed=True)
    assert news.count() == 2
    rows = list(csv.reader(io.StringIO(news.export_csv())))
    assert rows == [
        list(CSV_HEADER),
        ["ann@example.com", "2030-01-01 12:00:00"],
        ["bob@example.com", "2030-01-01 12:01:30"],
    ]


def test_the_csv_guards_cells_that_look_like_formulas(engine: Engine, news: Newsletter, clock: FakeClock) -> None:
    # Validation never lets such an address in; the export guards it anyway, with the orders' rule.
    _add(engine, "=cmd()@example.com", clock, confirmed=True)
    _add(engine, "+1@example.com", clock, confirmed=True)
    rows = list(csv.reader(io.StringIO(news.export_csv())))
    assert [row[0] for row in rows[1:]] == ["'=cmd()@example.com", "'+1@example.com"]
