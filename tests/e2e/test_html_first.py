"""Issue 34: every public page paints from the server's HTML before any of the app's scripts runs, and
a tap made before the app is ready is replayed once it is: exactly once, never lost, never twice."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from storefront.web.html_first import APP_START_MARK, HYDRATED_MARK
from tests.e2e.conftest import StoreServer
from tests.e2e.test_events_page import FEATURED, ROUTE as EVENTS_ROUTE, store_events  # noqa: F401 (a fixture)
from tests.e2e.test_first_view import _first_product
from tests.e2e.test_shopping import add_to_cart

PAGES = [
    "/", "/products", "product", "/collections/swdnn", "/new-arrivals", "/tours-and-events", "/try-it-on", "/cart",
    "/order-status", "/shopify", "shopify-product",
]
#: The entry module: held back in the tap tests, so the tap surely comes before the app is ready.
ENTRY = re.compile(r"/assets/entry\.client-[^/]+\.js$")
#: Chrome DevTools' CPU slowdown, as Lighthouse's mobile preset applies it.
SLOWER_CPU = 4


def _address(store: StoreServer, path: str) -> str:
    if path == "product":
        return f"/product/{_first_product(store)}"
    if path == "shopify-product":
        products = httpx.get(f"{store.url}/api/shopify/products", timeout=30).json()["products"]
        return f"/shopify/product/{products[0]['id']}"
    return path


def _marks(page: Page) -> dict[str, float]:
    return page.evaluate(
        "() => Object.fromEntries([...performance.getEntriesByType('paint'), ...performance.getEntriesByType('mark')]"
        ".map(e => [e.name, e.startTime]))"
    )


@pytest.mark.parametrize("path", PAGES)
def test_the_page_paints_before_the_app_starts(browser: Browser, store: StoreServer, path: str) -> None:
    address = _address(store, path)
    served = httpx.get(store.url + address, timeout=30).text
    assert 'rel="modulepreload"' not in served and '<script type="module"' not in served
    page = browser.new_page(base_url=store.url)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(address)
        page.wait_for_function(f"() => performance.getEntriesByName('{HYDRATED_MARK}').length > 0")
        page.wait_for_selector("[data-hydrated='true']", state="attached")
        marks = _marks(page)
    finally:
        page.close()
    assert marks["first-contentful-paint"] <= marks[APP_START_MARK] <= marks[HYDRATED_MARK], marks
    assert errors == []


#: The first name in lucide's map of every icon, which one icon named at run time (`rx.icon(tag=var)`)
#: brings into the chunk every public page shares (about 370 KB of script to parse on a phone).
ICON_MAP_ENTRY = "a-arrow-down"


@pytest.mark.parametrize("path", ["/", "/products"])
def test_the_scripts_a_page_starts_with_hold_no_map_of_every_icon(store: StoreServer, path: str) -> None:
    served = httpx.get(store.url + path, timeout=30).text
    listed = re.search(r'data-preload="([^"]*)"', served)
    assert listed and listed.group(1).split(), "the held app script lists its chunks"
    for href in listed.group(1).split():
        assert ICON_MAP_ENTRY not in httpx.get(store.url + href, timeout=30).text, href


@pytest.fixture
def held_entry(page: Page) -> Iterator[list[Route]]:
    """The app's entry module held until the test lets it go (`release`)."""
    held: list[Route] = []
    page.route(ENTRY, lambda route: held.append(route))
    yield held
    for route in held:
        route.continue_()
    page.unroute(ENTRY)


def release(page: Page, held: list[Route]) -> None:
    page.wait_for_function(f"() => performance.getEntriesByName('{APP_START_MARK}').length > 0")
    if not held:
        page.wait_for_event("request", lambda request: bool(ENTRY.search(request.url)))
    # The route's handler runs when Playwright delivers the route, which may come just after the
    # request's event: let the driver deliver it (bounded, never a fixed wait for the app).
    for _ in range(250):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the app's entry module was requested but never routed"
    held.pop().continue_()
    page.unroute(ENTRY)


def _slow_cpu(page: Page) -> None:
    session = page.context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": SLOWER_CPU})


