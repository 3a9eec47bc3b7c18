"""The newsletter in a real browser: the home page's sign-up, then the confirm link from the email."""

import re
from datetime import UTC, datetime
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect
from sqlmodel import Session, create_engine, select

from storefront.models import MailMessage, NewsletterSubscriber
from storefront.services.newsletter.subscriptions import CONFIRM_ROUTE, CONFIRMED, THANKS
from tests.e2e.admin import open_tab
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

EMAIL = "Ada.Lovelace@Example.com"
KEPT = "ada.lovelace@example.com"


def test_subscribing_on_the_home_page_then_opening_the_confirm_link_confirms(page: Page, store: StoreServer) -> None:
    open_page(page, "/")
    notice = page.get_by_test_id("newsletter-notice")
    expect(notice).to_have_text("")
    page.get_by_role("textbox", name="Email address").fill(EMAIL)
    page.get_by_role("button", name="Subscribe").click()
    expect(notice).to_have_text(THANKS)
    expect(notice).to_have_attribute("role", "status")

    engine = create_engine(store.db_url)
    try:
        # The answer comes after the sign-up's transaction committed: its message is queued.
        with Session(engine) as session:
            message = session.exec(select(MailMessage).where(MailMessage.recipient == KEPT)).one()
        link = re.search(rf"{re.escape(store.url)}{CONFIRM_ROUTE}\?\S+", message.text_body)
        assert link is not None, message.text_body
        parts = urlsplit(link.group(0))
        open_page(page, f"{parts.path}?{parts.query}")
        expect(page.get_by_test_id("newsletter-outcome")).to_have_text(CONFIRMED)
        with Session(engine) as session:
            subscriber = session.exec(select(NewsletterSubscriber).where(NewsletterSubscriber.email == KEPT)).one()
        assert subscriber.confirmed_at is not None
    finally:
        engine.dispose()


def test_a_forged_confirm_link_is_refused_on_the_page(page: Page) -> None:
    open_page(page, f"{CONFIRM_ROUTE}?email=eve%40example.com&sig=0.forged")
    outcome = page.get_by_test_id("newsletter-outcome")
    expect(outcome).to_contain_text("not valid")
    expect(outcome).to_have_attribute("role", "alert")


def test_the_orders_tab_counts_confirmed_subscribers_and_exports_them(admin: Page, store: StoreServer) -> None:
    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            session.add(NewsletterSubscriber(email="grace@example.com", confirmed_at=datetime.now(UTC)))
            session.add(NewsletterSubscriber(email="waiting@example.com"))
            session.commit()
        with Session(engine) as session:
            confirmed = [s.email for s in session.exec(select(NewsletterSubscriber)) if s.confirmed_at is not None]
    finally:
        engine.dispose()
    open_tab(admin, "Orders")
    expect(admin.get_by_test_id("newsletter-subscribers")).to_have_text(str(len(confirmed)))
    with admin.expect_download() as downloaded:
        admin.get_by_role("button", name="Export Subscribers").click()
    download = downloaded.value
    assert download.suggested_filename == "newsletter-subscribers.csv"
    with open(download.path(), encoding="utf-8") as file:
        lines = file.read().splitlines()
    assert lines[0] == "Email,Confirmed At (UTC)"
    assert sorted(line.split(",")[0] for line in lines[1:]) == sorted(confirmed)
    assert "waiting@example.com" not in lines
