"""Issue 25: the first view written into the first HTML (cards, the product), and how it is served."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import brotli
import pytest

from storefront.components.markup import to_html
from storefront.components.product_card import EAGER_CARDS, card_html
from storefront.components.product_view import product_markup
from storefront.config import Settings
from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE, ColourChoice, ProductDetail
from storefront.services.media.images import Picture
from storefront.web.first_view import PAGE_PATH, Fill, FirstView, Rewrite, fill_page, page_encoding
from storefront.web.page_head import not_found_head
from storefront.web.prerender import SHOPIFY_TEMPLATE, TEMPLATE, with_template
from storefront.web.served_routes import ServedRoutes

SETTINGS = Settings()
HOSTILE = '<img src=x onerror=alert(1)>'
PAGE = (
    '<html><body><main><div class="rx-Html rt-Grid" data-first-view="products"></div>'
    '<div data-first-view-fallback="">skeletons</div></main></body></html>'
)


def _card(name: str = "Tee", **changes) -> dict:
    return {
        "id": "p1", "name": name, "price": "$24.99", "image": "/media/a-640.webp",
        "srcset": "/media/a-320.webp 320w, /media/a-640.webp 640w", "image_width": 800, "image_height": 800,
        **changes,
    }


def test_a_card_escapes_what_staff_typed() -> None:
    written = card_html(_card(HOSTILE, id='x" onmouseover="alert(1)'), 0)
    assert HOSTILE not in written
    assert "&lt;img src=x onerror=alert(1)&gt;" in written
    assert 'onmouseover="' not in written
    assert 'href="/product/x&quot; onmouseover=&quot;alert(1)"' in written


def test_the_first_row_loads_at_once_and_the_rest_lazily() -> None:
    first, later = card_html(_card(), 0), card_html(_card(), EAGER_CARDS)
    assert 'loading="eager"' in first and 'fetchpriority="high"' in first
    assert 'loading="lazy"' in later and 'fetchpriority="auto"' in later
    for written in (first, later):
        assert 'srcset="/media/a-320.webp 320w, /media/a-640.webp 640w"' in written
        assert 'sizes="(min-width: 1024px) 300px, (min-width: 768px) 50vw, 100vw"' in written
        assert 'width="800" height="800"' in written


def test_a_card_without_an_image_shows_the_placeholder_and_quick_add_only_when_asked() -> None:
    written = card_html(_card(image="", srcset=""), 0, quick_add=False)
    assert f'src="{PLACEHOLDER_IMAGE}"' in written
    assert "Quick Add" not in written
    assert "Quick Add" in card_html(_card(), 0)


def _detail(**changes) -> ProductDetail:
    picture = Picture(src="/media/b-640.webp", srcset="/media/b-640.webp 640w", width=800, height=800)
    fields = dict(
        id="p1", name=HOSTILE, description="Soft & <b>warm</b>", price_cents=3000, picture=picture,
        collection_key="swdnn", is_active=True, has_variants=True, sizes=("S", "M"), colors=(),
        description_html="", size_prices={"S": 3000, "M": 3000}, is_sample=False,
    )
    return ProductDetail(**{**fields, **changes})


def _view(product: ProductDetail, try_on: bool = False) -> str:
    return "".join(to_html(column) for column in product_markup(product, try_on))


def test_the_product_view_escapes_and_lists_sizes() -> None:
    written = _view(_detail())
    assert HOSTILE not in written and "&lt;img" in written
    assert "Soft &amp; &lt;b&gt;warm&lt;/b&gt;" in written
    assert written.count('class="sf-size"') == 2 and '<p class="rt-Text">M</p>' in written
    assert 'fetchpriority="high"' in written and "$30.00" in written
    assert "Try It On" not in written and "Try It On" in _view(_detail(), try_on=True)
    assert "No sizes available" in _view(_detail(sizes=()))


def test_the_product_view_shows_the_first_colour_chosen_with_its_price_and_picture() -> None:
    own = Picture(src="/media/c-640.webp", srcset="", width=800, height=800)
    colours = (
        ColourChoice(name="Crimson", swatch="#9b111e", price_cents=3200, sizes=("S",), size_prices={}, picture=own),
        ColourChoice(name="Cream", swatch="red;background:url(x)", price_cents=3000, sizes=("S", "M"),
                     size_prices={}, picture=own),
    )
    written = _view(_detail(colors=colours))
    assert "$32.00" in written and 'src="/media/c-640.webp"' in written
    assert 'class="sf-swatch sf-swatch-chosen" title="Crimson" style="background:#9b111e"' in written
    assert "url(x)" not in written  # a swatch is a colour, never more CSS
    assert 'class="sf-size sf-size-off"' in written  # Crimson does not come in M


def test_fill_page_writes_into_the_named_element_only() -> None:
    filled = fill_page(PAGE, Fill("products", "<p>cards</p>"))
    assert '<div class="rx-Html rt-Grid" data-first-view="products"><p>cards</p></div>' in filled
    assert fill_page(PAGE, Fill("collection", "<p>cards</p>")) == PAGE


def _serve(page: bytes, fill: Fill | None, headers: list[tuple[bytes, bytes]], path: str | None = "/products"):
    """Run FirstView over an inner app answering `page`; what the inner app was asked and what was sent."""
    asked: list[dict] = []
    sent: list[dict] = []

    async def inner(scope, receive, send) -> None:
        asked.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(page)).encode()),
            (b"etag", b'"abc"'),
        ]})
        await send({"type": "http.response.body", "body": page[:10], "more_body": True})
        await send({"type": "http.response.body", "body": page[10:]})

    async def send(message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/products/", "query_string": b"q=tee", "headers": headers}
    if path is not None:
        scope[PAGE_PATH] = path
    seen: list[tuple[str, str]] = []

    def rewrite(page_path: str, query: str, settings) -> Rewrite | None:
        seen.append((page_path, query))
        return None if fill is None else Rewrite(fill, None, fill.status)

    asyncio.run(FirstView(inner, SETTINGS, rewrite)(scope, None, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return asked[0], sent[0], body, seen


def test_the_server_fills_the_page_and_compresses_it_when_the_browser_accepts_gzip() -> None:
    headers = [(b"accept-encoding", b"gzip"), (b"if-none-match", b'"abc"'), (b"cookie", b"a=1")]
    asked, start, body, seen = _serve(PAGE.encode(), Fill("products", "<p>cards</p>"), headers)
    assert seen == [("/products", "q=tee")]
    # Asked whole and uncompressed: never the build's precompressed copy, never a 304.
    assert dict(asked["headers"]) == {b"cookie": b"a=1"}
    response = dict(start["headers"])
    assert response[b"content-encoding"] == b"gzip" and b"etag" not in response
    assert int(response[b"content-length"]) == len(body)
    assert b"<p>cards</p></div>" in gzip.decompress(body)


def test_an_unknown_product_is_answered_404_and_a_page_without_a_view_passes_unchanged() -> None:
    _, start, body, _ = _serve(PAGE.encode(), Fill("product", "", status=404), [])
    assert start["status"] == 404 and body == PAGE.encode()
    _, start, body, _ = _serve(PAGE.encode(), None, [(b"accept-encoding", b"gzip")])
    assert start["status"] == 200 and body == PAGE.encode()
    _, _, _, seen = _serve(PAGE.encode(), Fill("products", "x"), [], path=None)
    assert seen == []


def test_every_product_address_is_served_from_the_one_template(tmp_path: Path) -> None:
    seen: list[dict] = []

    async def inner(scope, receive, send) -> None:
        seen.append(scope)

    app = ServedRoutes(inner, tmp_path)
    asyncio.run(app({"type": "http", "method": "GET", "path": "/product/abc", "raw_path": b"/product/abc"}, None, None))
    assert seen[-1]["path"] == "/product/abc"  # no template built: unchanged
    (tmp_path / TEMPLATE.lstrip("/")).mkdir(parents=True)
    (tmp_path / TEMPLATE.lstrip("/") / "index.html").write_text("<html></html>")
    (tmp_path / "index.html").write_text("<html></html>")
    for path in ("/product/abc", "/product/abc.js", "/product/a/b", "/"):
        asyncio.run(app({"type": "http", "method": "GET", "path": path, "raw_path": path.encode()}, None, None))
    assert [(s["path"], s.get(PAGE_PATH)) for s in seen[1:]] == [
        (TEMPLATE + "/", "/product/abc"), ("/product/abc.js", None), ("/product/a/b", None), ("/", "/"),
    ]
    (tmp_path / SHOPIFY_TEMPLATE.lstrip("/")).mkdir(parents=True)
    (tmp_path / SHOPIFY_TEMPLATE.lstrip("/") / "index.html").write_text("<html></html>")
    asyncio.run(
        app(
            {"type": "http", "method": "GET", "path": "/shopify/product/42", "raw_path": b"/shopify/product/42"},
            None,
            None,
        )
    )
    assert (seen[-1]["path"], seen[-1][PAGE_PATH]) == (SHOPIFY_TEMPLATE + "/", "/shopify/product/42")


def test_the_build_prerenders_the_product_template_beside_every_static_page() -> None:
    config = 'export default {"basename": "/", "ssr": false, "prerender": true, "build": "build"};'
    written = with_template(config)
    assert json.dumps(TEMPLATE) in written and json.dumps(SHOPIFY_TEMPLATE) in written and "getStaticPaths()" in written
    assert written.rstrip().endswith("export default config;")
    unrendered = 'export default {"basename": "/", "ssr": false};'
    assert with_template(unrendered) == unrendered


def test_a_rewrite_writes_the_first_view_and_the_head() -> None:
    page = '<html><head><title>Our Products | SWDNN</title></head><body>' + PAGE + "</body></html>"
    written = Rewrite(Fill("products", "<p>cards</p>"), not_found_head(SETTINGS), 404).apply(page)
    assert "<p>cards</p></div>" in written
    assert "Our Products | SWDNN" not in written and 'name="robots"' in written


@pytest.mark.parametrize(("accepted", "encoding"), [
    (b"gzip, deflate, br, zstd", "br"), (b"gzip", "gzip"), (b"br;q=0, gzip;q=0.5", "gzip"),
    (b"identity", ""), (b"*", "br"), (b"br;q=0, gzip;q=0", ""),
])
def test_a_rewritten_page_is_compressed_as_the_browser_accepts(accepted: bytes, encoding: str) -> None:
    assert page_encoding({"headers": [(b"accept-encoding", accepted)]}) == encoding
    assert page_encoding({"headers": []}) == ""


def test_a_brotli_browser_gets_the_filled_page_in_brotli() -> None:
    _, start, body, _ = _serve(PAGE.encode(), Fill("products", "<p>cards</p>"), [(b"accept-encoding", b"gzip, br")])
    assert dict(start["headers"])[b"content-encoding"] == b"br"
    assert b"<p>cards</p></div>" in brotli.decompress(body)


def test_the_store_catalogue_s_banners_come_from_its_status_and_a_slow_first_check_is_not_waited_for() -> None:
    """The demo store answers its status at once: its banners are in the first HTML. A store whose
    first status check is slow is not waited for past STATUS_WAIT_S, and the check goes on for the next page."""
    from storefront.pages.shopify import SHOPPER_CONFIG_TEXT, SHOPPER_DEMO_TEXT
    from storefront.services.shopify.catalogue import StoreStatus
    from storefront.web import first_view
    class SlowHealth:
        """A status check that answers when the test releases it."""

        def __init__(self, answers_at_once: bool) -> None:
            self.last, self.checks, self.at_once = None, 0, answers_at_once

        def known(self):
            return self.last

        async def status(self):
            self.checks += 1
            if not self.at_once:
                await self.released.wait()
            self.last = StoreStatus("demo", "demo")
            self.done.set()
            return self.last

    async def banners(health: SlowHealth) -> str:
        health.released, health.done = asyncio.Event(), asyncio.Event()
        status = await first_view._store_status(health)
        health.released.set()
        await health.done.wait()  # the check goes on after the page went out
        return first_view.shopper_banners_html(status.status) if status else ""

    shown = asyncio.run(banners(SlowHealth(answers_at_once=True)))
    assert SHOPPER_DEMO_TEXT in shown and SHOPPER_CONFIG_TEXT in shown
    slow = SlowHealth(answers_at_once=False)
    assert asyncio.run(banners(slow)) == ""
    assert slow.checks == 1 and slow.known() is not None  # known for the next page
