"""Catalogue states: product listing, product detail, New Arrivals and collection pages."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator
from typing import TypedDict
from urllib.parse import urlencode

import reflex as rx
from reflex.event import Event
from reflex.experimental.client_state import ClientStateVar, _client_state_ref

from storefront.services.catalog import cards as product_cards, catalog
from storefront.services.catalog.cards import (
    NEW_ARRIVALS_LIMIT,
    PRODUCTS_PAGE_SIZE,
    CardPage,
    ProductCard,
    price_label,
)
from storefront.services.catalog.text_search import search_text
from storefront.services.collections import COLLECTIONS, get_collection
from storefront.services.platform.errors import NotFoundError
from storefront.services.platform.money import format_usd
from storefront.services.printify.provider import product_page_url
from storefront.services.tryon.items import offers_try_on
from storefront.state.tryon import try_on_url as try_on_page_url
from storefront.web.page_texts import PAGE_TITLES, PRODUCT_ROUTE, SEARCH_PARAM, page_title as titled
from storefront.wiring import read_scope, session_scope

log = logging.getLogger(__name__)

PRODUCTS_ROUTE = "/products"
PRODUCT_NOT_FOUND_TITLE = catalog.PRODUCT_NOT_FOUND
PRODUCT_NOT_FOUND_TEXT = "We couldn't find the product you're looking for."


class ColourOption(TypedDict):
    """A colour swatch of the product page, with what choosing it shows."""

    name: str
    swatch: str
    image: str
    srcset: str
    price: str
    sizes: list[str]
    size_prices: dict[str, str]


def to_colour_option(choice: catalog.ColourChoice) -> ColourOption:
    return ColourOption(
        name=choice.name,
        swatch=choice.swatch,
        image=choice.picture.src,
        srcset=choice.picture.srcset,
        price=format_usd(choice.price_cents),
        sizes=list(choice.sizes),
        size_prices={size: format_usd(cents) for size, cents in choice.size_prices.items()},
    )


def card_page(
    query: str = "",
    collection_key: str | None = None,
    match_description: bool = False,
    cursor: str = "",
    limit: int = PRODUCTS_PAGE_SIZE,
) -> CardPage:
    """One page of cards from the database (runs in a worker thread). One read: no transaction to
    open or commit."""
    with read_scope() as session:
        return product_cards.card_page(
            session, query=query, collection_key=collection_key, match_description=match_description,
            cursor=cursor, limit=limit,
        )


def listing_url(query: str) -> str:
    """/products searching for `query` as the search reads it (just /products for an empty search)."""
    query = search_text(query)
    return f"{PRODUCTS_ROUTE}?{urlencode({SEARCH_PARAM: query})}" if query else PRODUCTS_ROUTE


def browser_call(script: str) -> Event:
    """An event that runs `script` (JavaScript statements) in the browser, made as plain text.

    Reflex's own (`rx.call_script`, `ClientStateVar.push`) build their JavaScript as Vars, which
    cost a search keystroke more of the server's time than the search itself."""
    return Event(name="_call_function", payload={"function": f"(() => {{ {script} }})", "callback": None})


def keep_search_in_address(query: str) -> Event:
    """Put the search into the address bar without a navigation (history.replaceState), unless the
    shopper has left the listing meanwhile. After the cards are drawn: it waits for a task of its
    own, since replacing a history entry takes the browser a millisecond or more."""
    return browser_call(
        "setTimeout(() => { "
        f"if (window.location.pathname.replace(/\\/+$/, '') === {json.dumps(PRODUCTS_ROUTE)}) "
        f"window.history.replaceState(window.history.state, '', {json.dumps(listing_url(query))}); }});"
    )


def card_list(name: str) -> ClientStateVar:
    """The cards of one paged list, held by the browser: the server sends each page once and the
    browser appends it, so a Load More update carries one page, however many are shown."""
    return ClientStateVar.create(name, default=[], global_ref=True)


@functools.cache
def _client_ref(name: str) -> str:
    """The browser's name for a client var's slot (its value, its setter)."""
    return str(_client_state_ref(name))


def show_cards(cards_var: ClientStateVar, page: str, append: bool) -> Event:
    """The event that puts a page of cards (`page`: their JSON array) in the browser: appended, or
    replacing what it shows. As ClientStateVar.push does: a list not mounted yet keeps the value
    for when it mounts."""
    setter, shared = _client_ref(cards_var._setter_name), _client_ref(cards_var._getter_name)
    value = f"[...({shared} ?? []), ...{page}]" if append else page
    return browser_call(f"({setter} ?? ((pushed) => {{ {shared} = pushed; }}))({value});")


