"""Phones (issue 22, item 12): the menu button gets its taps, every dashboard tab can be reached,
short pages end at the footer, the margins card comes into view when asked for, and the back
office's people screens (issue 42) never scroll sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e import test_shopping as shopping
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

DASHBOARD_TABS = ["Product Editor", "Categories", "Orders", "Events", "Sync & Pricing", "Discounts"]
PRODUCTS_PAGE_TABS = ["Create Product", "Publish Product"]
SHORT_PAGES = ["/order-status", "/no-such-page"]
#: The back office's people tabs and the test id of a row each lists.
PEOPLE_TABS = {"Staff": "staff-row", "Activity": "activity-row", "Customers": "customer-row"}
#: The fixtures of a phone (390x844, touch) and a desktop (1280x900) browser.
SCREENS = ["phone_page", "page"]


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, "the element is not rendered"
    return box


def _owns_point(page: Page, locator: Locator, x: float, y: float) -> bool:
    """Whether a tap at (x, y) lands on the element or inside it."""
    return page.evaluate(
        "([el, x, y]) => { const hit = document.elementFromPoint(x, y); return !!hit && el.contains(hit); }",
        [locator.element_handle(), x, y],
    )


def _expect_on_screen_and_opens(page: Page, tab: Locator) -> None:
    """Once the page is scrolled down to it (the page only: a tab list that hides tabs in a
    sideways scroll without a cue fails), the tab lies inside the screen, a tap there hits it, and
    it opens."""
    page.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().top - 100)", tab.element_handle())
    box = _box(tab)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the tab sticks out sideways: {box}"
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, f"the tab is off screen: {box}"
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert _owns_point(page, tab, *centre), "something else covers the tab"
    page.touchscreen.tap(*centre)
    expect(tab).to_have_attribute("aria-selected", "true")


def test_the_menu_button_takes_taps_on_its_whole_box_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    toggle = phone_page.get_by_test_id("mobile-menu-toggle")
    box = _box(toggle)
    # 2 px in: the button's corners are rounded (4 px), and outside the curve is not the button.
    left, top = box["x"] + 2, box["y"] + 2
    right, bottom = box["x"] + box["width"] - 2, box["y"] + box["height"] - 2
    for x, y in [(left, top), (right, top), (left, bottom), (right, bottom), ((left + right) / 2, (top + bottom) / 2)]:
        assert _owns_point(phone_page, toggle, x, y), f"a tap at ({x}, {y}) misses the menu button"
    phone_page.touchscreen.tap(right, top)
    expect(phone_page.get_by_test_id("mobile-menu")).to_be_visible()


def test_five_quick_taps_on_the_hidden_corner_open_the_admin_login_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    corner = phone_page.get_by_test_id("admin-gesture")
    box = _box(corner)
    for _ in range(5):
        phone_page.touchscreen.tap(box["x"] + box["width"] - 4, box["y"] + 4)
    expect(phone_page).to_have_url(re.compile(r"/admin/login$"))


def test_every_dashboard_tab_is_on_screen_and_opens_on_a_phone(phone_page: Page) -> None:
    sign_in(phone_page)
    for name in reversed(DASHBOARD_TABS):
        _expect_on_screen_and_opens(phone_page, phone_page.get_by_role("tab", name=name))


def test_both_product_management_tabs_are_on_screen_and_open_on_a_phone(phone_page: Page) -> None:
    sign_in(phone_page)
    open_page(phone_page, "/admin/products")
    for name in reversed(PRODUCTS_PAGE_TABS):
        _expect_on_screen_and_opens(phone_page, phone_page.get_by_role("tab", name=name))


def test_every_product_panel_tab_is_on_screen_and_opens_on_a_phone(phone_page: Page) -> None:
    sign_in(phone_page)
    open_tab(phone_page, "Sync & Pricing")
    panel = phone_page.get_by_test_id("product-panel")
    for name in ["Publishing", "Pricing", "Products"]:
        _expect_on_screen_and_opens(phone_page, panel.get_by_role("tab", name=name))


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("path", SHORT_PAGES)
def test_a_short_page_ends_with_its_footer_at_the_bottom_of_the_screen(
    request: pytest.FixtureRequest, screen: str, path: str
) -> None:
    page: Page = request.getfixturevalue(screen)
    viewport = page.viewport_size
    open_page(page, path)
    footer = page.locator("footer")
    expect(footer).to_be_visible()
    bottom = page.evaluate("el => el.getBoundingClientRect().bottom", footer.element_handle())
    assert abs(bottom - viewport["height"]) <= 1, f"the footer ends at {bottom}, the screen at {viewport['height']}"
    assert page.evaluate("() => document.documentElement.scrollHeight") <= viewport["height"]


@pytest.mark.parametrize("screen", SCREENS)
def test_the_admin_login_fills_the_screen_without_scrolling(request: pytest.FixtureRequest, screen: str) -> None:
    page: Page = request.getfixturevalue(screen)
    viewport = page.viewport_size
    open_page(page, "/admin/login")
    frame = page.locator("[data-hydrated]")
    bottom = page.evaluate("el => el.getBoundingClientRect().bottom", frame.element_handle())
    assert abs(bottom - viewport["height"]) <= 1, f"the page ends at {bottom}, the screen at {viewport['height']}"
    assert page.evaluate("() => document.documentElement.scrollHeight") <= viewport["height"]


def test_pressing_margins_brings_the_margins_card_into_view_on_a_phone(phone_page: Page) -> None:
    sign_in(phone_page)
    open_tab(phone_page, "Sync & Pricing")
    row = phone_page.get_by_test_id("price-row").first
    title = row.get_by_role("rowheader").inner_text()
    row.get_by_role("button", name="Margins").click()
    heading = phone_page.get_by_test_id("margins").get_by_role("heading")
    expect(heading).to_have_text(f"Margins: {title}")
    expect(heading).to_be_in_viewport()
    expect(phone_page.get_by_test_id("margins").get_by_test_id("margin-row").first).to_be_visible()


def test_every_collection_tab_is_on_screen_and_opens_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/collections")
    for label in ["SWDNN", "HWDKN", "HWDRN", "HWDZN", "HWDPN"]:
        _expect_on_screen_and_opens(phone_page, phone_page.get_by_role("tab", name=label, exact=True))


def _expect_no_sideways_scroll(page: Page, screen: str) -> None:
    """Nothing sticks out of the screen sideways: the page is no wider than the phone."""
    width, screen_width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= screen_width, f"{screen} is {width} px wide on a {screen_width} px screen"


def test_the_people_tabs_a_customer_and_the_account_fit_a_phone(
    page: Page, phone_page: Page, store: StoreServer
) -> None:
    # A customer to open: an order placed on the desktop.
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.TEST_CARD)
    _token, paid = shopping.place_order(page)
    assert paid["status"] == 200, paid

    sign_in(phone_page)
    for tab, row in PEOPLE_TABS.items():
        open_tab(phone_page, tab)
        expect(phone_page.get_by_test_id(row).first).to_be_visible()
        _expect_no_sideways_scroll(phone_page, tab)

    # An invitation's link (long, in one piece) stays inside the screen.
    open_tab(phone_page, "Staff")
    phone_page.get_by_label("Email").fill("phoebe.on.the.phone@example.com")
    phone_page.get_by_label("Username").fill("phoebe")
    phone_page.get_by_role("button", name="Send invitation").click()
    expect(phone_page.get_by_test_id("invite-link")).to_contain_text("/admin/set-password?token=")
    _expect_no_sideways_scroll(phone_page, "The Staff tab with an invitation link")

    open_tab(phone_page, "Customers")
    phone_page.get_by_test_id("customer-row").first.get_by_role("button", name="View").click()
    expect(phone_page.get_by_role("dialog")).to_be_visible()
    _expect_no_sideways_scroll(phone_page, "A customer's page")
    phone_page.keyboard.press("Escape")
    expect(phone_page.get_by_role("dialog")).to_have_count(0)

    open_tab(phone_page, "Account")
    expect(phone_page.get_by_role("button", name="Change password")).to_be_visible()
    _expect_no_sideways_scroll(phone_page, "Account")
    phone_page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(phone_page.get_by_role("img", name="QR code for the authenticator app")).to_be_visible()
    _expect_no_sideways_scroll(phone_page, "Two-factor enrolment")