def test_a_size_and_add_to_cart_tapped_before_the_app_is_ready_add_one_line(
    page: Page, store: StoreServer, held_entry: list[Route],
) -> None:
    _slow_cpu(page)
    page.goto(f"/product/{_first_product(store)}", wait_until="commit")
    served = page.locator("[data-first-view] [data-replay='add-to-cart']")
    size = page.locator("[data-first-view] [data-replay='size:M']")
    size.click()
    for _ in range(3):  # an impatient shopper: one line all the same
        served.click()
    expect(served).to_have_attribute("aria-busy", "true")
    assert page.evaluate("() => window.__storefront.ready") is False
    release(page, held_entry)
    expect(page.get_by_text("Added to cart", exact=True)).to_be_visible()
    expect(page.get_by_test_id("cart-badge")).to_have_text("1")
    page.goto("/cart")
    expect(page.get_by_test_id("cart-line")).to_have_count(1)
    expect(page.get_by_test_id("cart-line")).to_contain_text("Size: M")
    expect(page.get_by_test_id("line-quantity")).to_have_text("1")


def test_quick_add_tapped_before_the_app_is_ready_opens_its_menu_once_ready(
    page: Page, held_entry: list[Route],
) -> None:
    _slow_cpu(page)
    page.goto("/products", wait_until="commit")
    served = page.locator("[data-first-view] [data-replay^='quick-add:']").first
    key = served.get_attribute("data-replay")
    served.click()
    release(page, held_entry)
    expect(page.get_by_role("menu")).to_have_count(1)
    expect(page.locator(f"[data-replay='{key}']")).to_have_attribute("aria-expanded", "true")


def test_links_of_the_first_view_work_before_the_app_starts(page: Page, held_entry: list[Route]) -> None:
    page.goto("/products", wait_until="commit")
    link = page.locator("[data-first-view] a[href^='/product/']").first
    href = link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(re.escape(href) + "$"))


def test_a_cart_with_lines_never_paints_as_empty(page: Page, store: StoreServer, held_entry: list[Route]) -> None:
    page.unroute(ENTRY)
    add_to_cart(page, f"/product/{_first_product(store)}", "M")
    page.route(ENTRY, lambda route: held_entry.append(route))
    page.goto("/cart", wait_until="commit")
    pending = page.locator(".sf-cart-pending")
    expect(pending).to_be_visible()
    expect(page.get_by_text("Your cart is empty", exact=True)).to_be_hidden()
    release(page, held_entry)
    expect(page.get_by_test_id("cart-line")).to_have_count(1)
    expect(pending).to_have_count(0)


def test_an_empty_cart_paints_as_empty_before_the_app_starts(page: Page, held_entry: list[Route]) -> None:
    page.goto("/cart", wait_until="commit")
    expect(page.get_by_text("Your cart is empty", exact=True)).to_be_visible()
    expect(page.locator(".sf-cart-pending")).to_be_hidden()
    assert page.evaluate(f"() => performance.getEntriesByName('{HYDRATED_MARK}').length") == 0


@pytest.mark.usefixtures("store_events")
def test_an_event_card_tapped_before_the_app_is_ready_opens_its_details_once_ready(
    page: Page, held_entry: list[Route],
) -> None:
    _slow_cpu(page)
    page.goto(EVENTS_ROUTE, wait_until="commit")
    served = page.locator("[data-first-view] [data-testid=event-card]").filter(has_text=FEATURED["title"])
    served.get_by_role("button", name="View details").click()
    assert page.evaluate("() => window.__storefront.ready") is False
    release(page, held_entry)
    dialog = page.get_by_test_id("event-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading", name=FEATURED["title"])).to_be_visible()


def test_an_item_tapped_before_the_app_is_ready_is_chosen_once_ready(page: Page, held_entry: list[Route]) -> None:
    _slow_cpu(page)
    page.goto("/try-it-on", wait_until="commit")
    served = page.locator("[data-first-view] [data-testid=tryon-item]").nth(1)
    key = served.get_attribute("data-replay")
    served.click()
    assert page.evaluate("() => window.__storefront.ready") is False
    release(page, held_entry)
    chosen = page.locator(f"[data-testid=tryon-item][data-replay='{key}']")
    expect(chosen).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-testid=tryon-item][aria-pressed='true']")).to_have_count(1)
