"""The way into the back office in a real browser: gesture, login, guard and logout."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import httpx
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine
from sqlmodel import Session, col, delete

from storefront.models import RateCounter
from tests.e2e.admin import ADMIN_PASSWORD, ADMIN_USERNAME, sign_in
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

TOKEN_KEY = "admin-token"


def _stored_token(page: Page) -> str:
    raw = page.evaluate(f"() => localStorage.getItem('{TOKEN_KEY}')") or ""
    return raw.strip('"')


def test_the_header_gesture_leads_to_the_login_and_into_the_dashboard(page: Page) -> None:
    open_page(page, "/")
    for _ in range(5):
        page.get_by_test_id("admin-gesture").click()
    expect(page).to_have_url(re.compile(r"/admin/login$"))
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect(page.get_by_test_id("default-hint")).to_contain_text(f"{ADMIN_USERNAME} / {ADMIN_PASSWORD}")
    page.get_by_label("Username").fill(ADMIN_USERNAME)
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_text("Login successful", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/admin/dashboard$"))
    expect(page.get_by_role("heading", name="Product Manager")).to_be_visible()
    for tab in ("Product Editor", "Categories", "Orders", "Events", "Sync & Pricing"):
        expect(page.get_by_role("tab", name=tab)).to_be_visible()
    assert len(_stored_token(page)) >= 43


def test_a_wrong_password_shows_an_inline_alert(page: Page) -> None:
    open_page(page, "/admin")
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_text("Username is required", exact=True)).to_be_visible()
    expect(page.get_by_text("Password is required", exact=True)).to_be_visible()
    page.get_by_label("Username").fill(ADMIN_USERNAME)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_role("alert")).to_have_text("Invalid username or password")
    expect(page).to_have_url(re.compile(r"/admin/?$"))


def test_the_dashboard_without_a_session_goes_back_to_login(page: Page) -> None:
    # Records whether any of the dashboard's frame was ever drawn on the way to the login page.
    page.add_init_script("""
        new MutationObserver(() => {
            if (document.body && /Product Manager|Product Editor|Sync & Pricing/.test(document.body.innerText)) {
                window.__dashboardShown = true;
            }
        }).observe(document, {childList: true, subtree: true, characterData: true});
    """)
    page.goto("/admin/dashboard")
    expect(page).to_have_url(re.compile(r"/admin/login$"))
    expect(page.get_by_role("button", name="Sign In")).to_be_visible()
    assert page.evaluate("() => window.__dashboardShown === true") is False
    page.evaluate(f"() => localStorage.setItem('{TOKEN_KEY}', 'forged-token')")
    page.goto("/admin/dashboard")
    expect(page).to_have_url(re.compile(r"/admin/login$"))


def test_logout_returns_to_login_and_the_old_token_is_dead(page: Page) -> None:
    sign_in(page)
    token = _stored_token(page)
    assert page.request.get("/api/admin/session", headers={"x-admin-token": token}).status == 200
    page.get_by_role("button", name="Logout").click()
    expect(page.get_by_text("Logged out", exact=True)).to_be_visible()
    expect(page.get_by_text("You have been successfully logged out", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/admin/login$"))
    assert _stored_token(page) == ""
    assert page.request.get("/api/admin/session", headers={"x-admin-token": token}).status == 401
    page.goto("/admin/dashboard")
    expect(page).to_have_url(re.compile(r"/admin/login$"))


def test_wrong_passwords_from_elsewhere_do_not_lock_the_admin_out(page: Page, store: StoreServer) -> None:
    def guess(n: int) -> int:
        # The store trusts its own host's X-Forwarded-For: each guess comes from another address.
        return httpx.post(
            f"{store.url}/api/admin/login",
            json={"username": ADMIN_USERNAME, "password": f"guess {n}"},
            headers={"X-Forwarded-For": f"10.0.0.{n}"},
            timeout=60,
        ).status_code

    try:
        with ThreadPoolExecutor(max_workers=20) as pool:
            assert list(pool.map(guess, range(20))) == [401] * 20
        sign_in(page)  # slowed down by a few seconds, not refused
        assert len(_stored_token(page)) >= 43
    finally:
        # The next tests sign in within the same minute: they need not wait for these failures.
        engine = create_engine(store.db_url)
        with Session(engine) as session:
            session.execute(delete(RateCounter).where(col(RateCounter.key).startswith("login-")))
            session.commit()
        engine.dispose()
