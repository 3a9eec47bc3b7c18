"""Issue 9: product images are sized WebP renditions; the first row loads at once, the rest lazily;
built and prepared files carry the cache lifetime their names allow. Issue 22: a product image
that fails to load shows the placeholder, wherever it is drawn."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from storefront.api.static import IMMUTABLE
from storefront.components.product_card import EAGER_CARDS
from storefront.web.served_routes import REVALIDATE
from tests.e2e.browser import expect_the_placeholder, open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_shopify_pages import CLASSIC_CREW_TEE
from tests.e2e.test_shopping import add_to_cart, product_links

RENDITION = re.compile(r"^/media/[0-9a-f]{24}-(\d+)\.webp$")


def card_images(page: Page) -> list[dict[str, str | None]]:
    cards = page.get_by_test_id("product-card")
    expect(cards.nth(EAGER_CARDS)).to_be_visible()
    return page.eval_on_selector_all(
        "[data-testid=product-card] img",
        "imgs => imgs.map(i => ({src: i.getAttribute('src'), srcset: i.getAttribute('srcset'),"
        " loading: i.getAttribute('loading'), priority: i.getAttribute('fetchpriority'),"
        " width: i.getAttribute('width'), height: i.getAttribute('height')}))",
    )


def test_cards_show_renditions_and_only_the_first_row_loads_eagerly(page: Page, store: StoreServer) -> None:
    open_page(page, "/products")
    images = card_images(page)

    assert [(i["loading"], i["priority"]) for i in images[: EAGER_CARDS + 1]] == [
        *[("eager", "high")] * EAGER_CARDS, ("lazy", "auto")
    ]
    for image in images:
        assert RENDITION.match(image["src"] or ""), image
        assert int(image["width"] or 0) > 0 and int(image["height"] or 0) > 0
        widths = [int(RENDITION.match(entry.split(" ")[0]).group(1)) for entry in (image["srcset"] or "").split(", ")]
        assert widths == sorted(widths) and len(widths) >= 2
    first = images[0]
    for entry in (first["srcset"] or "").split(", "):
        response = httpx.get(store.url + entry.split(" ")[0])
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/webp"
        assert response.headers["cache-control"] == IMMUTABLE


def test_the_product_page_image_loads_at_once_with_its_renditions(page: Page) -> None:
    open_page(page, "/products")
    page.get_by_role("link", name="View Details").first.click()
    image = page.get_by_test_id("product-image").locator("img")
    expect(image).to_have_attribute("src", RENDITION)
    expect(image).to_have_attribute("loading", "eager")
    expect(image).to_have_attribute("fetchpriority", "high")
    expect(image).to_have_attribute("srcset", re.compile(r"/media/\S+ \d+w, "))


def test_the_browser_never_fetches_a_product_image_from_anywhere_but_the_store(page: Page, store: StoreServer) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url) if request.resource_type == "image" else None)
    open_page(page, "/products")
    expect(page.get_by_test_id("product-card").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert requested and all(url.startswith(store.url) for url in requested)
    assert not any(url.endswith(".png") and "/uploads/demo/" in url for url in requested)


def test_built_files_are_cached_by_their_name_and_pages_are_revalidated(store: StoreServer) -> None:
    html = httpx.get(store.url + "/products").text
    # The app's chunks are listed on its held script (storefront/web/html_first.py), not linked.
    scripts = re.findall(r'(/assets/[^"\s]+\.js)', html)
    assert scripts, "no hashed scripts in the page"
    assert httpx.get(store.url + scripts[0]).headers["cache-control"] == IMMUTABLE
    assert httpx.get(store.url + "/products").headers["cache-control"] == REVALIDATE
    assert "max-age" in httpx.get(store.url + "/favicon.ico").headers["cache-control"]


def fail_product_images(page: Page) -> None:
    """Answer 404 to every prepared rendition and uploaded picture, as a file gone missing would."""
    page.route(
        lambda url: "/media/" in url or "/uploads/" in url,
        lambda route: route.fulfill(status=404, content_type="text/plain", body="missing"),
    )


@pytest.mark.parametrize(
    ("path", "holder"),
    [
        ("/products", "product-card"),
        ("/shopify", "store-product-card"),
        (f"/shopify/product/{CLASSIC_CREW_TEE}", "store-product-image"),
        ("/try-it-on", "tryon-item"),
    ],
)
def test_an_image_that_fails_to_load_shows_the_placeholder(page: Page, path: str, holder: str) -> None:
    fail_product_images(page)
    open_page(page, path)
    expect_the_placeholder(page, page.get_by_test_id(holder).first.locator("img"))


def test_the_product_page_shows_the_placeholder_when_its_image_fails(page: Page) -> None:
    fail_product_images(page)
    open_page(page, "/products")
    page.get_by_role("link", name="View Details").first.click()
    expect_the_placeholder(page, page.get_by_test_id("product-image").locator("img"))


def test_a_cart_line_shows_the_placeholder_when_its_image_fails(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "M")
    fail_product_images(page)
    open_page(page, "/cart")
    expect_the_placeholder(page, page.get_by_test_id("cart-line").locator("img"))
