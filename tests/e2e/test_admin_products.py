"""Create, publish and re-price a product in the back office, and see it on the storefront."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Browser, Page, expect

from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from tests.designs import design_png
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page

TOKEN_KEY = "admin-token"


def _choose(page: Page, label: str, option: str) -> None:
    """Pick an option of a select by its label."""
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option).click()


def _toast(page: Page, text: str) -> None:
    expect(page.get_by_text(text, exact=True)).to_be_visible()


def _choose_design(page: Page, png: bytes) -> None:
    """Drop a design on the create form's drop zone and wait for its check."""
    zone = page.get_by_test_id("design-upload")
    zone.locator("input[type=file]").set_input_files({"name": "design.png", "mimeType": "image/png", "buffer": png})
    expect(page.get_by_test_id("design-info")).to_contain_text("dpi")


def _create_product(page: Page, title: str, price: str) -> None:
    """Create an unpublished hoodie on /admin/products."""
    open_page(page, "/admin/products")
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("Description", exact=True).fill("A warm hoodie made by the browser test.")
    _choose_design(page, design_png())
    _choose(page, "Product type", "Unisex Hoodie")
    _choose(page, "Print provider", "SwiftPOD")
    page.get_by_label("Price (USD)", exact=True).fill(price)
    page.get_by_role("button", name="Create Product").click()
    _toast(page, "Product created successfully")


def _take_off_storefront(page: Page, title: str) -> None:
    """Unpublish the test's product through the admin API, so later tests see the demo listing only."""
    token = (page.evaluate(f"() => localStorage.getItem('{TOKEN_KEY}')") or "").strip('"')
    headers = {"x-admin-token": token}
    products = f"/api/printify/shops/{DEMO_SHOP_ID}/products"
    found = page.request.get(products, params={"q": title}, headers=headers)
    assert found.ok, found.text()
    for product in found.json()["data"]:
        if product["is_published"]:
            answer = page.request.post(f"{products}/{product['id']}/unpublish", headers=headers)
            assert answer.ok, answer.text()


def _storefront_link(shopper: Page, title: str, price: str) -> str:
    """Find the product on /products as a shopper; returns its product page."""
    open_page(shopper, "/products")
    shopper.get_by_placeholder("Search products...").fill(title)
    card = shopper.get_by_test_id("product-card").filter(has_text=title)
    expect(card).to_have_count(1)
    expect(card.get_by_test_id("product-price")).to_have_text(price)
    href = card.get_by_role("link").first.get_attribute("href")
    assert href and href.startswith("/product/"), href
    return href


def test_a_product_created_and_published_in_the_back_office_sells_at_its_price_and_a_price_sync_reaches_it(
    page: Page, browser: Browser, store_url: str
) -> None:
    title = f"Admin Test Hoodie {uuid.uuid4().hex[:6]}"
    sign_in(page)
    shopper = browser.new_context(base_url=store_url, viewport={"width": 1280, "height": 900}).new_page()
    try:
        _create_product(page, title, "31.50")
        expect(page.get_by_role("heading", name="Product Management")).to_be_visible()

        page.get_by_role("tab", name="Publish Product").click()
        _choose(page, "Product", f"{title} (Unpublished)")
        page.get_by_role("button", name="Publish Product").click()
        _toast(page, "Product published successfully")

        href = _storefront_link(shopper, title, "$31.50")

        open_page(page, "/admin/dashboard")
        open_tab(page, "Sync & Pricing")
        row = page.get_by_test_id("price-row").filter(has_text=title)
        expect(row.get_by_test_id("current-price")).to_have_text("$31.50")
        row.get_by_label("New price").fill("33.00")
        row.get_by_role("button", name="Sync Price").click()
        page.get_by_role("alertdialog").get_by_role("button", name="Sync Price").click()
        _toast(page, "Price Synced")
        expect(row.get_by_test_id("current-price")).to_have_text("$33.00")

        open_page(shopper, href)
        expect(shopper.get_by_role("heading", name=title)).to_be_visible()
        expect(shopper.get_by_test_id("product-price")).to_have_text("$33.00")
    finally:
        shopper.context.close()
        _take_off_storefront(page, title)


