"""Colours in a real browser: swatches on the product page, the image that follows them, and a
cart that keeps each colour apart."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import open_page
from tests.e2e.test_shopping import badge_count, product_links


def swatch_names(page: Page) -> list[str]:
    """The colour names of the product page's swatches, in order."""
    swatches = page.get_by_test_id("color-swatch")
    expect(swatches.first).to_be_visible()
    return [swatches.nth(i).get_attribute("aria-label") or "" for i in range(swatches.count())]


#: A product image is one of its prepared renditions, never the provider's address.
RENDITION = re.compile(r"^/media/[0-9a-f]{24}-\d+\.webp$")


def main_image(page: Page) -> Locator:
    return page.get_by_test_id("product-image").locator("img")


def add_size(page: Page, size: str) -> None:
    radio = page.get_by_role("radio", name=size, exact=True)
    radio.click()
    expect(radio).to_be_checked()
    page.get_by_role("button", name="Add to Cart").click()


def test_the_chosen_colour_changes_the_image_and_each_colour_is_its_own_cart_line(page: Page) -> None:
    # Every demo Vintage Tee comes in two colours, the second without 2XL and 3XL.
    open_page(page, product_links(page, "vintage tee")[0])
    first, second = swatch_names(page)
    expect(page.get_by_role("button", name=first, exact=True)).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("selected-color")).to_have_text(first)
    first_image = main_image(page).get_attribute("src")
    expect(page.get_by_role("radio", name="2XL", exact=True)).to_be_enabled()

    page.get_by_role("button", name=second, exact=True).click()
    expect(page.get_by_role("button", name=second, exact=True)).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name=first, exact=True)).to_have_attribute("aria-pressed", "false")
    expect(main_image(page)).not_to_have_attribute("src", first_image or "")
    expect(main_image(page)).to_have_attribute("src", RENDITION)
    second_image = main_image(page).get_attribute("src")
    expect(page.get_by_role("radio", name="2XL", exact=True)).to_be_disabled()

    name = page.get_by_role("heading", level=1).inner_text().strip()
    add_size(page, "M")
    expect(page.get_by_text(f"{name} - Size M · {second}", exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_text("1")

    page.get_by_role("button", name=first, exact=True).click()
    expect(main_image(page)).to_have_attribute("src", first_image or "")
    page.get_by_role("button", name="Add to Cart").click()  # M stays chosen: the first colour has it
    expect(badge_count(page)).to_have_text("2")

    open_page(page, "/cart")
    lines = page.get_by_test_id("cart-line")
    expect(lines).to_have_count(2)
    expect(lines.get_by_test_id("line-options")).to_have_text(
        [f"Size: M · Color: {second}", f"Size: M · Color: {first}"]
    )
    expect(lines.nth(0).locator("img")).to_have_attribute("src", second_image or "")


def test_a_product_in_one_colour_shows_no_swatches(page: Page) -> None:
    # The demo Crewneck Sweatshirts are sold in their first colour only.
    open_page(page, product_links(page, "crewneck sweatshirt")[0])
    expect(page.get_by_text("Select Size", exact=True)).to_be_visible()
    expect(page.get_by_test_id("color-swatch")).to_have_count(0)
    expect(page.get_by_text("Color", exact=True)).to_have_count(0)


def test_quick_add_offers_each_colours_sizes(page: Page) -> None:
    open_page(page, "/products")
    card = page.get_by_test_id("product-card").filter(has_text=re.compile("classic tee", re.I)).first
    name = (card.get_by_test_id("product-name").text_content() or "").strip()
    card.get_by_role("button", name="Quick Add").click()
    colours = page.get_by_role("menu").get_by_role("menuitem")
    expect(colours).to_have_count(2)
    second = colours.nth(1).inner_text().strip()
    colours.nth(1).click()
    page.get_by_role("menuitem", name="L", exact=True).click()
    expect(page.get_by_text(f"{name} - Size L · {second}", exact=True)).to_be_visible()

    open_page(page, "/cart")
    expect(page.get_by_test_id("line-options")).to_have_text([f"Size: L · Color: {second}"])