class PagedCardsState(rx.State, mixin=True):
    """A list of product cards loaded a page at a time (keyset cursor); Load More appends a page.

    The cards live in the browser (`cards`, a client-side var); the state keeps only how many are
    shown, the total and whether there is more. Subclasses say what to search (`_search`) and
    which client var holds their cards (`_cards`); the cursor stays on the server.

    A keystroke sends the browser only what changed: its cards and, when they differ, the count,
    the total and the flags. The typed text stays on the server (`_query`): the search box holds
    it already, and sending it back would redraw the box and everything reading this state."""

    query: str = ""  # the text the search box opens with (the address's search; lists without one leave it empty)
    _query: str = ""  # what is searched: the search box's text as typed
    count: int = 0  # cards shown
    total: int = 0  # products matching, from a COUNT query
    has_more: bool = False
    loading: bool = True
    failed: bool = False
    _cursor: str = ""
    _generation: int = 0  # bumped by every new search, so a stale page is dropped

    def _search(self) -> tuple[str, str | None, bool]:
        """(query, collection key, whether the description matches too)."""
        raise NotImplementedError

    def _cards(self) -> ClientStateVar:
        raise NotImplementedError

    def _searched(self) -> list[Event]:
        """What follows a new search besides its cards (nothing, unless a list says otherwise)."""
        return []

    def _assign(self, **values: object) -> None:
        """Set these vars, each only if its value changes (a var set is sent to the browser even
        when its value is the same, and redraws what reads it)."""
        for name, value in values.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    def _take_page(self, page: CardPage, append: bool) -> Event:
        """Take a fetched page into the state; the event that shows its cards."""
        self._cursor = page["next_cursor"]
        self._assign(
            count=(self.count if append else 0) + len(page["cards"]),
            total=page["total"] if page["total"] >= 0 else self.total,
            has_more=bool(page["next_cursor"]),
            loading=False,
            failed=False,
        )
        return show_cards(self._cards(), page["cards_json"], append)

    async def _fetch(self, append: bool) -> AsyncIterator[Event]:
        """Fetch the first page or append the next one (from a background event)."""
        async with self:
            if append and (not self._cursor or self.loading):
                return
            if not append:
                self._generation += 1
                self._cursor = ""
            self.loading = True
            generation, cursor, search = self._generation, self._cursor, self._search()
        try:
            page = await asyncio.to_thread(card_page, *search, cursor, PRODUCTS_PAGE_SIZE)
        except Exception:
            log.exception("loading %s failed", type(self).__name__)
            async with self:
                if generation == self._generation:
                    self.loading, self.failed = False, True
            return
        async with self:
            if generation != self._generation or cursor != self._cursor:
                return  # a newer search or page owns the result
            shown = self._take_page(page, append)
        yield shown

    @rx.event
    async def set_query(self, value: str):
        """Every keystroke searches at once. A plain event, not a background one: the cards and
        what changed of the count travel in one round trip (the index answers in about a
        millisecond), and a page that `load` or `load_more` is still fetching is dropped by the
        generation check."""
        self._query = value
        self._generation += 1
        self._cursor = ""
        try:
            page = await asyncio.to_thread(card_page, *self._search(), "", PRODUCTS_PAGE_SIZE)
        except Exception:
            log.exception("searching %s failed", type(self).__name__)
            self._assign(loading=False, failed=True)
            return self._searched()
        return [self._take_page(page, append=False), *self._searched()]

    @rx.event(background=True)
    async def load_more(self):
        async for event in self._fetch(append=True):
            yield event


#: Whether the page the browser opened came with a first view the server wrote (set as it mounts):
#: the cards that take its place then appear at once, without New Arrivals' rise.
FIRST_VIEW_SHOWN = ClientStateVar.create("first_view_shown", default=False, global_ref=True)
PRODUCTS_CARDS = card_list("products_cards")
COLLECTION_CARDS = card_list("collection_cards")
COLLECTION_TAB_CARDS = card_list("collection_tab_cards")


class ProductsState(PagedCardsState, rx.State):
    """/products: the searchable listing (title substring). The search lives in the address
    (`?q=`): opening or reloading the page applies it, typing keeps it up to date."""

    #: Bumped whenever the address sets the query: the search box (uncontrolled) is made anew to show it.
    search_key: int = 0

    def _search(self) -> tuple[str, str | None, bool]:
        return self._query, None, False

    def _cards(self) -> ClientStateVar:
        return PRODUCTS_CARDS

    def _searched(self) -> list[Event]:
        return [keep_search_in_address(self._query)]

    @rx.event(background=True)
    async def load(self):
        async with self:
            self.query = self._query = self.router.url.query_parameters.get(SEARCH_PARAM, "")
            self.search_key += 1
        async for event in self._fetch(append=False):
            yield event


class NewArrivalsState(rx.State):
    """/new-arrivals: the newest products (one page)."""

    products: list[ProductCard] = []
    loading: bool = True

    @rx.event(background=True)
    async def load(self):
        async with self:
            self.loading = True
        try:
            page = await asyncio.to_thread(card_page, "", None, False, "", NEW_ARRIVALS_LIMIT)
            cards = page["cards"]
        except Exception:
            # The spec shows no handling for failed fetches here: the page stays empty.
            log.exception("loading new arrivals failed")
            cards = []
        async with self:
            self.products, self.loading = cards, False


