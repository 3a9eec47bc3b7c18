"""The newsletter's welcome code (NEWSLETTER_WELCOME_PERCENT), on SQLite and PostgreSQL: a confirmed
subscriber is emailed a single-use code once, ever, and the checkout takes it once."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import DiscountCode, MailMessage
from storefront.services.discounts import claims, quotes, rules
from storefront.services.newsletter.emails import WELCOME_KIND
from storefront.services.newsletter.subscriptions import RESEND_INTERVAL, UNSUBSCRIBE_ROUTE, Newsletter
from storefront.wiring import session_factory
from tests.ordering import FakeClock
from tests.unit.newsletter.test_newsletter import CLIENT, PUBLIC_URL, SIGNER, _confirm_link, _links, _messages


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _news(engine: Engine, clock: FakeClock, percent: int) -> Newsletter:
    return Newsletter(session_factory(engine), SIGNER, PUBLIC_URL, clock=clock, welcome_percent=percent)


def _welcomes(engine: Engine) -> list[MailMessage]:
    return [message for message in _messages(engine) if message.kind == WELCOME_KIND]


def _codes(engine: Engine) -> list[DiscountCode]:
    with Session(engine) as session:
        return list(session.exec(select(DiscountCode).order_by(col(DiscountCode.id))).all())


def test_a_confirmed_subscriber_is_emailed_a_single_use_code_once(engine: Engine, clock: FakeClock) -> None:
    news = _news(engine, clock, 15)
    news.sign_up(CLIENT, "ann@example.com")
    link = _confirm_link(engine)
    news.confirm(*link)
    news.confirm(*link)  # a second click on the link
    (welcome,) = _welcomes(engine)
    (code,) = _codes(engine)
    assert welcome.recipient == "ann@example.com" and welcome.subject == "Welcome! Here is 15% off your next order"
    assert code.code in welcome.text_body and code.code in (welcome.html_body or "")
    assert re.fullmatch(r"WELCOME-[0-9A-F]{8}", code.code)
    assert (code.kind, code.percent, code.usage_limit, code.per_customer_limit) == (rules.PERCENT, 15, 1, 1)
    assert code.ends_at == clock() + timedelta(days=30)

    # Unsubscribing and confirming again sends no second code.
    news.unsubscribe(*_links(_messages(engine)[0].text_body)[UNSUBSCRIBE_ROUTE])
    clock.advance(RESEND_INTERVAL.total_seconds())
    news.sign_up(CLIENT, "ann@example.com")
    news.confirm(*_confirm_link(engine))
    assert len(_welcomes(engine)) == 1 and len(_codes(engine)) == 1

    # The code takes one order, then no more.
    with Session(engine) as session:
        found = quotes.quote(session, code.code.lower(), [("p", 4000)], clock())
        assert found.applied is not None and found.applied.discount_cents == 600
        assert claims.claim(session, found.applied.discount_id, "ann@example.com", 1) == ""
        session.commit()
        assert quotes.quote(session, code.code, [("p", 4000)], clock()).refusal == rules.CODE_USED_UP


def test_without_the_setting_no_code_is_made(engine: Engine, clock: FakeClock) -> None:
    news = _news(engine, clock, 0)
    news.sign_up(CLIENT, "bob@example.com")
    news.confirm(*_confirm_link(engine))
    assert _welcomes(engine) == [] and _codes(engine) == []
