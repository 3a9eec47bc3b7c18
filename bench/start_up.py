"""The `start-up` part of `make bench` (issue 34): does each page paint before the app starts, how
long the app takes to start and hydrate, and how soon a tap on Quick Add opens its menu, on a phone's
screen at a 4x slower CPU (Chrome's CPU throttling, as Lighthouse's mobile preset assumes)."""

from __future__ import annotations

import statistics
from typing import Any

from playwright.sync_api import Browser

from bench.report import Row, limit_row
from storefront.web.html_first import APP_START_MARK, HYDRATED_MARK

PHONE = {"width": 390, "height": 844}
SLOWER_CPU = 4
REPEATS = 3
QUICK_ADD_TARGET_MS = 200
#: Quick Add on a card whose product comes in several colours or sizes: it opens a menu.
MENU_TRIGGER = "[data-replay^='quick-add:'][aria-haspopup='menu']"
_MARKS = """() => Object.fromEntries([...performance.getEntriesByType('paint'), ...performance.getEntriesByType('mark')]
  .map(e => [e.name, e.startTime]))"""
#: ms from the tap's pointerdown to the menu in the page.
_MENU_OPENS = """() => { window.__menu = new Promise((resolve) => {
  let start = null;
  document.addEventListener('pointerdown', (e) => { if (start === null) start = e.timeStamp; }, true);
  new MutationObserver((_, observer) => {
    if (start !== null && document.querySelector('[role=menu]')) {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  }).observe(document.body, {subtree: true, childList: true});
}); }"""


def _phone_page(browser: Browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=False)
    page = context.new_page()
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": SLOWER_CPU})
    return context, page


def start_marks(browser: Browser, url: str) -> dict[str, float]:
    """One cold load's first contentful paint, app start and hydration (ms since navigation)."""
    context, page = _phone_page(browser)
    try:
        page.goto(url, wait_until="load", timeout=60_000)
        page.wait_for_function(f"() => performance.getEntriesByName('{HYDRATED_MARK}').length > 0", timeout=60_000)
        return page.evaluate(_MARKS)
    finally:
        context.close()


def quick_add_opens_ms(browser: Browser, products_url: str) -> float:
    """After the page has loaded and shown its own cards: a tap on Quick Add until its menu is there."""
    context, page = _phone_page(browser)
    try:
        page.goto(products_url, wait_until="load", timeout=60_000)
        page.wait_for_function("() => !document.querySelector('[data-first-view]:not(:empty)')", timeout=60_000)
        page.wait_for_load_state("networkidle", timeout=60_000)
        trigger = page.locator(MENU_TRIGGER).first
        trigger.scroll_into_view_if_needed()
        page.evaluate(_MENU_OPENS)
        trigger.click()
        return float(page.evaluate("window.__menu"))
    finally:
        context.close()


def start_up_rows(browser: Browser, pages: dict[str, str]) -> tuple[list[Row], dict[str, Any]]:
    section = f"start-up (phone, {SLOWER_CPU}x slower CPU, median of {REPEATS})"
    rows: list[Row] = []
    raw: dict[str, Any] = {}
    for name, url in pages.items():
        marks = [start_marks(browser, url) for _ in range(REPEATS)]
        raw[name] = marks
        fcp = statistics.median(m.get("first-contentful-paint", float("nan")) for m in marks)
        start = statistics.median(m.get(APP_START_MARK, float("nan")) for m in marks)
        hydrated = statistics.median(m.get(HYDRATED_MARK, float("nan")) for m in marks)
        painted_first = all(m.get("first-contentful-paint", 1e9) <= m.get(APP_START_MARK, -1) for m in marks)
        rows.append(Row(section, f"{name} first paint, then app start", f"{fcp:.0f} ms, then {start:.0f} ms",
                        "", None, "paint first", painted_first))
        rows.append(limit_row(section, f"{name} app start -> hydrated", hydrated - start, "ms"))
    if "/products" in pages:
        taps = [quick_add_opens_ms(browser, pages["/products"]) for _ in range(REPEATS)]
        raw["quick_add_opens_ms"] = taps
        rows.append(limit_row(section, "after load, tap on Quick Add -> its menu", statistics.median(taps), "ms",
                              at_most=QUICK_ADD_TARGET_MS))
    return rows, {"start_up": raw}
