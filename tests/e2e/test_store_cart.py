"""Store-catalogue lines in the cart: their own group and checkout on the store, never ours."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from storefront.services.shopify.catalogue import parse_product
from storefront.services.shopify.demo import DemoStoreCatalogue
from tests.e2e.browser import open_page
from tests.e2e.conftest import SharedStore, StoreProcess, StoreServer, shared_store
from tests.e2e.test_shopping import TEST_CARD, add_to_cart, fill_checkout, open_checkout, place_order, product_links
from tests.fakes.shopify_server import SHOP, FakeShopifyServer

STORE_NOTE = "The store catalogue is in demo mode: checking out these items needs a connected Shopify store"


def demo_store_pick(tmp_path) -> tuple[dict, dict]:  # type: ignore[no-untyped-def]
    """A product of the demo store catalogue (what the test store serves) and its last variant."""
    raw = DemoStoreCatalogue(media_dir=tmp_path).raw_products()[0]
    product = parse_product(raw)
    variant = product.variants[-1]
    return raw, {"id": str(variant.id), "title": variant.title, "price_cents": variant.price_cents}


def seed_store_line(page: Page, raw: dict, variant: dict, quantity: int = 2) -> None:
    """Put a store-catalogue line into the browser's stored cart, next to whatever is there."""
    lines = json.loads(page.evaluate("() => localStorage.getItem('cart-storage') || '[]'"))
    lines.append({
        "id": str(raw["id"]), "name": raw["title"], "price": 1.0, "size": variant["title"], "image": "",
        "quantity": quantity, "variantId": variant["id"], "source": "shopify",
        "variantGid": f"gid://shopify/ProductVariant/{variant['id']}",
    })
    page.evaluate("lines => localStorage.setItem('cart-storage', JSON.stringify(lines))", lines)


@pytest.fixture(scope="module")
def shared_fake() -> Iterator[FakeShopifyServer]:
    with FakeShopifyServer() as fake:
        yield fake


@pytest.fixture(scope="module")
def connected_settings(shared_fake: FakeShopifyServer, tmp_path_factory: pytest.TempPathFactory) -> SharedStore:
    return shared_store(tmp_path_factory, "shopify-connected", connected(shared_fake))


@pytest.fixture
def fake(
    store: StoreServer, store_process: StoreProcess, shared_fake: FakeShopifyServer, connected_settings: SharedStore
) -> FakeShopifyServer:
    """The module's fake Shopify, reset to its seed, with the store connected to it (shared by the
    module's tests; its answers' cache does not matter: no two tests read the same product)."""
    shared_fake.reset()
    connected_settings.serve(store_process)
    return shared_fake


def dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def test_the_cart_groups_store_lines_apart_from_ours(page: Page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw, variant = demo_store_pick(tmp_path)
    add_to_cart(page, product_links(page, "tee")[0], "M")
    seed_store_line(page, raw, variant, quantity=2)
    open_page(page, "/cart")

    ours = page.get_by_test_id("own-lines").get_by_test_id("cart-line")
    store_group = page.get_by_test_id("store-group")
    expect(ours).to_have_count(1)
    expect(store_group.get_by_test_id("cart-line")).to_have_count(1)
    expect(store_group.get_by_text(raw["title"], exact=True)).to_be_visible()
    expect(store_group.get_by_test_id("line-options")).to_have_text(variant["title"])
    # The browser's price of 1.00 is not believed: the store line is repriced from the store.
    expect(store_group.get_by_text(dollars(2 * variant["price_cents"]), exact=True).first).to_be_visible()

    # Our order summary counts only our line.
    our_line_total = ours.locator("span, p").filter(has_text=re.compile(r"^\$")).last.inner_text()
    summary = page.get_by_test_id("order-summary")
    expect(summary.get_by_text(our_line_total, exact=True).first).to_be_visible()

    # Demo mode: the store's Checkout button explains that it needs a connected store.
    button = store_group.get_by_test_id("store-checkout")
    expect(button).to_be_disabled()
    expect(button).to_have_text(re.compile(r"^Checkout on "))
    expect(store_group.get_by_test_id("store-checkout-note")).to_contain_text(STORE_NOTE)

    # Our checkout dialog sells only our line.
    page.get_by_role("button", name="Checkout", exact=True).click()
    dialog = page.get_by_role("dialog", name="Complete Your Order")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text(raw["title"])).to_have_count(0)


