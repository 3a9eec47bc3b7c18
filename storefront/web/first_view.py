"""The first view in the first HTML: the server writes a listing's first cards, a product's opening
view and each page's head (page_head.py) into the page it sends.

The production build prerenders each page with its loading state (skeletons). A listing page
holds an empty `[data-first-view]` element (components/product_card.py `first_view_island`); this
ASGI step, inside the API's middleware (so the security headers see the final page), fills that
element's inner HTML with the page's first cards on each request, read from the catalogue as the
page's own `on_load` would. React keeps that inner HTML while it hydrates and puts its own cards in
its place when the websocket answers; the cards are one markup (components/markup.py), so nothing moves.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

import brotli
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storefront import wiring
from storefront.components.event_card import event_card_html, load_more_markup, section_markup
from storefront.components.markup import Element, Raw, to_html
from storefront.components.product_card import DETAIL_SIZES, card_html
from storefront.components.product_view import PRODUCT_VIEW, product_markup
from storefront.components.store_product_card import store_card_html
from storefront.config import Settings, get_settings
from storefront.container import Services
from storefront.db import read_scope, session_scope
from storefront.pages.events import FEATURED_HEADING, FIRST_VIEW as EVENTS_VIEW, UPCOMING_HEADING
from storefront.pages.new_arrivals import RISE_CLASS, RISE_INDEX
from storefront.pages.shopify import BANNERS_VIEW, STORE_PRODUCT_VIEW, STORE_VIEW, shopper_banners_html
from storefront.pages.store_pages import STORE_PAGE_VIEW
from storefront.pages.try_on import ITEMS_VIEW, items_html
from storefront.services.catalog import catalog
from storefront.services.catalog.cards import NEW_ARRIVALS_LIMIT, PRODUCTS_PAGE_SIZE, ProductCard, card_page
from storefront.services.collections import get_collection
from storefront.services.content.store_pages import page_html
from storefront.services.events.cards import FEATURED, UPCOMING, EventCardPage, event_page
from storefront.services.platform.errors import NotFoundError
from storefront.services.platform.store_routes import SLUG_BY_ROUTE
from storefront.services.shopify.cards import STORE_PAGE_SIZE, store_price_label, to_store_card
from storefront.services.shopify.catalogue import StoreCatalogue, StoreStatus
from storefront.services.shopify.graphql import NotCached, cache_only
from storefront.services.shopify.health import StoreHealth
from storefront.services.shopify.images import store_picture
from storefront.services.tryon.items import item_views, offers_try_on
from storefront.web.page_head import PageHead, head_for, not_found_head, with_head
from storefront.web.page_texts import EVENTS_ROUTE, ITEM_PARAM, SEARCH_PARAM, TRY_ON_ROUTE
from storefront.wiring import shop_facts

log = logging.getLogger(__name__)

#: The back office's pages go out as built (no first view, no public head).
ADMIN_ROUTE = "/admin"
#: Product pages: each one is served from the one template the build prerenders (prerender.py).
PRODUCT_PREFIX = "/product/"
#: The scope key where ServedRoutes keeps the address a page was asked for (it rewrites the path).
PAGE_PATH = "storefront.page_path"
_REWRITTEN = {b"accept-encoding", b"if-none-match", b"if-modified-since"}


@dataclass(frozen=True)
class Fill:
    """What goes into a page's first view: `name` is its `data-first-view`, `html` its inner HTML;
    `status` 404 for an address that names nothing (the page then says so itself)."""

    name: str
    html: str
    status: int = 200


def _cards(cards: list, quick_add: bool = True, rise: bool = False) -> str:
    written = [card_html(card, index, quick_add) for index, card in enumerate(cards)]
    if rise:
        written = [
            # New Arrivals' cards rise into place as React's do (pages/new_arrivals.py).
            f'<div data-rise="" class="{RISE_CLASS}" style="{RISE_INDEX}:{index}">{card}</div>'
            for index, card in enumerate(written)
        ]
    return "".join(written)


def _card_page(
    collection_key: str | None = None, query: str = "", limit: int = PRODUCTS_PAGE_SIZE
) -> list[ProductCard]:
    """The first page of a listing's cards (one read: no transaction)."""
    with read_scope() as session:
        return card_page(session, query=query, collection_key=collection_key, limit=limit)["cards"]


