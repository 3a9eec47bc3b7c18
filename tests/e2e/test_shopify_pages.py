"""The store catalogue (/shopify and /shopify/product/{id}) in a real browser, on the demo catalogue
and on the fake Shopify's Storefront GraphQL API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from storefront.config import PROJECT_ROOT
from storefront.services.shopify.catalogue import PRODUCT_FAILED, PRODUCTS_FAILED
from storefront.state.shopify import STORE_PAGE_SIZE
from tests.e2e.admin import sign_in
from tests.e2e.browser import expect_the_placeholder, open_page
from tests.e2e.conftest import SharedStore, StoreProcess, StoreServer, reconfigured_store, shared_store
from tests.fakes.shopify_server import FIRST_PRODUCT_ID, FakeShopifyServer

# The demo catalogue's products (storefront/services/shopify/demo.py).
CLASSIC_CREW_TEE = "8123456700001"  # Color x Size; XL costs more
LONG_SLEEVE_TEE = "8123456700007"  # its description carries a script and an onerror handler
DAD_CAP = "8123456700009"  # one option, 'Color', three variants
TOTE_BAG = "8123456700008"  # one variant
PULLOVER_HOODIE = "8123456700003"  # its description has a size table
KIDS_CREWNECK = "8123456700006"  # its description has a numbered list
DEMO_PRODUCTS = 12
CDN_IMAGES = "https://cdn.shopify.com/**"
STAND_IN_PICTURE = PROJECT_ROOT / "assets" / "apple-touch-icon.png"
# The fake Shopify's products (tests/fakes/shopify_server.py SEED, in id order).
FAKE_TEE = FIRST_PRODUCT_ID  # Nupe Founders Tee, sizes S to XL
FAKE_CAP = FIRST_PRODUCT_ID + 3  # Nupe Diamond Cap, one variant
# The connected store keeps Shopify's answers 30 s (services/shopify/graphql.py) and its tests share it:
# a test that changes a product, or makes reading it fail, uses one no other test of the module opens.
FAKE_KAPPA_TEE = FIRST_PRODUCT_ID + 6  # Kappa Diamond Tee, sizes S to XL
FAKE_KAPPA_CAP = FIRST_PRODUCT_ID + 9  # Kappa Crimson Cap, one variant
DEMO_NOT_FOR_SALE = "Demo catalogue: this item cannot be bought here"
SHOPPER_DEMO_TEXT = "These are sample products to browse: they cannot be bought here."
HOSTILE_SEARCH = 'tee" OR title:*'
HOODIES_AND_SWEATSHIRTS = {"Pullover Hoodie", "Zip-Up Hoodie", "Heavyweight Crewneck", "Kids Crewneck Sweatshirt"}


def open_store(page: Page) -> None:
    open_page(page, "/shopify")
    expect(page.get_by_test_id("store-product-card")).to_have_count(DEMO_PRODUCTS)


def card_titles(page: Page) -> list[str]:
    return [t.strip() for t in page.get_by_test_id("store-product-title").all_text_contents()]


def test_the_store_list_shows_the_demo_banner_cards_prices_and_price_unavailable(page: Page) -> None:
    open_store(page)
    banner = page.get_by_test_id("store-demo-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Demo Mode")
    expect(page.get_by_test_id("store-error-banner")).to_have_count(0)
    jersey = page.get_by_test_id("store-product-card").filter(has_text="Custom Team Jersey")
    expect(jersey.get_by_test_id("store-product-price")).to_have_text("Price unavailable")
    tee = page.get_by_test_id("store-product-card").filter(has_text="Classic Crew Tee")
    expect(tee.get_by_test_id("store-product-price")).to_have_text("$24.00")
    expect(tee.get_by_role("link").first).to_have_attribute("href", f"/shopify/product/{CLASSIC_CREW_TEE}")
    first_image = page.get_by_test_id("store-product-card").first.locator("img")
    expect(first_image).to_have_attribute("loading", "eager")
    expect(first_image).to_have_attribute("width", re.compile(r"^\d+$"))
    expect(page.get_by_test_id("store-product-card").last.locator("img")).to_have_attribute("loading", "lazy")


def test_searching_narrows_the_list_to_matching_titles(page: Page) -> None:
    open_store(page)
    page.get_by_role("textbox", name="Search products by title").fill("tee")
    cards = page.get_by_test_id("store-product-card")
    expect(cards).to_have_count(5)
    assert all("tee" in title.lower() for title in card_titles(page)), card_titles(page)
    page.get_by_role("textbox", name="Search products by title").fill("no such thing")
    expect(page.get_by_text("No products found. Try adjusting your filters.", exact=True)).to_be_visible()


def test_choosing_a_collection_filters_the_list_to_its_products(page: Page) -> None:
    open_store(page)
    page.get_by_role("combobox", name="Collection").click()
    expect(page.get_by_role("option", name="All Collections", exact=True)).to_be_visible()
    page.get_by_role("option", name="Hoodies & Sweatshirts", exact=True).click()
    expect(page.get_by_test_id("store-product-card")).to_have_count(len(HOODIES_AND_SWEATSHIRTS))
    assert set(card_titles(page)) == HOODIES_AND_SWEATSHIRTS
    page.get_by_role("combobox", name="Collection").click()
    page.get_by_role("option", name="All Collections", exact=True).click()
    expect(page.get_by_test_id("store-product-card")).to_have_count(DEMO_PRODUCTS)


def test_the_variant_selector_is_labelled_by_the_option_name_and_the_price_follows_it(page: Page) -> None:
    open_page(page, f"/shopify/product/{CLASSIC_CREW_TEE}")
    expect(page.get_by_role("heading", name="Classic Crew Tee")).to_be_visible()
    selector = page.get_by_role("combobox", name="Color")
    expect(selector).to_be_visible()
    selector.click()
    page.get_by_role("option", name="Black / XL", exact=True).click()
    expect(page.get_by_test_id("store-product-price")).to_have_text("$26.00")
    selector.click()
    page.get_by_role("option", name="White / S", exact=True).click()
    expect(page.get_by_test_id("store-product-price")).to_have_text("$24.00")
    expect(page.get_by_test_id("store-vendor")).to_contain_text("Northline Apparel")
    expect(page.get_by_test_id("store-type")).to_contain_text("T-Shirt")
    expect(page.get_by_test_id("store-tag")).to_have_count(3)


def test_a_product_with_one_option_is_labelled_by_it(page: Page) -> None:
    open_page(page, f"/shopify/product/{DAD_CAP}")
    expect(page.get_by_role("combobox", name="Color")).to_be_visible()


def test_a_product_with_one_variant_has_no_selector(page: Page) -> None:
    open_page(page, f"/shopify/product/{TOTE_BAG}")
    expect(page.get_by_role("heading", name="Canvas Tote Bag")).to_be_visible()
    expect(page.get_by_role("combobox")).to_have_count(0)


def test_in_demo_mode_a_store_product_says_it_cannot_be_bought_and_add_to_cart_is_disabled(page: Page) -> None:
    for product, variant in ((TOTE_BAG, None), (CLASSIC_CREW_TEE, "Black / XL")):
        open_page(page, f"/shopify/product/{product}")
        expect(page.get_by_test_id("store-product-price")).to_be_visible()
        if variant is not None:
            page.get_by_role("combobox", name="Color").click()
            page.get_by_role("option", name=variant, exact=True).click()
        expect(page.get_by_text(DEMO_NOT_FOR_SALE, exact=True)).to_be_visible()
        expect(page.get_by_role("button", name="Add to Cart")).to_be_disabled()


def test_the_store_list_tells_shoppers_a_plain_sentence_and_the_admin_the_setup(page: Page) -> None:
    open_store(page)
    expect(page.get_by_test_id("store-demo-banner")).to_be_visible()
    expect(page.get_by_text(re.compile("SHOPIFY_"))).to_have_count(0)
    expect(page.get_by_test_id("store-demo-banner")).to_contain_text(SHOPPER_DEMO_TEXT)

    sign_in(page)
    open_store(page)
    expect(page.get_by_test_id("store-config-banner")).to_contain_text("SHOPIFY_STORE_DOMAIN")
    expect(page.get_by_test_id("store-demo-banner")).to_contain_text("SHOPIFY_STOREFRONT_TOKEN")


def test_the_description_is_shown_sanitised(page: Page) -> None:
    open_page(page, f"/shopify/product/{LONG_SLEEVE_TEE}")
    description = page.get_by_test_id("store-product-description")
    expect(description).to_contain_text("Long sleeves, same soft cotton.")
    html = description.inner_html().lower()
    assert "<script" not in html and "onerror" not in html and "onclick" not in html and "javascript:" not in html, html
    expect(description.locator("script")).to_have_count(0)
    expect(page.locator("[onerror]")).to_have_count(0)


def test_the_quantity_cannot_go_below_one(page: Page) -> None:
    open_page(page, f"/shopify/product/{CLASSIC_CREW_TEE}")
    quantity = page.get_by_test_id("store-quantity")
    minus = page.get_by_role("button", name="Decrease quantity")
    expect(quantity).to_have_text("1")
    expect(minus).to_be_disabled()
    page.get_by_role("button", name="Increase quantity").click()
    expect(quantity).to_have_text("2")
    expect(minus).to_be_enabled()
    minus.click()
    expect(quantity).to_have_text("1")
    expect(minus).to_be_disabled()


def test_an_unknown_product_shows_product_not_found_with_a_link_back(page: Page) -> None:
    for unknown in ("999", "not-a-number"):
        open_page(page, f"/shopify/product/{unknown}")
        expect(page.get_by_role("heading", name="Product Not Found", exact=True)).to_be_visible()
        back = page.get_by_role("link", name="Back to Store Catalogue")
        expect(back).to_have_attribute("href", "/shopify")
    back.click()
    expect(page).to_have_url(re.compile(r"/shopify$"))
    expect(page.get_by_test_id("store-product-card")).to_have_count(DEMO_PRODUCTS)


def shopify_settings(fake: FakeShopifyServer, token: str) -> dict[str, str]:
    return {"SHOPIFY_STORE_DOMAIN": fake.domain, "SHOPIFY_STOREFRONT_TOKEN": token, "SHOPIFY_API_BASE": fake.base_url}


@pytest.fixture(scope="module")
def shared_fake() -> Iterator[FakeShopifyServer]:
    with FakeShopifyServer() as fake:
        yield fake


@pytest.fixture(scope="module")
def connected(shared_fake: FakeShopifyServer, tmp_path_factory: pytest.TempPathFactory) -> SharedStore:
    return shared_store(tmp_path_factory, "shopify-connected", shopify_settings(shared_fake, shared_fake.token))


@pytest.fixture
def fake(
    store: StoreServer, store_process: StoreProcess, shared_fake: FakeShopifyServer, connected: SharedStore
) -> FakeShopifyServer:
    """The module's fake Shopify, reset to its seed (no faults, nothing recorded), with the store
    connected to it: one store for the tests of this configuration."""
    shared_fake.reset()
    connected.serve(store_process)
    return shared_fake


@pytest.mark.reconfigures_store
def test_a_connected_store_enables_add_to_cart_and_adds_a_variant_with_quantity_three(
    page: Page, fake: FakeShopifyServer
) -> None:
    open_page(page, f"/shopify/product/{FAKE_CAP}")
    expect(page.get_by_role("heading", name="Nupe Diamond Cap")).to_be_visible()
    expect(page.get_by_role("button", name="Add to Cart")).to_be_enabled()  # one variant: chosen already
    expect(page.get_by_text(DEMO_NOT_FOR_SALE)).to_have_count(0)

    open_page(page, f"/shopify/product/{FAKE_TEE}")
    add = page.get_by_role("button", name="Add to Cart")
    expect(add).to_be_disabled()  # no size chosen yet
    page.get_by_role("combobox", name="Size").click()
    page.get_by_role("option", name="XL", exact=True).click()
    expect(add).to_be_enabled()
    for _ in range(2):
        page.get_by_role("button", name="Increase quantity").click()
    expect(page.get_by_test_id("store-quantity")).to_have_text("3")
    add.click()
    expect(page.get_by_text("Added to Cart", exact=True)).to_be_visible()

    open_page(page, "/cart")
    line = page.get_by_test_id("cart-line")
    expect(line).to_have_count(1)
    expect(line).to_contain_text("Nupe Founders Tee")
    expect(line).to_contain_text("XL")
    expect(line.get_by_test_id("line-quantity")).to_have_text("3")


@pytest.mark.reconfigures_store
def test_a_connected_store_shows_no_banner_pages_with_load_more_and_cdn_srcsets(
    page: Page, fake: FakeShopifyServer
) -> None:
    # The CDN is out of reach here: a picture stands in for it, so the images load and keep their srcset.
    page.route(CDN_IMAGES, lambda route: route.fulfill(path=STAND_IN_PICTURE))
    active = len(fake.active_products())
    assert active > STORE_PAGE_SIZE
    open_page(page, "/shopify")
    cards = page.get_by_test_id("store-product-card")
    expect(cards).to_have_count(STORE_PAGE_SIZE)
    for banner in ("store-demo-banner", "store-config-banner", "store-error-banner"):
        expect(page.get_by_test_id(banner)).to_have_count(0)
    image = cards.first.locator("img")
    expect(image).to_have_attribute("srcset", re.compile(r"cdn\.shopify\.com/.*width=320 320w, .*width=640 640w"))
    page.get_by_role("button", name="Load More").click()
    expect(cards).to_have_count(active)
    titles = card_titles(page)
    assert len(set(titles)) == len(titles), "Load More repeated a product"
    expect(page.get_by_role("button", name="Load More")).to_have_count(0)

    # The store starts failing with 5xx: after the client's bounded retries, the spec's toast.
    fake.fail_with(503, times=None, match="StoreProducts")
    page.get_by_placeholder("Search by title...").fill("zz-not-cached")
    toast = page.locator("[data-sonner-toast]")
    expect(toast.get_by_text("Error Loading Products", exact=True)).to_be_visible(timeout=20_000)
    expect(toast.get_by_text(PRODUCTS_FAILED, exact=True)).to_be_visible()

    # Shopify's bot protection (430): not retried, the product page's toast at once.
    fake.clear_faults()
    fake.fail_with(430, times=None, match="StoreProductById")
    open_page(page, f"/shopify/product/{FAKE_KAPPA_CAP}")
    expect(toast.get_by_text("Error Loading Product", exact=True)).to_be_visible()
    expect(toast.get_by_text(PRODUCT_FAILED, exact=True)).to_be_visible()
    assert {r.status for r in fake.requests_to("storefront", "StoreProductById")} == {430}


@pytest.mark.reconfigures_store
def test_a_connected_store_searches_filters_by_collection_and_shows_every_variant(
    page: Page, fake: FakeShopifyServer
) -> None:
    (hostile,) = fake.add_products(1, title=f"Retro {HOSTILE_SEARCH} Shirt")
    variant_ids = fake.set_variant_count(FAKE_KAPPA_TEE, 300)
    open_page(page, "/shopify")
    cards = page.get_by_test_id("store-product-card")
    expect(cards).to_have_count(STORE_PAGE_SIZE)

    # Quotes, a colon and OR in the text do not change the search: one title holds exactly that.
    page.get_by_placeholder("Search by title...").fill(HOSTILE_SEARCH)
    expect(cards).to_have_count(1)
    expect(cards.first.get_by_role("link").first).to_have_attribute("href", f"/shopify/product/{hostile}")
    searches = [r.variables.get("query") for r in fake.requests_to("storefront", "StoreProducts")]
    assert 'title:"tee\\" OR title\\:*"' in searches

    page.get_by_placeholder("Search by title...").fill("")
    expect(cards).to_have_count(STORE_PAGE_SIZE)
    page.get_by_role("combobox", name="Collection").click()
    page.get_by_role("option", name="Caps", exact=True).click()
    expect(cards).to_have_count(5)
    assert all(title.endswith("Cap") for title in card_titles(page))

    open_page(page, f"/shopify/product/{FAKE_KAPPA_TEE}")
    expect(page.get_by_role("heading", name="Kappa Diamond Tee")).to_be_visible()
    page.get_by_role("combobox", name="Size").click()
    options = page.get_by_role("option")
    expect(options).to_have_count(len(variant_ids))
    options.last.scroll_into_view_if_needed()
    options.last.click()
    expect(page.get_by_role("button", name="Add to Cart")).to_be_enabled()


@pytest.mark.reconfigures_store
def test_a_cdn_image_that_fails_to_load_shows_the_placeholder(page: Page, fake: FakeShopifyServer) -> None:
    page.route(CDN_IMAGES, lambda route: route.fulfill(status=404, content_type="text/plain", body="missing"))
    open_page(page, "/shopify")
    image = page.get_by_test_id("store-product-card").first.locator("img")
    expect_the_placeholder(page, image)
    expect(image).not_to_have_attribute("srcset", re.compile("."))


@pytest.mark.reconfigures_store
def test_a_store_refusing_the_token_shows_the_warning_the_error_banner_and_the_toasts(
    page: Page, store: StoreServer, store_process: StoreProcess, shared_fake: FakeShopifyServer, tmp_path: Path
) -> None:
    shared_fake.reset()
    with reconfigured_store(store, store_process, tmp_path, shopify_settings(shared_fake, "sf_wrong")):
        open_page(page, "/shopify")
        expect(page.get_by_test_id("store-config-banner")).to_be_visible()
        error_banner = page.get_by_test_id("store-error-banner")
        expect(error_banner).to_be_visible()
        expect(error_banner.get_by_role("link")).to_have_attribute("href", "/admin/login")
        toast = page.locator("[data-sonner-toast]")
        # Both calls fail; one toast is shown at a time, so either title may be the one on top.
        expect(
            toast.get_by_text("Error Loading Products", exact=True)
            .or_(toast.get_by_text("Error Loading Collections", exact=True))
            .first
        ).to_be_visible()
        expect(page.get_by_text(PRODUCTS_FAILED).first).to_be_visible()

        open_page(page, "/shopify/product/8123456700001")
        expect(toast.get_by_text("Error Loading Product", exact=True)).to_be_visible()
        expect(toast.get_by_text(PRODUCT_FAILED, exact=True)).to_be_visible()


def _computed(locator: Locator, properties: tuple[str, ...]) -> dict[str, str]:
    """The computed values of CSS `properties` on the element."""
    return locator.evaluate(
        "(el, names) => Object.fromEntries(names.map(n => [n, getComputedStyle(el).getPropertyValue(n)]))",
        list(properties),
    )


@pytest.mark.parametrize(
    ("product_id", "tag", "marker"), [(CLASSIC_CREW_TEE, "ul", "disc"), (KIDS_CREWNECK, "ol", "decimal")]
)
def test_description_lists_keep_their_bullets_or_numbers_and_indent(
    page: Page, product_id: str, tag: str, marker: str
) -> None:
    open_page(page, f"/shopify/product/{product_id}")
    listing = page.get_by_test_id("store-product-description").locator(tag)
    expect(listing).to_be_visible()
    style = _computed(listing, ("list-style-type", "padding-left"))
    assert style["list-style-type"] == marker, style
    assert float(style["padding-left"].removesuffix("px")) >= 16, style
    assert _computed(listing.locator("li").first, ("display",))["display"] == "list-item"


def test_description_tables_space_their_cells(page: Page) -> None:
    open_page(page, f"/shopify/product/{PULLOVER_HOODIE}")
    cell = page.get_by_test_id("store-product-description").locator("td").first
    expect(cell).to_be_visible()
    style = _computed(cell, ("padding-left", "padding-top"))
    assert float(style["padding-left"].removesuffix("px")) >= 8, style
    assert float(style["padding-top"].removesuffix("px")) >= 4, style
