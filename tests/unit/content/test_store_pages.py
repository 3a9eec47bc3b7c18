"""The policy and contact pages' texts: defaults written from the settings, staff's Markdown
rendered and sanitised; and the contact form, queued to the support address and throttled."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import MailMessage
from storefront.services.content import store_pages
from storefront.services.content.contact import SENT, TOO_MANY_MESSAGES, ContactForm
from storefront.services.content.store_pages import ShopFacts, default_markdown, page_html, render_markdown, save_page
from storefront.services.mail.outbox import email_message
from storefront.services.platform.errors import NotFoundError, TooManyRequestsError, ValidationError
from storefront.wiring import session_factory
from tests.ordering import FakeClock

FACTS = ShopFacts("SWDNN", "help@shop.example", ("12 Market St", "Albany, NY 12207"), ("US", "CA"), "https://shop.example")
SUPPORT = "help@shop.example"
MESSAGE = {"name": "Ada Lovelace", "email": "ada@example.com", "message": "Where is my order SF-000001?"}


def test_the_default_policies_are_written_from_the_settings() -> None:
    shipping = render_markdown(default_markdown("shipping", FACTS))
    assert "We ship to the United States and Canada." in shipping
    assert "Orders over $100.00 ship free; every other order ships for a flat $9.99." in shipping
    refunds = default_markdown("refunds", FACTS)
    assert "misprinted, damaged or faulty" in refunds and "changed your mind" in refunds
    for slug in ("privacy", "terms", "refunds", "shipping", "contact"):
        text = default_markdown(slug, FACTS)
        assert "help@shop.example" in text and "12 Market St, Albany, NY 12207" in text, slug
    assert "SWDNN" in default_markdown("privacy", FACTS)


def test_staff_text_is_rendered_sanitised_and_blank_text_puts_the_default_back(engine: Engine) -> None:
    with Session(engine) as session:
        save_page(
            session,
            "terms",
            "# Our terms\n\n<script>alert(1)</script> [x](javascript:alert(1)) [ship](/policies/shipping)",
        )
        session.commit()
        html = page_html(session, "terms", FACTS)
        assert "<h2>Our terms</h2>" in html
        assert "<script" not in html and "href=\"javascript" not in html
        assert 'href="https://shop.example/policies/shipping"' in html
        save_page(session, "terms", "   ")
        session.commit()
        assert page_html(session, "terms", FACTS) == render_markdown(default_markdown("terms", FACTS), FACTS.public_url)


def test_an_unknown_page_or_an_overlong_text_is_refused(engine: Engine) -> None:
    with Session(engine) as session:
        with pytest.raises(NotFoundError):
            save_page(session, "secrets", "x")
        with pytest.raises(ValidationError, match="at most 50,000 characters"):
            save_page(session, "terms", "x" * (store_pages.MAX_MARKDOWN_CHARS + 1))


def _contact_mails(engine: Engine) -> list[MailMessage]:
    with Session(engine) as session:
        return list(session.exec(select(MailMessage).where(col(MailMessage.kind) == "contact-message")).all())


def test_a_contact_message_is_queued_to_the_support_address_only(engine: Engine) -> None:
    form = ContactForm(session_factory(engine), SUPPORT, FakeClock())
    assert form.send("203.0.113.7", {**MESSAGE, "to": "victim@example.org"}) == SENT
    [mail] = _contact_mails(engine)
    assert mail.recipient == SUPPORT
    assert email_message(mail, "Shop <shop@shop.example>", SUPPORT)["Reply-To"] == "ada@example.com"
    assert "ada@example.com" in mail.text_body and "Where is my order SF-000001?" in mail.text_body
    assert "victim@example.org" not in mail.text_body


def test_a_bad_contact_message_says_why_per_field(engine: Engine) -> None:
    form = ContactForm(session_factory(engine), SUPPORT, FakeClock())
    with pytest.raises(ValidationError) as refused:
        form.send("203.0.113.7", {"name": "", "email": "nope", "message": "hi"})
    assert refused.value.field_errors == {
        "name": "Please enter your name",
        "email": "Please enter a valid email address",
        "message": "Please write a message of at least 10 characters",
    }
    assert _contact_mails(engine) == []


def test_a_sixth_message_a_minute_from_one_address_is_refused(engine: Engine) -> None:
    clock = FakeClock()
    form = ContactForm(session_factory(engine), SUPPORT, clock)
    for number in range(5):
        form.send("203.0.113.7", {**MESSAGE, "email": f"ada{number}@example.com"})
    with pytest.raises(TooManyRequestsError, match=TOO_MANY_MESSAGES):
        form.send("203.0.113.7", {**MESSAGE, "email": "ada9@example.com"})
    assert len(_contact_mails(engine)) == 5
    form.send("198.51.100.2", MESSAGE)  # another address has its own count
    clock.advance(60)
    form.send("203.0.113.7", MESSAGE)
    assert len(_contact_mails(engine)) == 7