def _event_page(featured: bool) -> EventCardPage:
    with session_scope() as session:
        return event_page(session, featured, 0)


def _store_page_html(route: str) -> str:
    """A store page's text as HTML (staff's Markdown or the default)."""
    with session_scope() as session:
        return page_html(session, SLUG_BY_ROUTE[route], shop_facts(get_settings()))


def first_view(path: str, query: str) -> Fill | None:
    """The first view of the page at `path` (no trailing slash), None for a page that has none.
    Runs in a worker thread (it reads the database)."""
    if path == "/products":
        search = parse_qs(query).get(SEARCH_PARAM, [""])[0]
        return Fill("products", _cards(_card_page(query=search)))
    if path == "/new-arrivals":
        return Fill("new-arrivals", _cards(_card_page(limit=NEW_ARRIVALS_LIMIT), quick_add=False, rise=True))
    if path.startswith(PRODUCT_PREFIX):
        return _product(path.removeprefix(PRODUCT_PREFIX))
    if path == EVENTS_ROUTE:
        return _events()
    if path == TRY_ON_ROUTE:
        chosen = parse_qs(query).get(ITEM_PARAM, [""])[0]
        with session_scope() as session:
            views = item_views(session, chosen)
        return Fill(ITEMS_VIEW, items_html(views, chosen))
    if path in SLUG_BY_ROUTE:
        return Fill(STORE_PAGE_VIEW, _store_page_html(path))
    if path.startswith("/collections/"):
        collection = get_collection(path.removeprefix("/collections/"))
        if collection is None:
            return None
        return Fill("collection", _cards(_card_page(collection.key)))
    return None


def _events() -> Fill:
    """The events page's featured and upcoming lists, their first page each (as the page's `on_load`)."""
    featured, upcoming = _event_page(True), _event_page(False)
    sections = []
    for heading, key, page in ((FEATURED_HEADING, FEATURED, featured), (UPCOMING_HEADING, UPCOMING, upcoming)):
        if not page["cards"]:
            continue
        cards = "".join(
            event_card_html(card, index, key, bool(featured["cards"])) for index, card in enumerate(page["cards"])
        )
        more = load_more_markup(key) if len(page["cards"]) < page["total"] else None
        sections.append(to_html(section_markup(heading, key, Raw(cards), more)))
    return Fill(EVENTS_VIEW, "".join(sections))


def _product(product_id: str) -> Fill:
    """The product page's opening view: picture, title, price, colours, sizes and description."""
    try:
        with session_scope() as session:
            product = catalog.get_product(session, product_id)
    except NotFoundError:
        return Fill(PRODUCT_VIEW, "", status=404)
    columns = product_markup(product, try_on=offers_try_on(product.name))
    return Fill(PRODUCT_VIEW, "".join(to_html(column) for column in columns))


#: The store catalogue's list and its products' prefix (pages/shopify.py).
STORE_LIST = "/shopify"
STORE_PRODUCT_PREFIX = "/shopify/product/"


async def store_first_views(path: str, services: Services) -> tuple[Fill, ...]:
    """The store catalogue's banners and first cards, or a store product's opening view (empty for
    any other page), from the catalogue and status the pages use."""
    if path == STORE_LIST:
        status = await _store_status(services.store_health)
        banners = Fill(BANNERS_VIEW, shopper_banners_html(status.status)) if status is not None else None
        cards = await store_first_view(path, services.store_catalogue)
        return tuple(fill for fill in (cards, banners) if fill is not None)
    fill = await store_first_view(path, services.store_catalogue)
    return (fill,) if fill is not None else ()


