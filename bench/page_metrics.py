"""Browser measurements in headless Chromium: cold paints, transferred bytes, interaction latency."""

from __future__ import annotations

import functools
import json
import os
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import Browser, Page, WebSocket

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 900}
PRODUCT_NAME = "[data-testid=product-name]"

#: Records paint entries as they happen (LCP entries are only observable, not queryable).
_PAINT_OBSERVER = """
window.__paints = {fcp: null, lcp: null};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__paints.fcp = e.startTime;
}).observe({type: 'paint', buffered: true});
new PerformanceObserver((list) => {
  const entries = list.getEntries();
  window.__paints.lcp = entries[entries.length - 1].startTime;
}).observe({type: 'largest-contentful-paint', buffered: true});
"""
_TRANSFERRED = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  return (nav ? nav.transferSize : 0) + resources.reduce((sum, r) => sum + (r.transferSize || 0), 0);
}"""
#: Resolves with ms from the next trusted keydown/pointerdown to the first DOM change that `changed()` accepts.
_REACTION = """(changedSource) => { window.__reaction = new Promise((resolve) => {
  const changed = eval(changedSource);
  let start = null;
  const begin = (e) => { if (start === null) start = e.timeStamp; };
  document.addEventListener('keydown', begin, true);
  document.addEventListener('pointerdown', begin, true);
  new MutationObserver((_, observer) => {
    if (start !== null && changed()) { observer.disconnect(); resolve(performance.now() - start); }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}); }"""


@dataclass(frozen=True)
class ColdLoad:
    """One cold load of a page: first and largest contentful paint (ms) and bytes transferred."""

    fcp_ms: float
    lcp_ms: float
    transferred_bytes: int


def cold_load(browser: Browser, url: str, ready: str | None = None) -> ColdLoad:
    """Load `url` in a fresh context (empty cache), wait until idle, read the paint entries."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(_PAINT_OBSERVER)
        page.goto(url, wait_until="load", timeout=60_000)
        if ready:
            page.wait_for_selector(ready, timeout=30_000)
        page.wait_for_load_state("networkidle", timeout=30_000)
        page.wait_for_timeout(300)
        paints = page.evaluate("window.__paints")
        return ColdLoad(paints["fcp"] or 0.0, paints["lcp"] or paints["fcp"] or 0.0, page.evaluate(_TRANSFERRED))
    finally:
        context.close()


def median_cold_loads(loads: list[ColdLoad]) -> dict[str, float]:
    return {
        "fcp_ms": statistics.median(load.fcp_ms for load in loads),
        "lcp_ms": statistics.median(load.lcp_ms for load in loads),
        "transferred_bytes": statistics.median(load.transferred_bytes for load in loads),
    }


#: A reaction that has not come after this long is reported as missing, never waited for forever.
REACTION_TIMEOUT_MS = 30_000


def _reaction_ms(page: Page, changed_js: str, act: Callable[[], None]) -> float:
    page.evaluate(_REACTION, changed_js)
    act()
    waited = page.evaluate(
        "(ms) => Promise.race([window.__reaction, new Promise((r) => setTimeout(() => r(null), ms))])",
        REACTION_TIMEOUT_MS,
    )
    if waited is None:
        raise TimeoutError(f"the page did not react within {REACTION_TIMEOUT_MS} ms")
    return float(waited)


def search_keystroke_ms(browser: Browser, products_url: str, repeat: int) -> list[float]:
    """Keystroke 'h' in the empty search box until the first card shows another product, `repeat` times.

    Each try uses a fresh context, since the store keeps the query in the session's state."""
    samples = []
    for _ in range(repeat):
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = context.new_page()
            page.goto(products_url, wait_until="load", timeout=60_000)
            page.wait_for_selector(PRODUCT_NAME, timeout=30_000)
            page.wait_for_load_state("networkidle", timeout=30_000)
            box = page.get_by_placeholder("Search products...")
            box.click()
            changed = (f"(() => {{ const before = {json.dumps(page.inner_text(PRODUCT_NAME))};"
                       f" return () => {{ const now = document.querySelector('{PRODUCT_NAME}')?.textContent;"
                       f" return now != null && now !== before; }}; }})()")
            samples.append(_reaction_ms(page, changed, functools.partial(box.press, "h")))
        finally:
            context.close()
    return samples


def counter_click_ms(browser: Browser, blank_url: str, repeat: int) -> list[float]:
    """Click the minimal page's counter until its text changes, `repeat` times."""
    context = browser.new_context(viewport=VIEWPORT)
    samples = []
    try:
        page = context.new_page()
        page.goto(blank_url, wait_until="load", timeout=60_000)
        page.wait_for_load_state("networkidle", timeout=30_000)
        page.wait_for_timeout(500)
        for _ in range(repeat):
            before = json.dumps(page.inner_text("#counter"))
            changed = f"() => document.querySelector('#counter').textContent !== {before}"
            samples.append(_reaction_ms(page, changed, lambda: page.click("#counter")))
            page.wait_for_timeout(100)
    finally:
        context.close()
    return samples


def _frame_bytes(frame: str | bytes) -> int:
    return len(frame.encode()) if isinstance(frame, str) else len(frame)


def largest_state_updates(browser: Browser, urls: list[str], ready: dict[str, str]) -> dict[str, int]:
    """Per URL: the largest websocket frame (bytes, UTF-8) the backend sends while the page loads."""
    largest: dict[str, int] = {}
    for url in urls:
        context = browser.new_context(viewport=VIEWPORT)
        sizes: list[int] = [0]

        def watch(ws: WebSocket, sizes: list[int] = sizes) -> None:
            ws.on("framereceived", lambda frame: sizes.append(_frame_bytes(frame)))

        try:
            page = context.new_page()
            page.on("websocket", watch)
            page.goto(url, wait_until="load", timeout=60_000)
            if url in ready:
                page.wait_for_selector(ready[url], timeout=30_000)
            page.wait_for_load_state("networkidle", timeout=30_000)
            page.wait_for_timeout(1000)
        finally:
            context.close()
        largest[url] = max(sizes)
    return largest


def connect_payload(browser: Browser, url: str) -> dict:
    """The socket.io CONNECT payload the browser sends on `url` (its hydrate event and state schema)."""
    context = browser.new_context(viewport=VIEWPORT)
    sent: list[str] = []
    try:
        page = context.new_page()
        page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
        page.goto(url, wait_until="load", timeout=60_000)
        prefix = "40/_event,"
        for _ in range(150):  # the socket connects after the page's scripts run
            frames = [frame for frame in sent if frame.startswith(prefix)]
            if frames:
                return json.loads(frames[0][len(prefix):])
            page.wait_for_timeout(100)
    finally:
        context.close()
    raise RuntimeError(f"no socket.io connect frame seen on {url} (sent: {[f[:40] for f in sent]})")
