"""Two-factor sign-in in a real browser: the owner enrols with the QR code's key, then signs in
with a code from the app and with a recovery code, each of which works once."""

from __future__ import annotations

import time

import httpx
import pyotp
from playwright.sync_api import Page, expect

from tests.e2e.admin import ADMIN_PASSWORD, ADMIN_USERNAME, open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer


def _log_out(page: Page) -> None:
    page.get_by_role("button", name="Logout").click()
    expect(page.get_by_role("button", name="Sign In")).to_be_visible()


def _password_then_code(page: Page, code: str) -> None:
    open_page(page, "/admin/login")
    page.get_by_label("Username").fill(ADMIN_USERNAME)
    page.get_by_label("Password", exact=True).fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    field = page.get_by_label("Authentication code")
    expect(field).to_be_visible()
    field.fill(code)
    page.get_by_role("button", name="Sign In").click()


def test_enrolment_then_sign_in_with_a_code_and_with_a_recovery_code(page: Page, store: StoreServer) -> None:
    sign_in(page)
    open_tab(page, "Account")
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(page.get_by_role("img", name="QR code for the authenticator app")).to_be_visible()
    totp = pyotp.TOTP(page.get_by_test_id("totp-secret").inner_text())
    page.get_by_label("Code from the app").fill(totp.now())
    page.get_by_role("button", name="Turn on").click()
    codes = page.get_by_test_id("recovery-code")
    expect(codes).to_have_count(10)
    recovery, spares = codes.nth(0).inner_text(), [codes.nth(i).inner_text() for i in (1, 2)]
    _log_out(page)
    try:
        _sign_in_with_codes(page, totp, recovery)
    finally:
        _turn_off(store, spares)


def _turn_off(store: StoreServer, spares: list[str]) -> None:
    """Back to the password alone: the other browser tests share this store and its owner."""
    signed_in = httpx.post(
        f"{store.url}/api/admin/login", json={"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD, "code": spares[0]}
    )
    assert signed_in.status_code == 200, signed_in.text
    off = httpx.post(
        f"{store.url}/api/admin/two-factor/disable", json={"code": spares[1]},
        headers={"x-admin-token": signed_in.json()["token"]},
    )
    assert off.status_code == 200, off.text


def _sign_in_with_codes(page: Page, totp: pyotp.TOTP, recovery: str) -> None:
    # The next step's code (the enrolment used this one; a code works once).
    _password_then_code(page, totp.at(time.time() + 30))
    expect(page.get_by_role("heading", name="Product Manager")).to_be_visible()
    _log_out(page)

    _password_then_code(page, recovery)
    expect(page.get_by_role("heading", name="Product Manager")).to_be_visible()
    _log_out(page)

    _password_then_code(page, recovery)
    expect(page.get_by_text("That code is not right. Try the newest code from your app.")).to_be_visible()
    expect(page.get_by_role("heading", name="Product Manager")).to_have_count(0)
