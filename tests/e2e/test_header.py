"""The header in a real browser: one line at every width, and its search field."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from storefront.services.printify.demo_catalogue import demo_catalogue
from storefront.state.catalog import PRODUCTS_PAGE_SIZE
from tests.e2e.browser import open_page

WIDTHS = (320, 390, 768, 1024, 1100, 1140, 1280, 1920)
HOODIES = sorted(
    p["title"] for p in demo_catalogue() if p["visible"] and p["is_published"] and "hoodie" in p["title"].lower()
)
LISTING_SEARCH = "Search products..."

# What breaks the bar at the current width: a text broken onto two lines, or anything sticking
# out of the bar (below it, or past the window's edges).
_BAR_FAULTS = """(header) => {
    const bar = header.firstElementChild;
    const box = bar.getBoundingClientRect();
    const faults = [];
    const walker = document.createTreeWalker(bar, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const node = walker.currentNode;
        const text = node.textContent.trim();
        if (!text) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
        if (!rects.length) continue;  // hidden at this width
        if (new Set(rects.map(r => Math.round(r.top))).size > 1) faults.push(`'${text}' wraps`);
        for (const r of rects) {
            if (r.top < box.top - 1 || r.bottom > box.bottom + 1) faults.push(`'${text}' leaves the bar`);
            if (r.left < -1 || r.right > window.innerWidth + 1) faults.push(`'${text}' leaves the window`);
        }
    }
    for (const el of bar.querySelectorAll('a, button')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        if (r.left < -1 || r.right > window.innerWidth + 1) {
            faults.push(`${el.outerHTML.slice(0, 60)} leaves the window`);
        }
    }
    if (bar.scrollWidth > bar.clientWidth + 1) faults.push('the bar scrolls sideways');
    return faults;
}"""


def header_height(page: Page) -> float:
    return page.locator("header").first.bounding_box()["height"]


def test_the_header_stays_on_one_line_from_320_to_1920_px(page: Page) -> None:
    open_page(page, "/")
    page.set_viewport_size({"width": 1920, "height": 900})
    one_line = header_height(page)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        faults = page.locator("header").first.evaluate(_BAR_FAULTS)
        assert faults == [], f"at {width} px: {faults}"
        assert header_height(page) == one_line, f"at {width} px the header is {header_height(page)} px high"


def card_names(page: Page) -> list[str]:
    return sorted(page.get_by_test_id("product-card").get_by_test_id("product-name").all_text_contents())


def listing_search(page: Page) -> Locator:
    return page.get_by_role("main").get_by_placeholder(LISTING_SEARCH)


def expect_hoodies_only(page: Page) -> None:
    expect(page.get_by_test_id("product-card")).to_have_count(len(HOODIES))
    assert card_names(page) == HOODIES
    expect(listing_search(page)).to_have_value("hoodie")


def search_from_the_header(page: Page, text: str) -> None:
    page.locator("header").get_by_role("button", name="Search", exact=True).click()
    field = page.get_by_role("dialog").get_by_role("searchbox", name="Search products")
    expect(field).to_be_focused()
    field.fill(text)
    field.press("Enter")
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_the_header_search_lands_on_the_listing_with_the_query_kept_through_a_reload(page: Page) -> None:
    open_page(page, "/")
    search_from_the_header(page, "hoodie")
    expect(page).to_have_url(re.compile(r"/products\?q=hoodie$"))
    expect_hoodies_only(page)
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_hoodies_only(page)


def test_the_header_search_on_a_phone_opens_a_sheet_and_searches(phone_page: Page) -> None:
    open_page(phone_page, "/tours-and-events")
    search_from_the_header(phone_page, "hoodie")
    expect(phone_page).to_have_url(re.compile(r"/products\?q=hoodie$"))
    expect_hoodies_only(phone_page)


def test_the_header_search_from_the_listing_replaces_its_query(page: Page) -> None:
    open_page(page, "/products?q=tee")
    expect(listing_search(page)).to_have_value("tee")
    search_from_the_header(page, "hoodie")
    expect(page).to_have_url(re.compile(r"/products\?q=hoodie$"))
    expect_hoodies_only(page)


def test_opening_the_listing_with_a_query_applies_it(page: Page) -> None:
    open_page(page, "/products?q=hoodie")
    expect_hoodies_only(page)


def test_typing_in_the_listing_search_keeps_the_query_in_the_url(page: Page) -> None:
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.first).to_be_visible()
    listing_search(page).fill("hoodie")
    expect(page).to_have_url(re.compile(r"/products\?q=hoodie$"))
    expect_hoodies_only(page)
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_hoodies_only(page)
    listing_search(page).fill("")
    expect(page).to_have_url(re.compile(r"/products$"))
    expect(cards).to_have_count(PRODUCTS_PAGE_SIZE)


def test_the_frame_the_brand_and_the_footer_draw_from_static_classes(page: Page) -> None:
    """The parts on every page carry the store's classes (assets/styles.css), not classes Emotion
    generates and inserts while the app starts; and they look as they did."""
    open_page(page, "/products")
    generated = page.evaluate(
        """() => [...document.querySelectorAll('[data-hydrated], header, header > div:first-child, .sf-brand,'
            + ' .sf-brand *, footer, footer *')]
            .filter((el) => [...el.classList].some((c) => c.startsWith('css-')))
            .map((el) => el.outerHTML.slice(0, 120))"""
    )
    assert generated == []
    header = page.locator("header")
    expect(header).to_have_css("position", "sticky")
    expect(header).to_have_css("backdrop-filter", "blur(8px)")
    expect(page.locator(".sf-brand-title")).to_have_css("color", "rgb(155, 17, 30)")
    expect(page.locator(".sf-brand-title")).to_have_css("font-weight", "800")
    footer_link = page.locator("footer").get_by_role("link", name="Order status")
    expect(footer_link).to_have_css("font-size", "13.6px")
    colour = footer_link.evaluate("(a) => getComputedStyle(a).color")
    footer_link.hover()
    expect(footer_link).not_to_have_css("color", colour)  # sf-link's hover
