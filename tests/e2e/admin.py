"""Helpers for the admin browser tests (the test store runs with the default credentials)."""

import httpx
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import open_page

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = "admin123"


def sign_in(page: Page, username: str = ADMIN_USERNAME, password: str = ADMIN_PASSWORD) -> None:
    """Sign in on /admin/login and wait for the dashboard."""
    open_page(page, "/admin/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_role("heading", name="Product Manager")).to_be_visible()
    page.wait_for_selector("[data-hydrated='true']", state="attached")


def open_tab(page: Page, name: str) -> None:
    """Open a dashboard tab by its full label ('Orders', 'Sync & Pricing', ...)."""
    page.get_by_role("tab", name=name).click()


def editor_row(page: Page, title: str, *, edit: bool = False) -> Locator:
    """The Product Editor's one row found by searching `title` (opened for editing if asked)."""
    open_page(page, "/admin/dashboard")
    open_tab(page, "Product Editor")
    search, rows = page.get_by_placeholder("Search products..."), page.get_by_test_id("editor-row")
    # The tab keeps its last search: clear it first, so the one row below is this search's answer.
    search.fill("")
    expect(rows).not_to_have_count(1)
    search.fill(title)
    expect(rows).to_have_count(1)
    if edit:
        rows.first.get_by_role("button", name="Edit").click()
    return rows.first


def staff_member(store_url: str, username: str, password: str, role: str = "staff") -> None:
    """An invited person with a password set through the invitation link (made through the API, as the owner)."""
    owner = httpx.post(f"{store_url}/api/admin/login", json={"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD})
    assert owner.status_code == 200, owner.text
    invited = httpx.post(
        f"{store_url}/api/admin/staff",
        json={"email": f"{username}@example.com", "username": username, "role": role},
        headers={"x-admin-token": owner.json()["token"]},
    )
    assert invited.status_code == 201, invited.text
    token = invited.json()["link"].split("token=")[1]
    answer = httpx.post(f"{store_url}/api/staff/set-password", json={"token": token, "password": password})
    assert answer.status_code == 200, answer.text


def set_password_from_link(page: Page, link: str, password: str) -> None:
    """Open an invitation or reset link (path and query) and set the password it offers."""
    open_page(page, link)
    page.get_by_label("New password").fill(password)
    page.get_by_label("Repeat it").fill(password)
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()