#: How long the first HTML of a fresh worker waits for the store's first status check (later ones
#: use the last status, asked again at most once a minute by the pages).
STATUS_WAIT_S = 0.25


async def _store_status(health: StoreHealth) -> StoreStatus | None:
    """The store's last known status; the first time, the check's answer if it comes within
    STATUS_WAIT_S (the check goes on either way, for the next page)."""
    known = health.known()
    if known is not None:
        return known
    check = asyncio.ensure_future(health.status())
    try:
        return await asyncio.wait_for(asyncio.shield(check), STATUS_WAIT_S)
    except TimeoutError:
        return None


async def store_first_view(path: str, catalogue: StoreCatalogue) -> Fill | None:
    """The store catalogue's first cards, or a store product's picture, title and price, from the
    answers the catalogue already holds (the pages' own loads fill its cache): no page waits on the
    store, so a page it holds nothing for goes out with its skeletons. Runs on the event loop (the
    catalogue's client lives there)."""
    product_id = path.removeprefix(STORE_PRODUCT_PREFIX) if path.startswith(STORE_PRODUCT_PREFIX) else ""
    if path != STORE_LIST and not (product_id.isascii() and product_id.isdigit()):
        return None
    try:
        with cache_only():
            if path == STORE_LIST:
                page = await catalogue.products(limit=STORE_PAGE_SIZE)
                cards = [to_store_card(product) for product in page.products]
                return Fill(STORE_VIEW, "".join(store_card_html(card, index) for index, card in enumerate(cards)))
            product = await catalogue.product(int(product_id))
    except NotCached:
        return None
    except Exception:  # not found, or the store failed: the page says so itself once loaded
        log.debug("no first view for %s", path, exc_info=True)
        return None
    picture = store_picture(product.image)
    price = store_price_label(product.price_cents)  # the first variant's, as the page shows before a choice
    image = Element("img", attrs={
        "src": picture.src, "srcset": picture.srcset, "sizes": DETAIL_SIZES, "alt": product.title,
        "loading": "eager", "fetchpriority": "high", "decoding": "async",
        "width": picture.width, "height": picture.height,
    })
    columns = (
        Element("div", "rt-Box sf-detail-image", children=(Element("div", "rt-Box sf-card-image", children=(image,)),)),
        Element("div", "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-4 rx-Stack", children=(
            Element("h1", "rt-Heading rt-r-size-8", children=(product.title,)),
            Element("p", "rt-Text rt-r-size-6 rt-r-weight-bold", children=(price,)),
        )),
    )
    return Fill(STORE_PRODUCT_VIEW, "".join(to_html(column) for column in columns))


def fill_page(page: str, fill: Fill) -> str:
    """`page` with `fill` written into its empty first-view element (the page unchanged without one)."""
    pattern = re.compile(r'(<div\b[^>]*\bdata-first-view="' + re.escape(fill.name) + r'"[^>]*>)(</div>)')
    return pattern.sub(lambda m: m.group(1) + fill.html + m.group(2), page, count=1)


@dataclass(frozen=True)
class Rewrite:
    """How a page goes out: its first view (if it has one), its head, its status."""

    fill: Fill | None
    head: PageHead | None
    status: int = 200
    #: Other first views of the page (the store catalogue's banners beside its cards).
    more: tuple[Fill, ...] = ()

    def apply(self, page: str) -> str:
        for fill in (self.fill, *self.more):
            if fill is not None:
                page = fill_page(page, fill)
        return with_head(page, self.head) if self.head is not None else page


