"""Issue 9: every link is served at its own address, every page has a title, a description and an icon."""

import re

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from storefront.components.header import MOBILE_LINKS
from storefront.config import PROJECT_ROOT
from storefront.db import make_engine
from storefront.services.catalog import catalog
from storefront.services.catalog.catalog import SAMPLE_PRODUCTS_BY_ID
from storefront.services.collections import COLLECTIONS
from storefront.web.page_texts import page_title
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

#: Linked from the header before its page exists; the not-found page answers (never a redirect).
NOT_BUILT_YET: set[str] = set()

PRERENDERED_PAGES = ["/", "/products", "/new-arrivals", "/collections", "/cart", "/order-status",
                     "/tours-and-events", *[c.route for c in COLLECTIONS], "/policies/privacy", "/policies/terms",
                     "/policies/refunds", "/policies/shipping", "/contact"]


def _links_on(page: Page, path: str) -> set[str]:
    """The site-internal hrefs of the header, navigation, footer and product cards of a page."""
    open_page(page, path)
    if path == "/products":
        expect(page.get_by_role("link", name="View Details").first).to_be_visible()
    hrefs = page.eval_on_selector_all(
        "header a[href], footer a[href], main a[href]", "links => links.map(link => link.getAttribute('href'))"
    )
    return {href for href in hrefs if href.startswith("/")}


def test_every_header_nav_footer_and_card_link_answers_200_without_a_redirect(page: Page, store: StoreServer) -> None:
    links = _links_on(page, "/") | _links_on(page, "/products") | {href for _, href in MOBILE_LINKS}
    assert any(re.fullmatch(r"/product/[^/]+", href) for href in links), " ".join(sorted(links))
    assert {"/products", "/cart", "/order-status", *(c.route for c in COLLECTIONS)} <= links
    answers = {href: httpx.get(store.url + href, follow_redirects=False).status_code for href in sorted(links)}
    expected = {href: 404 if href in NOT_BUILT_YET else 200 for href in answers}
    assert answers == expected


@pytest.mark.parametrize("path", ["/products", "/collections/swdnn", "/cart"])
def test_the_trailing_slash_form_still_answers(store: StoreServer, path: str) -> None:
    assert httpx.get(f"{store.url}{path}/", follow_redirects=False).status_code == 200


def test_the_favicon_is_an_image(store: StoreServer) -> None:
    response = httpx.get(f"{store.url}/favicon.ico", follow_redirects=False)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/")


@pytest.mark.parametrize("path", PRERENDERED_PAGES)
def test_each_prerendered_page_names_itself_and_its_icon_in_its_html(store: StoreServer, path: str) -> None:
    html = httpx.get(store.url + path, follow_redirects=False).text
    assert re.search(r"<title>[^<]+</title>", html)
    # The head the server writes (page_head.py), or Reflex's own on a page it leaves as built.
    assert re.search(r'<meta name="description" content="[^"]+"/>|<meta content="[^"]+" name="description"/>', html)
    assert 'rel="icon"' in html and 'href="/favicon.ico"' in html
    assert re.search(r'<html lang="en"', html)


@pytest.mark.parametrize("path", [*PRERENDERED_PAGES, "/product/sample-1"])
def test_each_public_page_has_a_title_and_a_description(page: Page, path: str) -> None:
    open_page(page, path)
    expect(page).to_have_title(re.compile(r"\S"))
    expect(page.locator('meta[name="description"]')).to_have_attribute("content", re.compile(r"\S"))


def test_a_product_page_is_titled_with_the_product_s_name(page: Page, store: StoreServer) -> None:
    """The same <title> as the served head (page_head.py), so hydration does not undo it."""
    engine = make_engine(store.db_url)
    with Session(engine) as session:
        product = catalog.search_products(session, collection_key="hwdkn")[0]
    engine.dispose()
    open_page(page, f"/product/{product.id}")
    expect(page).to_have_title(f"{product.name} | SWDNN")
    open_page(page, "/product/sample-1")
    expect(page).to_have_title(page_title(SAMPLE_PRODUCTS_BY_ID["sample-1"].name))


@pytest.mark.parametrize("path", ["/", "/products"])
def test_loading_the_page_logs_no_console_error(page: Page, path: str) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_page(page, path)
    page.wait_for_load_state("load")
    if path == "/products":
        expect(page.get_by_role("link", name="View Details").first).to_be_visible()
    assert errors == []


def test_clicks_on_the_hidden_corner_are_counted_in_the_browser(page: Page) -> None:
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    open_page(page, "/")
    expect(page.get_by_test_id("collection-tile")).to_have_count(5)
    sent.clear()
    corner = page.get_by_test_id("admin-gesture")
    for clicks in range(1, 5):
        corner.click()
        page.wait_for_function("n => window.__adminGesture && window.__adminGesture.count === n", arg=clicks)
    assert [frame for frame in sent if frame.startswith("42")] == []  # socket.io event frames
    corner.click()
    expect(page).to_have_url(re.compile(r"/admin/login$"))


AXE = PROJECT_ROOT / "tools" / "node_modules" / "axe-core" / "axe.min.js"


def _axe(page: Page, rules: list[str]) -> list[dict]:
    """The page's violations of axe-core `rules` (the engine of Lighthouse's accessibility audit)."""
    # Not a <script> tag: the page's Content-Security-Policy rightly refuses an inline one. Run
    # from the test's side (DevTools protocol), the script defines `axe` on the page's window.
    page.evaluate("source => { (0, eval)(source); }", AXE.read_text())
    options = {"runOnly": {"type": "rule", "values": rules}}
    return page.evaluate(
        "async options => (await axe.run(document, options)).violations"
        ".map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' '))}))",
        options,
    )


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is installed with the bench tools (tools/node_modules)")
def test_home_page_text_meets_wcag_aa_contrast(page: Page) -> None:
    open_page(page, "/")
    expect(page.get_by_test_id("collection-tile")).to_have_count(5)
    assert _axe(page, ["color-contrast"]) == []