def test_a_cart_of_store_lines_only_shows_no_checkout_of_ours(page: Page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw, variant = demo_store_pick(tmp_path)
    open_page(page, "/")
    seed_store_line(page, raw, variant, quantity=1)
    open_page(page, "/cart")
    expect(page.get_by_test_id("store-group").get_by_test_id("cart-line")).to_have_count(1)
    expect(page.get_by_test_id("order-summary")).to_have_count(0)
    expect(page.get_by_role("button", name="Checkout", exact=True)).to_have_count(0)
    expect(page.get_by_test_id("cart-badge")).to_have_text("1")

    # The quantity buttons work on the store line like on ours.
    page.get_by_test_id("store-group").get_by_role("button", name="Increase quantity").click()
    expect(page.get_by_test_id("store-group").get_by_test_id("line-quantity")).to_have_text("2")
    page.get_by_test_id("store-group").get_by_role("button", name="Remove").click()
    expect(page.get_by_text("Your cart is empty", exact=True)).to_be_visible()


@pytest.mark.reconfigures_store
def test_add_to_cart_on_a_connected_store_product_page_adds_a_store_line(page: Page, fake: FakeShopifyServer) -> None:
    one_variant = next(
        p for _, p in sorted(fake.products.items()) if p["status"] == "active" and len(p["variants"]) == 1
    )
    open_page(page, f"/shopify/product/{one_variant['id']}")
    page.get_by_role("button", name="Add to Cart").click()
    expect(page.get_by_text("Added to Cart", exact=True)).to_be_visible()
    page.wait_for_function("() => (localStorage.getItem('cart-storage') || '').includes('shopify')")
    (line,) = json.loads(page.evaluate("() => localStorage.getItem('cart-storage')"))
    variant = one_variant["variants"][0]
    assert (line["id"], line["variantId"], line["size"], line["source"], line["variantGid"]) == (
        str(one_variant["id"]), str(variant["id"]), variant["title"], "shopify",
        f"gid://shopify/ProductVariant/{variant['id']}")
    assert line["price"] == float(variant["price"])
    open_page(page, "/cart")
    expect(page.get_by_test_id("store-group").get_by_text(one_variant["title"], exact=True)).to_be_visible()


def connected(fake: FakeShopifyServer) -> dict[str, str]:
    return {"SHOPIFY_STORE_DOMAIN": fake.domain, "SHOPIFY_STOREFRONT_TOKEN": fake.token,
            "SHOPIFY_API_BASE": fake.base_url}


@pytest.mark.reconfigures_store
def test_checkout_on_the_store_opens_its_checkout_holding_the_lines_or_says_what_is_sold_out(
    page: Page, fake: FakeShopifyServer
) -> None:
    tee, hoodie = fake.active_products()[0], fake.active_products()[1]
    chosen = [(tee, tee["variants"][2], 3), (hoodie, hoodie["variants"][0], 1)]
    open_page(page, "/")
    for raw, variant, quantity in chosen:
        seed_store_line(page, raw, {"id": str(variant["id"]), "title": variant["title"]}, quantity)
    open_page(page, "/cart")
    group = page.get_by_test_id("store-group")
    button = group.get_by_test_id("store-checkout")
    expect(button).to_have_text(f"Checkout on {SHOP['name']}")
    expect(group.get_by_test_id("store-checkout-note")).to_have_count(0)

    # A sold-out line: the store says so, the shopper reads why and stays on the cart.
    fake.set_stock(chosen[1][1]["id"], 0)
    button.click()
    problem = group.get_by_test_id("store-checkout-problem")
    expect(problem).to_have_text(f"{hoodie['title']} - {chosen[1][1]['title']} is sold out. "
                                 "Please remove it from your cart.")
    expect(page).to_have_url(re.compile(r"/cart$"))

    group.get_by_role("button", name="Remove").last.click()
    expect(problem).to_have_count(0)
    button.click()
    expect(page).to_have_url(re.compile(re.escape(fake.base_url) + r"/cart/c/[0-9a-f]+\?key="))
    lines = page.get_by_test_id("checkout-line")
    expect(lines).to_have_count(1)
    expect(lines).to_have_text(f"{tee['title']} - {chosen[0][1]['title']} x 3")
    token = page.url.split("/cart/c/")[1].split("?")[0]
    assert fake.cart_lines(token) == [(chosen[0][1]["id"], 3)]


def test_paying_for_our_lines_keeps_the_store_lines_in_the_cart(page: Page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw, variant = demo_store_pick(tmp_path)
    add_to_cart(page, product_links(page, "tee")[0], "M")
    seed_store_line(page, raw, variant, quantity=2)
    open_checkout(page)
    fill_checkout(page, TEST_CARD)
    place_order(page)
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    kept = json.loads(page.evaluate("() => localStorage.getItem('cart-storage') || '[]'"))
    assert [(line["id"], line.get("source"), line["quantity"]) for line in kept] == [(str(raw["id"]), "shopify", 2)]
    open_page(page, "/cart")
    expect(page.get_by_test_id("store-group").get_by_test_id("cart-line")).to_have_count(1)
    expect(page.get_by_test_id("own-lines")).to_have_count(0)