def page_rewrite(path: str, query: str, settings: Settings) -> Rewrite | None:
    """What the page at `path` gets written into it: its first view and its head (page_head.py);
    a product that is not in the store answers 404 with the not-found page's head. None leaves the
    page as built (the back office). Runs in a worker thread (it reads the database)."""
    if path == ADMIN_ROUTE or path.startswith(ADMIN_ROUTE + "/"):
        return None
    arguments = {name: values[0] for name, values in parse_qs(query).items()}
    # An event that is gone still leaves the events page, with the page's own head.
    head = head_for(path, settings, arguments) or (head_for(path, settings) if path == EVENTS_ROUTE else None)
    fill = first_view(path, query)
    if fill is not None and fill.status == 404:
        return Rewrite(fill, not_found_head(settings), 404)
    if fill is None and head is None:
        return None
    return Rewrite(fill, head)


#: How a rewritten page is compressed, best first (the build's own files come precompressed in both).
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "br": lambda page: brotli.compress(page, quality=5),
    "gzip": lambda page: gzip.compress(page, compresslevel=6),
}


def page_encoding(scope: Scope) -> str:
    """The best of COMPRESSORS the request accepts ("" for none), by its Accept-Encoding."""
    accepted = {}
    for name, value in scope.get("headers", []):
        if name == b"accept-encoding":
            for item in value.decode("latin-1").split(","):
                coding, _, params = item.strip().partition(";")
                q = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
                try:
                    accepted[coding.strip().lower()] = float(q)
                except ValueError:
                    accepted[coding.strip().lower()] = 0.0
    return next((coding for coding in COMPRESSORS if accepted.get(coding, accepted.get("*", 0)) > 0), "")


class FirstView:
    """Writes the first view and the head into the pages ServedRoutes marked (`PAGE_PATH` in the scope)."""

    def __init__(
        self, app: ASGIApp, settings: Settings | None = None,
        rewrite: Callable[[str, str, Settings], Rewrite | None] = page_rewrite, services: Services | None = None,
    ) -> None:
        self.app = app
        #: The store catalogue and its status come from the services the pages use (the process's own).
        self.services = services or wiring.services()
        self.settings = settings or self.services.settings
        self.rewrite = rewrite

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get(PAGE_PATH) if scope["type"] == "http" else None
        if path is None or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        try:
            rewrite = await asyncio.to_thread(self.rewrite, path, query, self.settings)
            store = await store_first_views(path, self.services)
            if store:
                rewrite = Rewrite(store[0], rewrite.head if rewrite else None, rewrite.status if rewrite else 200,
                                  store[1:])
        except Exception:  # the page still works as built: its cards come with the websocket
            log.exception("the first view of %s could not be read", path)
            rewrite = None
        if rewrite is None:
            await self.app(scope, receive, send)
            return
        encoding = page_encoding(scope)
        # The page is rewritten: it is asked for whole and uncompressed (not the build's precompressed
        # copy, never a 304 that would keep yesterday's cards).
        headers = [(name, value) for name, value in scope.get("headers", []) if name not in _REWRITTEN]
        start: Message = {}
        body = bytearray()

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            await send_page(start, bytes(body))

        async def send_page(start: Message, page: bytes) -> None:
            response_headers = MutableHeaders(scope=start)
            if start.get("status") == 200 and response_headers.get("content-type", "").startswith("text/html"):
                page = rewrite.apply(page.decode("utf-8")).encode("utf-8")
                start = {**start, "status": rewrite.status}
                del response_headers["etag"]
                del response_headers["last-modified"]
                if encoding:
                    page = COMPRESSORS[encoding](page)
                    response_headers["content-encoding"] = encoding
                if "accept-encoding" not in response_headers.get("vary", "").lower():
                    response_headers.append("vary", "Accept-Encoding")
                response_headers["content-length"] = str(len(page))
            await send(start)
            await send({"type": "http.response.body", "body": page})

        # The file must come as body messages to be rewritten, not as a path the server sends itself.
        extensions = {k: v for k, v in scope.get("extensions", {}).items() if k != "http.response.pathsend"}
        await self.app({**scope, "headers": headers, "extensions": extensions}, receive, capture)
