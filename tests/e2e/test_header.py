"""The header in a real browser: one line at every width."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.browser import open_page

WIDTHS = (320, 390, 768, 1024, 1100, 1140, 1280, 1920)

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
        if (r.left < -1 || r.right > window.innerWidth + 1) faults.push(`${el.outerHTML.slice(0, 60)} leaves the window`);
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

