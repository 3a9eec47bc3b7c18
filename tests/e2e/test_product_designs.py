"""Artwork in, product out: a design dropped on the Create Product form, placed with a preview,
printed on the colours and sizes ticked at prices with their margins shown, created with its
mockups, published and sold on the storefront with them."""

from __future__ import annotations

import uuid

from playwright.sync_api import Browser, Locator, Page, expect

from tests.designs import design_png
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.test_admin_products import _choose, _choose_design, _take_off_storefront, _toast


def _loaded(page: Page, image: Locator) -> None:
    """The <img> shows a picture (it did not fail to load)."""
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())


def test_a_design_becomes_a_published_product_with_its_mockups(page: Page, browser: Browser, store_url: str) -> None:
    title = f"Design Test Tee {uuid.uuid4().hex[:6]}"
    sign_in(page)
    shopper = browser.new_context(base_url=store_url, viewport={"width": 1280, "height": 900}).new_page()
    try:
        open_page(page, "/admin/products")
        page.get_by_label("Title", exact=True).fill(title)
        page.get_by_label("Description", exact=True).fill("A tee printed from the browser test's design.")
        _choose(page, "Product type", "Unisex Premium T-Shirt")
        _choose(page, "Print provider", "SwiftPOD")
        colours = page.get_by_test_id("colour-choices")
        expect(colours).to_contain_text("Black")
        colours.get_by_label("Black").uncheck()
        page.get_by_label("Price (USD)", exact=True).fill("30")
        margins = page.get_by_test_id("size-margins")
        # A tee at SwiftPOD costs $11.75 (2XL $13.25): every size keeps an $18.25 margin.
        expect(margins.get_by_role("row").filter(has_text="2XL")).to_contain_text("$31.50")
        expect(margins.get_by_role("row").filter(has_text="2XL")).to_contain_text("$18.25")

        _choose_design(page, design_png(1800, 2000))
        expect(page.get_by_test_id("design-warning")).to_contain_text("120 dpi")
        _loaded(page, page.get_by_test_id("design-preview"))
        page.get_by_label("Width (x print area)", exact=True).fill("0.8")
        expect(page.get_by_test_id("design-info")).to_contain_text("150 dpi")
        expect(page.get_by_test_id("design-warning")).to_have_count(0)

        page.get_by_role("button", name="Create Product").click()
        _toast(page, "Product created successfully")
        mockups = page.get_by_test_id("created-mockup")
        expect(mockups).to_have_count(1)  # one colour ticked: one mockup
        _loaded(page, mockups.first)

        page.get_by_role("tab", name="Publish Product").click()
        _choose(page, "Product", f"{title} (Unpublished)")
        page.get_by_role("button", name="Publish Product").click()
        _toast(page, "Product published successfully")

        open_page(shopper, "/products")
        shopper.get_by_placeholder("Search products...").fill(title)
        card = shopper.get_by_test_id("product-card").filter(has_text=title)
        expect(card).to_have_count(1)
        expect(card.get_by_test_id("product-price")).to_have_text("$30.00")
        _loaded(shopper, card.locator("img").first)

        # The editor's panel shows the product's mockup too.
        open_page(page, "/admin/dashboard")
        open_tab(page, "Sync & Pricing")
        panel = page.get_by_test_id("product-panel")
        panel.get_by_test_id("panel-product").filter(has_text=title).click()
        expect(panel.get_by_test_id("panel-mockup")).to_have_count(1)
        _loaded(page, panel.get_by_test_id("panel-mockup").first)
    finally:
        shopper.context.close()
        _take_off_storefront(page, title)


def test_a_product_without_a_design_is_refused_in_the_form(page: Page) -> None:
    sign_in(page)
    open_page(page, "/admin/products")
    page.get_by_label("Title", exact=True).fill("No Design Tee")
    page.get_by_label("Description", exact=True).fill("A tee with nothing printed on it.")
    _choose(page, "Product type", "Unisex Hoodie")
    _choose(page, "Print provider", "SwiftPOD")
    page.get_by_role("button", name="Create Product").click()
    expect(page.get_by_test_id("error-design")).to_have_text("Add a design to print")
