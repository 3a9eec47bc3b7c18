"""The public shell in a real browser: home tiles, header, hidden admin gesture, 404, mobile menu."""

import re

from playwright.sync_api import Page, expect

from storefront.services.collections import COLLECTIONS
from tests.e2e.browser import open_page

GESTURE = "admin-gesture"


def test_home_shows_five_collection_tiles_linking_to_their_pages(page: Page) -> None:
    open_page(page, "/")
    tiles = page.get_by_test_id("collection-tile")
    expect(tiles).to_have_count(5)
    assert [tiles.nth(i).get_attribute("href") for i in range(5)] == [c.route for c in COLLECTIONS]
    for collection in COLLECTIONS:
        expect(tiles.get_by_text(collection.title, exact=True)).to_be_visible()


def test_home_tiles_show_their_generated_images(page: Page) -> None:
    open_page(page, "/")
    images = page.get_by_test_id("collection-tile").locator("img")
    expect(images).to_have_count(5)
    for i in range(5):
        images.nth(i).scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=images.nth(i).element_handle())


def test_home_has_hero_and_newsletter(page: Page) -> None:
    open_page(page, "/")
    expect(page.get_by_test_id("hero-slide")).to_be_visible()
    expect(page.locator("input[type=email]")).to_have_count(1)
    expect(page.get_by_role("button", name="Subscribe")).to_be_visible()


def test_cart_badge_is_hidden_when_the_cart_is_empty(page: Page) -> None:
    open_page(page, "/")
    expect(page.get_by_role("link", name="Cart")).to_be_visible()
    expect(page.get_by_test_id("cart-badge")).to_have_count(0)


def test_cart_badge_shows_the_total_quantity(page: Page) -> None:
    open_page(page, "/")
    lines = [
        {"id": "a", "name": "Tee", "price": 24.99, "size": "M", "image": "", "quantity": 2},
        {"id": "b", "name": "Hoodie", "price": 49.99, "size": "L", "image": "", "quantity": 1},
    ]
    page.evaluate("lines => localStorage.setItem('cart-storage', JSON.stringify(lines))", lines)
    open_page(page, "/")
    expect(page.get_by_test_id("cart-badge")).to_have_text("3")


def test_five_quick_clicks_on_the_hidden_corner_open_the_admin_login(page: Page) -> None:
    open_page(page, "/")
    corner = page.get_by_test_id(GESTURE)
    for _ in range(5):
        corner.click()
    expect(page).to_have_url(re.compile(r"/admin/login$"))


def test_five_slow_clicks_on_the_hidden_corner_do_not_open_the_admin_login(page: Page) -> None:
    page.clock.install()
    open_page(page, "/")
    corner = page.get_by_test_id(GESTURE)
    for _ in range(5):
        corner.click()
        page.wait_for_function("() => window.__adminGesture && window.__adminGesture.count === 1")
        page.clock.fast_forward(3100)
    assert page.evaluate("() => window.__adminGesture.count") == 0
    assert re.search(r"/admin/login$", page.url) is None
    expect(page.get_by_test_id("collection-tile")).to_have_count(5)


def test_unknown_path_shows_the_not_found_page(page: Page) -> None:
    open_page(page, "/no-such-page")
    expect(page.get_by_text("404 Page Not Found", exact=True)).to_be_visible()
    expect(page.get_by_text("Did you forget to add the page to the router?", exact=True)).to_be_visible()


def test_new_arrivals_panel_shows_five_tiles_and_closes_on_selection(page: Page) -> None:
    open_page(page, "/")
    page.get_by_role("button", name="New Arrivals").hover()
    panel = page.get_by_test_id("new-arrivals-panel")
    expect(panel).to_be_visible()
    box = panel.bounding_box()
    assert box["width"] == 800
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    tiles = panel.get_by_role("link")
    expect(tiles).to_have_count(5)
    tiles.nth(2).click()
    expect(page).to_have_url(re.compile(rf"{COLLECTIONS[2].route}$"))
    expect(panel).to_have_count(0)


def test_mobile_menu_lists_its_entries_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    phone_page.get_by_test_id("mobile-menu-toggle").click()
    menu = phone_page.get_by_test_id("mobile-menu")
    expect(menu).to_be_visible()
    names = ["New Arrivals", "Our Products", "Tours & Events", *[c.title for c in COLLECTIONS]]
    links = menu.get_by_role("link")
    expect(links).to_have_text(names)


def test_desktop_links_are_hidden_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    expect(phone_page.get_by_role("navigation", name="Main")).to_be_hidden()

