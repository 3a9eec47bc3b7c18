"""Quick Add in a real browser: a product with several sizes offers a size menu on its card."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import open_page
from tests.e2e.test_shopping import badge_count


def multi_size_card(page: Page) -> Locator:
    """The first listed crewneck sweatshirt card (every demo one comes in one colour and several
    sizes, L among them; products in several colours get a colour menu, see test_colours)."""
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.first).to_be_visible()
    return cards.filter(has_text=re.compile("crewneck sweatshirt", re.I)).first


def price_shown_for_size(page: Page, href: str, size: str) -> str:
    """The price the product page shows once `size` is selected."""
    open_page(page, href)
    radio = page.get_by_role("radio", name=size, exact=True)
    radio.click()
    expect(radio).to_be_checked()
    return page.get_by_test_id("product-price").inner_text().strip()


def test_quick_add_menu_adds_the_chosen_size_at_that_sizes_price(page: Page) -> None:
    card = multi_size_card(page)
    href = card.get_by_role("link").first.get_attribute("href")
    name = (card.get_by_test_id("product-name").text_content() or "").strip()
    assert href

    quick_add = card.get_by_role("button", name="Quick Add")
    expect(quick_add).to_have_attribute("aria-haspopup", "menu")
    quick_add.click()
    page.get_by_role("menuitem", name="L", exact=True).click()
    expect(page.get_by_text("Added to cart", exact=True)).to_be_visible()
    expect(page.get_by_text(f"{name} - Size L", exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_text("1")

    expected_price = price_shown_for_size(page, href, "L")
    assert re.fullmatch(r"\$[\d,]+\.\d{2}", expected_price), expected_price

    open_page(page, "/cart")
    line = page.get_by_test_id("cart-line")
    expect(line).to_have_count(1)
    expect(line).to_contain_text(name)
    expect(line).to_contain_text("Size: L")
    expect(line.get_by_text(expected_price, exact=True).first).to_be_visible()


def test_a_listing_mounts_one_menu_only_when_a_quick_add_is_used_and_the_keyboard_opens_it(page: Page) -> None:
    card = multi_size_card(page)
    menu_triggers = page.locator("[data-replay^='quick-add:'][data-state]")  # Radix marks its triggers
    expect(menu_triggers).to_have_count(0)

    quick_add = card.get_by_role("button", name="Quick Add")
    quick_add.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("menu")).to_be_visible()
    expect(menu_triggers).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu")).to_have_count(0)

    card.get_by_role("button", name="Quick Add").click()
    page.get_by_role("menuitem", name="L", exact=True).click()
    expect(badge_count(page)).to_have_text("1")