class CollectionPageState(PagedCardsState, rx.State):
    """/collections/{key}: the active products of one collection, a page at a time."""

    key: str = ""

    def _search(self) -> tuple[str, str | None, bool]:
        return "", self.key, False

    def _cards(self) -> ClientStateVar:
        return COLLECTION_CARDS

    @rx.event(background=True)
    async def load(self, key: str):
        async with self:
            self.key, self.count = key, 0  # skeletons, not the last collection's cards
        async for event in self._fetch(append=False):
            yield event


class CollectionsTabsState(PagedCardsState, rx.State):
    """/collections: one tab per collection with a search over name and description."""

    tab: str = COLLECTIONS[0].key

    def _search(self) -> tuple[str, str | None, bool]:
        return self._query, self.tab, True

    def _cards(self) -> ClientStateVar:
        return COLLECTION_TAB_CARDS

    @rx.event
    def select_tab(self, key: str):
        if get_collection(key) is not None:
            self.tab, self.query, self._query, self.count = key, "", "", 0
        return CollectionsTabsState.load

    @rx.event(background=True)
    async def load(self):
        async for event in self._fetch(append=False):
            yield event


class ProductDetailState(rx.State):
    """/product/{id}: one product, its colours and sizes, and the colour and size the shopper picked.

    A product in several colours always has one chosen (the first, until the shopper picks)."""

    product_id: str = ""
    name: str = ""
    listing_price: str = ""
    size_prices: dict[str, str] = {}
    image: str = ""
    image_srcset: str = ""
    description: str = ""
    sizes: list[str] = []
    colors: list[ColourOption] = []
    is_sample: bool = False
    #: The try-on page with this product chosen; "" when it is not a garment worn on the upper body.
    try_on_url: str = ""
    selected_color: str = ""
    selected_size: str = ""
    loading: bool = True
    not_found: bool = False

    def _chosen_colour(self) -> ColourOption | None:
        return next((c for c in self.colors if c["name"] == self.selected_color), None)

    @rx.var
    def price(self) -> str:
        """The chosen colour and size's price (what the cart will charge), else the colour's or
        the listing price."""
        colour = self._chosen_colour()
        if colour is None:
            return self.size_prices.get(self.selected_size, self.listing_price)
        return colour["size_prices"].get(self.selected_size, colour["price"])

    @rx.var
    def shown_image(self) -> str:
        """The chosen colour's image, else the product's."""
        colour = self._chosen_colour()
        return colour["image"] if colour is not None else self.image

    @rx.var
    def shown_srcset(self) -> str:
        """The renditions of the shown image."""
        colour = self._chosen_colour()
        return colour["srcset"] if colour is not None else self.image_srcset

    @rx.var
    def available_sizes(self) -> list[str]:
        """The sizes the chosen colour comes in (every size when there is no colour to choose)."""
        colour = self._chosen_colour()
        return colour["sizes"] if colour is not None else self.sizes

    @rx.var
    def provider_url(self) -> str:
        return product_page_url(self.product_id) if self.product_id else ""

    @rx.var
    def page_title(self) -> str:
        """The <title>: the product's name once loaded. The served page's head already names the
        product (page_head.py); without this, hydration would set it back to the route's title."""
        return titled(self.name or PAGE_TITLES[PRODUCT_ROUTE])

    @rx.event
    def select_size(self, size: str) -> None:
        self.selected_size = size

    @rx.event
    def select_color(self, color: str) -> None:
        colour = next((c for c in self.colors if c["name"] == color), None)
        if colour is None:
            return
        self.selected_color = color
        if self.selected_size not in colour["sizes"]:
            self.selected_size = ""  # the new colour does not come in it

    @rx.event(background=True)
    async def load(self):
        async with self:
            product_id = _route_product_id(self)
            self.loading, self.not_found, self.selected_size, self.selected_color = True, False, "", ""
        try:
            product = await asyncio.to_thread(_load_detail, product_id)
        except NotFoundError:
            async with self:
                self.loading, self.not_found, self.product_id = False, True, ""
            yield rx.toast.error(PRODUCT_NOT_FOUND_TITLE, description=PRODUCT_NOT_FOUND_TEXT)
            yield rx.redirect("/products")
            return
        async with self:
            self.product_id = product.id
            self.name = product.name
            self.listing_price = price_label(product.price_cents)
            self.size_prices = {size: format_usd(cents) for size, cents in product.size_prices.items()}
            self.image, self.image_srcset = product.picture.src, product.picture.srcset
            self.description = product.description
            self.sizes = list(product.sizes)
            self.colors = [to_colour_option(choice) for choice in product.colors]
            opening = catalog.opening_colour(product)
            self.selected_color = opening.name if opening else ""
            self.is_sample = product.is_sample
            self.try_on_url = try_on_page_url(product.id) if offers_try_on(product.name) else ""
            self.loading = False


def _route_product_id(state: rx.State) -> str:
    """The `[id]` argument of /product/[id]: Reflex 0.10 exposes a dynamic route argument as a
    state var of that name."""
    return str(getattr(state, "id", "") or "")


def _load_detail(product_id: str) -> catalog.ProductDetail:
    with session_scope() as session:
        return catalog.get_product(session, product_id)
