"""A forgotten password in a real browser: from the login screen to /admin/forgot-password, the
emailed reset link, a new password on /admin/set-password, and signing in with it."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect
from sqlmodel import Session, col, create_engine, select

from storefront.models import MailMessage
from storefront.services.staff.accounts import NAME_REQUIRED, RESET_SENT
from tests.e2e.admin import set_password_from_link, sign_in, staff_member
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

UMA_PASSWORD = "uma's first long passphrase"
NEW_PASSWORD = "uma's brand new passphrase"


def _reset_link(store: StoreServer, email: str) -> str:
    """The path and query of the reset link emailed to `email` (the mail is queued with the request)."""
    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            mail = session.exec(
                select(MailMessage).where(col(MailMessage.kind) == "staff-reset", col(MailMessage.recipient) == email)
            ).one()
    finally:
        engine.dispose()
    link = re.search(rf"{re.escape(store.url)}/admin/set-password\?\S+", mail.text_body)
    assert link is not None, mail.text_body
    parts = urlsplit(link.group(0))
    return f"{parts.path}?{parts.query}"


def test_a_staff_member_resets_a_forgotten_password_and_signs_in_with_the_new_one(
    page: Page, store: StoreServer
) -> None:
    staff_member(store.url, "uma", UMA_PASSWORD)
    open_page(page, "/admin/login")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.get_by_role("heading", name="Reset your password")).to_be_visible()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect(page.locator('meta[name="robots"]')).to_have_attribute("content", "noindex")

    page.get_by_role("button", name="Send reset link").click()
    expect(page.get_by_test_id("error-username")).to_have_text(NAME_REQUIRED)
    page.get_by_label("Username or email").fill("uma")
    page.get_by_role("button", name="Send reset link").click()
    expect(page.get_by_test_id("reset-sent")).to_have_text(RESET_SENT)
    expect(page.get_by_role("link", name="Back to sign in")).to_be_visible()

    set_password_from_link(page, _reset_link(store, "uma@example.com"), NEW_PASSWORD)

    sign_in(page, "uma", NEW_PASSWORD)
    expect(page.get_by_role("tab", name="Orders")).to_be_visible()
