"""Staff accounts in a real browser: the owner invites someone, who sets a password through the
emailed link, signs in and sees only what the staff role may do (no Refund, no Staff tab)."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e import test_shopping as shopping
from tests.e2e.admin import open_tab, set_password_from_link, sign_in
from tests.e2e.conftest import StoreServer

SAM_PASSWORD = "sam's own long passphrase"


def _order_dialog(page: Page, number: str):  # type: ignore[no-untyped-def]
    open_tab(page, "Orders")
    row = page.get_by_test_id("order-row").filter(has_text=number)
    row.get_by_role("button", name="View").click()
    dialog = page.get_by_role("dialog", name=f"Order {number}")
    expect(dialog.get_by_role("button", name="Revoke email links")).to_be_visible()
    return dialog


def _log_out(page: Page) -> None:
    page.get_by_role("button", name="Logout").click()
    expect(page.get_by_role("button", name="Sign In")).to_be_visible()


def test_an_invited_staff_member_sets_a_password_signs_in_and_cannot_refund(page: Page, store: StoreServer) -> None:
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.TEST_CARD)
    _token, paid = shopping.place_order(page)
    assert paid["status"] == 200, paid
    number = paid["order"]["id"]

    sign_in(page)
    dialog = _order_dialog(page, number)
    expect(dialog.get_by_role("button", name="Refund")).to_be_visible()
    page.keyboard.press("Escape")

    open_tab(page, "Staff")
    page.get_by_label("Email").fill("sam@example.com")
    page.get_by_label("Username").fill("sam")
    page.get_by_role("button", name="Send invitation").click()
    link = page.get_by_test_id("invite-link")
    expect(link).to_contain_text("/admin/set-password?token=")
    expect(page.get_by_test_id("staff-row").filter(has_text="sam")).to_contain_text("invited")
    address = urlsplit(link.inner_text())

    _log_out(page)
    set_password_from_link(page, f"{address.path}?{address.query}", SAM_PASSWORD)

    sign_in(page, "sam", SAM_PASSWORD)
    expect(page.get_by_role("tab", name="Orders")).to_be_visible()
    expect(page.get_by_role("tab", name="Staff")).to_have_count(0)
    expect(page.get_by_role("tab", name="Activity")).to_have_count(0)
    dialog = _order_dialog(page, number)
    expect(dialog.get_by_role("button", name="Refund")).to_have_count(0)
    expect(dialog.get_by_role("button", name="Cancel order")).to_have_count(0)


def test_customers_tab_erases_a_customer_and_keeps_the_order(page: Page, store: StoreServer) -> None:
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.TEST_CARD)
    dialog = page.get_by_role("dialog")
    shopping.fill_field(dialog, "Email", "erin@example.com")
    shopping.fill_field(dialog, "Full name", "Erin Erasable")
    _token, paid = shopping.place_order(page)
    assert paid["status"] == 200, paid
    number = paid["order"]["id"]

    sign_in(page)
    open_tab(page, "Customers")
    row = page.get_by_test_id("customer-row").filter(has_text="erin@example.com")
    expect(row).to_contain_text("Erin Erasable")
    row.get_by_role("button", name="Erase").click()
    page.get_by_role("button", name="Erase customer").click()
    expect(page.get_by_test_id("customer-row").filter(has_text="erin@example.com")).to_have_count(0)

    open_tab(page, "Orders")
    order = page.get_by_test_id("order-row").filter(has_text=number)
    expect(order).to_contain_text("Erased customer")
    expect(order).not_to_contain_text("Erin")


def test_a_disabled_accounts_open_session_stops_at_its_next_action(
    page: Page, browser: Browser, store: StoreServer, store_url: str
) -> None:
    owner = httpx.post(f"{store.url}/api/admin/login", json={"username": "admin", "password": "admin123"})
    headers = {"x-admin-token": owner.json()["token"]}
    invited = httpx.post(
        f"{store.url}/api/admin/staff", json={"email": "dee@example.com", "username": "dee", "role": "staff"},
        headers=headers,
    )
    assert invited.status_code == 201, invited.text
    token = invited.json()["link"].split("token=")[1]
    assert httpx.post(f"{store.url}/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).is_success

    sign_in(page, "dee", SAM_PASSWORD)
    open_tab(page, "Orders")
    expect(page.get_by_test_id("order-stat").first).to_be_visible()

    owners = browser.new_context(base_url=store_url, viewport={"width": 1280, "height": 900})
    try:
        owner_page = owners.new_page()
        sign_in(owner_page)
        open_tab(owner_page, "Staff")
        owner_page.get_by_test_id("staff-row").filter(has_text="dee").get_by_role("button", name="Disable").click()
        expect(owner_page.get_by_test_id("staff-row").filter(has_text="dee")).to_contain_text("disabled")
    finally:
        owners.close()

    open_tab(page, "Product Editor")
    expect(page.get_by_role("button", name="Sign In")).to_be_visible()
