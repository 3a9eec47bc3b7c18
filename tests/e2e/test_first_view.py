"""Issue 25: the first HTML holds the first view (cards, the product), escaped, current, and the same
as what the page shows once React has taken over: same markup, same cards, no console error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import escape, unescape
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from storefront.api.admin.session import ADMIN_TOKEN_HEADER
from tests.e2e.admin import ADMIN_PASSWORD, ADMIN_USERNAME
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_events_page import FEATURED, ROUTE as EVENTS_ROUTE, UPCOMING, store_events  # noqa: F401 (a fixture)

HOSTILE = "<img src=x onerror=alert(1)>"
LISTINGS = ["/products", "/collections/swdnn", "/new-arrivals"]
#: Attributes that differ by nature between the server's inert control and React's live one.
LIVE_ONLY = ["id", "aria-haspopup", "aria-expanded", "aria-disabled", "data-state", "data-discover"]
#: A card as a comparable tree: tag, attributes (classes as a sorted set), own text, children.
_TREE = """([root, ignored]) => { const walk = (e) => ({
  tag: e.tagName.toLowerCase(),
  attrs: Object.fromEntries([...e.attributes].filter(a => !ignored.includes(a.name))
    .map(a => [a.name, a.name === 'class' ? a.value.split(/\\s+/).filter(Boolean).sort().join(' ') : a.value]).sort()),
  text: [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join(''),
  children: e.tagName.toLowerCase() === 'svg' ? e.innerHTML : [...e.children].map(walk),
}); return walk(root); }"""


def _trees(page: Page, served: str, selector: str) -> tuple[dict, dict]:
    """The first element matching `selector` in the first view's HTML the server wrote, and in the
    page React drew, each as a comparable tree (_TREE)."""
    react = page.evaluate(_TREE, [page.query_selector(selector), LIVE_ONLY])
    server = page.evaluate(
        "([html, tree, ignored, selector]) => { const t = document.createElement('template'); t.innerHTML = html;"
        " return eval(tree)([t.content.querySelector(selector), ignored]); }",
        [served, _TREE, LIVE_ONLY, selector],
    )
    return server, react


def first_html(store: StoreServer, path: str) -> str:
    """The page as a plain GET answers it (a crawler, a link preview: no JavaScript)."""
    answer = httpx.get(store.url + path, headers={"accept-encoding": "gzip"})
    assert answer.status_code == 200, (path, answer.status_code)
    return answer.text


def island(html: str, name: str) -> str:
    """The inner HTML the server wrote into a page's first view."""
    match = re.search(
        r'data-first-view="' + re.escape(name) + r'"[^>]*>(.*?)</div><div[^>]*data-first-view-fallback', html, re.S
    )
    assert match, f"no first view {name!r}"
    return match.group(1)


def served_cards(html: str) -> list[tuple[str, str]]:
    """(title, price) of every card in a first HTML, in order."""
    names = re.findall(r'data-testid="product-name">(.*?)</p>', html, re.S)
    prices = re.findall(r'data-testid="product-price">(.*?)</p>', html, re.S)
    return [(unescape(n), unescape(p)) for n, p in zip(names, prices, strict=True)]


def shown_cards(page: Page) -> list[tuple[str, str]]:
    """(title, price) of the cards React shows once the first view has given way."""
    page.wait_for_function("() => !document.querySelector('[data-first-view]')")
    return [tuple(card) for card in page.eval_on_selector_all(
        "[data-testid=product-card]",
        "cards => cards.map(c => [c.querySelector('[data-testid=product-name]').textContent,"
        " c.querySelector('[data-testid=product-price]').textContent])",
    )]


@pytest.fixture
def admin_token(store: StoreServer) -> str:
    answer = httpx.post(store.url + "/api/admin/login", json={"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD})
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


@pytest.fixture
def edited(store: StoreServer, admin_token: str) -> Iterator:
    """Edits a product through the API (as staff's Save does), putting back what it changed."""
    put_back: list[tuple[str, dict]] = []

    def edit(product_id: str, **fields) -> None:
        before = first_html(store, f"/product/{product_id}")
        title = unescape(re.search(r'<h1 class="rt-Heading rt-r-size-8">(.*?)</h1>', before).group(1))
        price = re.search(r'<p class="rt-Text rt-r-size-6 rt-r-weight-bold">\$([\d.,]+)</p>', before).group(1)
        put_back.append((product_id, {"title": title, "price": float(price.replace(",", ""))}))
        answer = httpx.put(f"{store.url}/api/products/{product_id}/update", json=fields,
                           headers={ADMIN_TOKEN_HEADER: admin_token}, timeout=30)
        assert answer.status_code == 200, answer.text

    yield edit
    for product_id, fields in reversed(put_back):
        httpx.put(f"{store.url}/api/products/{product_id}/update", json=fields,
                  headers={ADMIN_TOKEN_HEADER: admin_token}, timeout=30)


def _first_product(store: StoreServer, index: int = 0) -> str:
    return re.findall(r'href="/product/([^"]+)"', island(first_html(store, "/products"), "products"))[index]


@pytest.mark.parametrize("path", LISTINGS)
def test_a_listing_s_first_html_holds_the_cards_the_page_then_shows(page: Page, store: StoreServer, path: str) -> None:
    name = "products" if path == "/products" else "new-arrivals" if path == "/new-arrivals" else "collection"
    served = served_cards(island(first_html(store, path), name))
    assert len(served) >= 4
    open_page(page, path)
    assert shown_cards(page) == served


def test_the_server_s_card_is_react_s_card(browser: Browser, store: StoreServer) -> None:
    """One definition (components/markup.py): the card the server writes and the card React draws
    are the same elements with the same classes and attributes, the Quick Add control aside."""
    served = island(first_html(store, "/products"), "products")
    page = browser.new_page(base_url=store.url, viewport={"width": 1280, "height": 900})
    try:
        open_page(page, "/products")
        page.wait_for_function("() => !document.querySelector('[data-first-view]')")
        server, react = _trees(page, served, "[data-testid=product-card]")
    finally:
        page.close()
    assert server == react


def test_the_first_html_escapes_a_hostile_title_and_shows_a_new_price(store: StoreServer, edited) -> None:
    product_id = _first_product(store, 1)
    edited(product_id, title=HOSTILE, price=31.5)
    for path in ("/products", f"/product/{product_id}"):
        html = first_html(store, path)
        assert HOSTILE not in html, path
        assert "&lt;img src=x onerror=alert(1)&gt;" in html, path
    assert (HOSTILE, "$31.50") in served_cards(island(first_html(store, "/products"), "products"))
    product = island(first_html(store, f"/product/{product_id}"), "product")
    assert "$31.50" in product


def test_a_product_s_first_html_holds_its_picture_title_price_and_sizes(page: Page, store: StoreServer) -> None:
    product_id = _first_product(store)
    served = island(first_html(store, f"/product/{product_id}"), "product")
    image = re.search(
        r'<img src="([^"]+)" srcset="[^"]*" sizes="[^"]+" alt="([^"]*)" loading="eager" fetchpriority="high"', served
    )
    assert image, served[:500]
    title = unescape(re.search(r"<h1[^>]*>(.*?)</h1>", served).group(1))
    price = re.search(r'rt-r-size-6 rt-r-weight-bold">(.*?)</p>', served).group(1)
    assert unescape(image.group(2)) == title
    open_page(page, f"/product/{product_id}")
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.get_by_test_id("product-price")).to_have_text(price)
    assert page.get_by_test_id("product-image").locator("img").get_attribute("src") == image.group(1)
    assert httpx.get(f"{store.url}/product/no-such-product").status_code == 404


@pytest.mark.parametrize("path", [
    "/", "/products", "/collections/swdnn", "/new-arrivals", "product", "/collections", "/tours-and-events",
    "/cart", "/shopify", "/try-it-on", "/order-status",
])
def test_no_page_logs_a_console_error_while_it_hydrates(browser: Browser, store: StoreServer, path: str) -> None:
    path = f"/product/{_first_product(store)}" if path == "product" else path
    page = browser.new_page(base_url=store.url)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_page(page, path)
        page.wait_for_function("() => !document.querySelector('[data-first-view]:not(:empty)')")
        page.wait_for_load_state("networkidle")
    finally:
        page.close()
    assert errors == []


def _meta(html: str, key: str) -> str:
    """The content of the first <meta property|name=key> of a page."""
    match = re.search(r'<meta (?:property|name)="' + re.escape(key) + r'" content="([^"]*)"', html)
    assert match, f"no {key} meta"
    return unescape(match.group(1))


def test_a_product_link_previews_with_its_picture_title_and_price(store: StoreServer) -> None:
    """What a link-preview checker reads with one plain GET: OpenGraph, the Product JSON-LD."""
    product_id = _first_product(store)
    html = first_html(store, f"/product/{product_id}")
    head = html[: html.index("</head>")]
    title = unescape(re.search(r"<h1[^>]*>(.*?)</h1>", island(html, "product")).group(1))
    assert _meta(head, "og:title").startswith(title)
    assert _meta(head, "og:type") == "product"
    image = urlsplit(_meta(head, "og:image"))
    assert image.scheme in ("http", "https") and image.netloc
    picture = httpx.get(store.url + image.path)
    assert picture.status_code == 200 and picture.headers["content-type"].startswith("image/")
    assert re.fullmatch(r"\d+\.\d\d", _meta(head, "product:price:amount"))
    assert _meta(head, "twitter:card") == "summary_large_image"
    assert re.search(r'<link rel="canonical" href="[^"]+/product/' + re.escape(product_id) + '"', head)
    blocks = [json.loads(b) for b in re.findall(r'<script type="application/ld\+json">(.*?)</script>', head, re.S)]
    product = next(b for b in blocks if b.get("@type") == "Product")
    assert product["name"] == title
    assert product["offers"]["price"] == _meta(head, "product:price:amount")
    assert product["offers"]["priceCurrency"] == "USD"
    assert any(b.get("@type") == "BreadcrumbList" for b in blocks)
    # The page's own title, not the template's, also after React has taken over the head.
    assert re.search(r"<title>" + re.escape(escape(title, quote=False)), head)


@pytest.mark.parametrize("path", ["/", "/products", "/collections/swdnn", "/new-arrivals", "/tours-and-events"])
def test_every_public_page_has_its_own_title_description_and_canonical_link(store: StoreServer, path: str) -> None:
    head = first_html(store, path).split("</head>")[0]
    assert len(re.findall(r"<title>", head)) == 1
    assert _meta(head, "description")
    canonical = re.search(r'<link rel="canonical" href="([^"]+)"', head)
    assert canonical and urlsplit(canonical.group(1)).path.rstrip("/") == path.rstrip("/")
    assert urlsplit(_meta(head, "og:image")).scheme in ("http", "https")


def test_robots_and_the_sitemap_are_served_to_crawlers(store: StoreServer) -> None:
    robots = httpx.get(store.url + "/robots.txt")
    assert robots.status_code == 200 and "Disallow: /admin" in robots.text and "Sitemap: " in robots.text
    sitemap = httpx.get(store.url + "/sitemap.xml")
    assert sitemap.status_code == 200 and f"/product/{_first_product(store)}</loc>" in sitemap.text


def _event_titles(html: str) -> list[str]:
    return [unescape(title) for title in re.findall(r'data-testid="event-title">(.*?)</h3>', html, re.S)]


@pytest.mark.usefixtures("store_events")
def test_the_events_first_html_holds_the_cards_the_page_then_shows(browser: Browser, store: StoreServer) -> None:
    """Both lists are in the first HTML (featured first, Load More where there are more), and the
    server's card is React's card: same elements, classes and attributes."""
    served = island(first_html(store, EVENTS_ROUTE), "events")
    titles = _event_titles(served)
    assert FEATURED["title"] in titles and UPCOMING["title"] in titles
    assert served.index('data-testid="featured-events"') < served.index('data-testid="upcoming-events"')
    assert 'data-replay="more:upcoming"' in served
    page = browser.new_page(base_url=store.url, viewport={"width": 1280, "height": 900})
    try:
        open_page(page, EVENTS_ROUTE)
        page.wait_for_function("() => !document.querySelector('[data-first-view]')")
        shown = page.eval_on_selector_all("[data-testid=event-title]", "titles => titles.map(t => t.textContent)")
        assert shown == titles
        server, react = _trees(page, served, "[data-testid=event-card]")
    finally:
        page.close()
    assert server == react


def test_the_store_catalogue_s_first_html_holds_the_cards_the_page_then_shows(
    browser: Browser, store: StoreServer
) -> None:
    """The demo catalogue holds its products in memory: its first cards are in the first HTML, and
    the server's card is React's card."""
    served = island(first_html(store, "/shopify"), "store")
    titles = [unescape(t) for t in re.findall(r'data-testid="store-product-title">(.*?)</p>', served, re.S)]
    assert len(titles) >= 4
    page = browser.new_page(base_url=store.url, viewport={"width": 1280, "height": 900})
    try:
        open_page(page, "/shopify")
        page.wait_for_function("() => !document.querySelector('[data-first-view]')")
        shown = page.eval_on_selector_all("[data-testid=store-product-title]", "ts => ts.map(t => t.textContent)")
        assert shown == titles
        expect(page.get_by_test_id("store-demo-banner")).to_be_visible()
        # The page's load asked the store's status: the next first HTML has the banners in place.
        assert 'data-testid="store-demo-banner"' in first_html(store, "/shopify")
        server, react = _trees(page, served, "[data-testid=store-product-card]")
    finally:
        page.close()
    assert server == react


def test_a_store_product_s_first_html_holds_its_picture_title_and_price(page: Page, store: StoreServer) -> None:
    products = httpx.get(f"{store.url}/api/shopify/products", timeout=30).json()["products"]
    address = f"/shopify/product/{products[0]['id']}"
    served = island(first_html(store, address), "store-product")
    title = unescape(re.search(r'<h1 class="rt-Heading rt-r-size-8">(.*?)</h1>', served).group(1))
    price = re.search(r'<p class="rt-Text rt-r-size-6 rt-r-weight-bold">(.*?)</p>', served).group(1)
    assert title == products[0]["title"] and 'fetchpriority="high"' in served
    open_page(page, address)
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.get_by_test_id("store-product-price")).to_have_text(price)
    unknown = first_html(store, "/shopify/product/999")
    assert re.search(r'data-first-view="store-product"[^>]*></div>', unknown), "no first view for an unknown product"


def test_the_try_on_first_html_holds_the_items_the_page_then_shows(browser: Browser, store: StoreServer) -> None:
    served = island(first_html(store, "/try-it-on"), "tryon-items")
    names = [unescape(n) for n in re.findall(r'sf-tryon-name">(.*?)</p>', served, re.S)]
    assert len(names) >= 3 and 'aria-pressed="true"' not in served
    page = browser.new_page(base_url=store.url, viewport={"width": 1280, "height": 900})
    try:
        open_page(page, "/try-it-on")
        page.wait_for_function("() => !document.querySelector('[data-first-view]')")
        shown = page.eval_on_selector_all("[data-testid=tryon-item] p", "ps => ps.map(p => p.textContent)")
        assert shown == names
        server, react = _trees(page, served, "[data-testid=tryon-item]")
    finally:
        page.close()
    assert server == react
    # A product page's Try It On link (?item=) has that item first and chosen in the first HTML too.
    chosen = re.findall(r'data-replay="tryon-item:([^"]+)"', served)[1]
    linked = island(first_html(store, f"/try-it-on?item={chosen}"), "tryon-items")
    assert re.search(r'aria-pressed="true"[^>]*data-replay="tryon-item:' + re.escape(chosen), linked)
    assert linked.index(chosen) < linked.index(re.findall(r'data-replay="tryon-item:([^"]+)"', served)[0])


#: Every layout shift the page has had, from its first paint (buffered) on.
LAYOUT_SHIFTS_JS = """() => new Promise(resolve => {
    const shifts = [];
    new PerformanceObserver(list => shifts.push(...list.getEntries().map(e => e.value)))
        .observe({type: 'layout-shift', buffered: true});
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(shifts)));
})"""


@pytest.mark.parametrize("path", ["/products", "/new-arrivals", "/tours-and-events"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_does_not_shift_as_the_app_s_cards_take_the_first_view_s_place(
    browser: Browser, store_url: str, path: str, width: int
) -> None:
    # The first view's later items are drawn only near the screen (assets/styles.css); a card
    # drawn at a held height that is not its own would move what is below it.
    page = browser.new_page(base_url=store_url, viewport={"width": width, "height": 844})
    try:
        page.goto(path)
        page.wait_for_function("() => !document.querySelector('[data-first-view]')")
        shifts = page.evaluate(LAYOUT_SHIFTS_JS)
    finally:
        page.close()
    assert sum(shifts) == 0, shifts