def test_the_create_form_shows_the_specs_field_messages(page: Page) -> None:
    sign_in(page)
    open_page(page, "/admin/products")
    page.get_by_label("Title", exact=True).fill("ab")
    page.get_by_label("Description", exact=True).fill("short")
    page.get_by_role("button", name="Create Product").click()
    expect(page.get_by_test_id("error-title")).to_have_text("Title must be at least 3 characters")
    expect(page.get_by_test_id("error-description")).to_have_text("Description must be at least 10 characters")


def test_publishing_without_a_product_asks_for_one(page: Page) -> None:
    sign_in(page)
    open_page(page, "/admin/products")
    page.get_by_role("tab", name="Publish Product").click()
    page.get_by_role("button", name="Publish Product").click()
    _toast(page, "Please select a product to publish")


def test_the_panel_prices_each_variant_publishes_and_the_margins_follow(page: Page) -> None:
    title = f"Admin Panel Hoodie {uuid.uuid4().hex[:6]}"
    sign_in(page)
    try:
        _create_product(page, title, "31.50")
        open_page(page, "/admin/dashboard")
        open_tab(page, "Sync & Pricing")

        panel = page.get_by_test_id("product-panel")
        panel.get_by_test_id("panel-product").filter(has_text=title).click()
        details = panel.get_by_test_id("panel-details")
        expect(details.get_by_role("heading", name=title)).to_be_visible()
        expect(details).to_contain_text("Unpublished")
        expect(details.get_by_test_id("variant-preview")).to_contain_text(re.compile(r"\+\d+ more"))

        details.get_by_role("button", name="Edit Product").click()
        expect(panel.get_by_role("tab", name="Pricing")).to_have_attribute("aria-selected", "true")
        panel.get_by_test_id("variant-price").first.get_by_role("spinbutton").fill("40.00")
        panel.get_by_role("button", name="Save Prices").click()
        _toast(page, "Product Updated")

        panel.get_by_role("tab", name="Publishing").click()
        panel.get_by_role("button", name="Publish", exact=True).click()
        _toast(page, "Product published successfully")
        expect(panel.get_by_role("button", name="Republish")).to_be_visible()

        row = page.get_by_test_id("price-row").filter(has_text=title)
        expect(row).to_contain_text("Published")
        expect(row.get_by_test_id("current-price")).to_have_text("$40.00")
        row.get_by_role("button", name="Margins").click()
        margins = page.get_by_test_id("margins")
        expect(margins.get_by_role("heading")).to_have_text(f"Margins: {title}")
        first = margins.get_by_test_id("margin-row").first
        expect(first).to_contain_text("$40.00")
        expect(first).to_contain_text("%")

        panel.get_by_role("button", name="Unpublish").click()
        _toast(page, "Product Unpublished")
        expect(panel.get_by_role("button", name="Publish", exact=True)).to_be_visible()
    finally:
        _take_off_storefront(page, title)


def test_a_price_sync_refuses_an_invalid_price(page: Page) -> None:
    sign_in(page)
    open_tab(page, "Sync & Pricing")
    row = page.get_by_test_id("price-row").first
    row.get_by_label("New price").fill("-5")
    row.get_by_role("button", name="Sync Price").click()
    _toast(page, "Invalid price value")


def test_syncing_the_catalogue_shows_products_done_of_the_total_and_the_result(page: Page) -> None:
    sign_in(page)
    open_tab(page, "Sync & Pricing")
    page.get_by_role("button", name="Sync catalogue").click()
    _toast(page, "Catalogue Synced")
    expect(page.get_by_test_id("sync-count")).to_have_text(re.compile(r"^(\d+) / \1 products$"))
    expect(page.get_by_test_id("sync-progress").get_by_role("progressbar")).to_be_visible()
