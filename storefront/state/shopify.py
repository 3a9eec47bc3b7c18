"""Store-catalogue states: the /shopify list (status banners, title search, collection filter,
Load More) and the /shopify/product/{product_id} detail (variant, quantity).

Both read the process's one store catalogue (`wiring.services().store_catalogue`), whose methods are
async network calls for a real shop: they are awaited in background events outside the state lock.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TypedDict

import reflex as rx
from reflex.event import Event

from storefront.services.catalog.catalog import PLACEHOLDER_PICTURE
from storefront.services.orders.store_lines import purchase_refusal
from storefront.services.platform.errors import NotFoundError, TooManyRequestsError
from storefront.services.shopify import throttle
from storefront.services.shopify.cards import PRICE_UNAVAILABLE, STORE_PAGE_SIZE, store_price_label, to_store_card
from storefront.services.shopify.catalogue import (
    COLLECTIONS_FAILED,
    PRODUCT_FAILED,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    STATUS_CONNECTED,
    STATUS_DEMO,
    StoreCatalogue,
    StorePage,
    StoreUnavailable,
)
from storefront.services.shopify.graphql import set_buyer_ip
from storefront.services.shopify.health import StoreHealth
from storefront.services.shopify.images import store_picture
from storefront.services.shopify.sanitize import sanitize_html
from storefront.state.admin.session import READ_TOKEN_SCRIPT, is_staff, token_hash_of
from storefront.state.catalog import card_list, show_cards
from storefront.wiring import services

log = logging.getLogger(__name__)

ALL_COLLECTIONS = "all"
ALL_COLLECTIONS_LABEL = "All Collections"
EMPTY_TEXT = "No products found. Try adjusting your filters."
PRODUCTS_ERROR_TITLE = "Error Loading Products"
COLLECTIONS_ERROR_TITLE = "Error Loading Collections"
PRODUCT_ERROR_TITLE = "Error Loading Product"
PRODUCTS_ERROR_TEXT = PRODUCTS_FAILED
#: The spec: 'Error Loading Collections' with the products' text, said of collections.
COLLECTIONS_ERROR_TEXT = COLLECTIONS_FAILED
PRODUCT_ERROR_TEXT = PRODUCT_FAILED
NOT_FOUND_TITLE = PRODUCT_NOT_FOUND


STORE_CARDS = card_list("store_cards")


class CollectionOption(TypedDict):
    id: str
    title: str


class VariantOption(TypedDict):
    id: str
    title: str
    price: str


def shows_demo_banner(status: str) -> bool:
    return status == STATUS_DEMO


def shows_config_banner(status: str) -> bool:
    """Any known status other than 'connected' (the spec's configuration-required warning)."""
    return status != "" and status != STATUS_CONNECTED


def _count_store_request(client: str) -> None:
    """Count a store product load against the client's address (with the API's store requests)."""
    services().store_limiter.check(throttle.store_key(client))


def _catalogue(client_ip: str = "") -> StoreCatalogue:
    """The process's store catalogue; its requests in this task are made for the shopper at `client_ip`."""
    set_buyer_ip(client_ip)
    return services().store_catalogue


def _health() -> StoreHealth:
    return services().store_health


def _collection_id(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() else None


class StoreListState(rx.State):
    """/shopify: the store's status, its collections and a page of cards at a time.

    The cards live in the browser (`STORE_CARDS`, a client-side var, as on /products): the server
    sends each page once and the browser appends it, so Load More carries one page. Every new
    search or collection bumps `_generation`, so an answer overtaken by a newer one is dropped."""

    query: str = ""
    collection: str = ALL_COLLECTIONS
    collections: list[CollectionOption] = []
    status: str = ""  # "" until the status check answers
    status_message: str = ""
    request_failed: bool = False  # a call to the store failed (StoreUnavailable)
    #: A signed-in admin is looking: the banners show the setup (settings, the store's own message).
    staff: bool = False
    count: int = 0  # cards shown
    has_more: bool = False
    loading: bool = True
    failed: bool = False
    _cursor: str = ""
    _generation: int = 0

    @rx.var
    def show_demo_banner(self) -> bool:
        return shows_demo_banner(self.status)

    @rx.var
    def show_config_banner(self) -> bool:
        return shows_config_banner(self.status)

    def _take_page(self, page: StorePage, append: bool) -> Event:
        cards = [to_store_card(p) for p in page.products]
        self.count = (self.count if append else 0) + len(cards)
        self._cursor = page.next_cursor
        self.has_more = bool(page.next_cursor)
        self.loading, self.failed = False, False
        return show_cards(STORE_CARDS, json.dumps(cards, separators=(",", ":")), append)

    async def _first_page(self):
        """Fetch the first page for the current search and collection; drops a stale answer."""
        async with self:
            self._generation += 1
            self._cursor = ""
            self.loading = True
            generation, query, collection = self._generation, self.query, self.collection
        try:
            page = await _catalogue(self.router.session.client_ip).products(
                query=query, collection_id=_collection_id(collection), limit=STORE_PAGE_SIZE
            )
        except Exception as error:  # noqa: BLE001 - _page_failed logs it and shows the toast
            async for event in self._page_failed(error, generation):
                yield event
            return
        async with self:
            if generation != self._generation:
                return  # a newer search owns the list
            shown = self._take_page(page, append=False)
        yield shown

    async def _page_failed(self, error: Exception, generation: int):
        if not isinstance(error, StoreUnavailable):
            log.exception("loading store products failed", exc_info=error)
        async with self:
            if generation != self._generation:
                return
            self.loading, self.failed, self.has_more = False, True, False
            self.request_failed = self.request_failed or isinstance(error, StoreUnavailable)
        yield rx.toast.error(PRODUCTS_ERROR_TITLE, description=PRODUCTS_ERROR_TEXT)

    async def _load_status(self):
        try:
            status = await _health().status()  # the store is asked at most once a minute
        except Exception as error:  # noqa: BLE001 - status() should not raise; a failure is still a request error
            log.warning("store status check failed: %s", error)
            async with self:
                self.request_failed = True
            return
        async with self:
            self.status, self.status_message = status.status, status.message

    @rx.event(background=True)
    async def recognise_staff(self, kept: str):
        """The admin token the browser keeps (sent by `load`): staff get the setup texts."""
        staff = await asyncio.to_thread(is_staff, token_hash_of(kept))
        async with self:
            self.staff = staff

    async def _load_collections(self):
        try:
            collections = await _catalogue(self.router.session.client_ip).collections()
        except Exception as error:
            if not isinstance(error, StoreUnavailable):
                log.exception("loading store collections failed", exc_info=error)
            async with self:
                self.collections = []
                self.request_failed = True
            yield rx.toast.error(COLLECTIONS_ERROR_TITLE, description=COLLECTIONS_ERROR_TEXT)
            return
        async with self:
            self.collections = [CollectionOption(id=str(c.id), title=c.title) for c in collections]

    @rx.event(background=True)
    async def load(self):
        """on_load: the status, the collections and the first page, side by side."""
        async with self:
            self.count, self.request_failed, self.failed = 0, False, False

        async def drain(events) -> list:
            return [event async for event in events]

        yield rx.call_script(READ_TOKEN_SCRIPT, callback=StoreListState.recognise_staff)
        results = await asyncio.gather(
            self._load_status(),
            drain(self._load_collections()),
            drain(self._first_page()),
        )
        for events in results[1:]:
            for event in events:
                yield event

    @rx.event(background=True)
    async def set_query(self, value: str):
        """Every keystroke searches at once (titles only); an overtaken answer is dropped."""
        async with self:
            self.query = value
        async for event in self._first_page():
            yield event

    @rx.event(background=True)
    async def set_collection(self, value: str):
        """The collection dropdown filters the list ('all' for every collection)."""
        async with self:
            self.collection = value if value == ALL_COLLECTIONS or value.isdigit() else ALL_COLLECTIONS
        async for event in self._first_page():
            yield event

    @rx.event(background=True)
    async def load_more(self):
        async with self:
            if not self._cursor or self.loading:
                return
            self.loading = True
            generation, cursor, query, collection = self._generation, self._cursor, self.query, self.collection
        try:
            page = await _catalogue(self.router.session.client_ip).products(
                query=query, collection_id=_collection_id(collection), cursor=cursor, limit=STORE_PAGE_SIZE
            )
        except Exception as error:  # noqa: BLE001 - _page_failed logs it and shows the toast
            async for event in self._page_failed(error, generation):
                yield event
            return
        async with self:
            if generation != self._generation or cursor != self._cursor:
                return
            shown = self._take_page(page, append=True)
        yield shown


class StoreProductState(rx.State):
    """/shopify/product/{product_id}: one store product, the variant and quantity picked.

    A product with one variant has it selected; with several, none is until the shopper picks
    (Add to Cart stays disabled without a selection, as the spec says, and always for the demo
    catalogue, whose items cannot be checked out anywhere)."""

    shown_id: str = ""
    title: str = ""
    description_html: str = ""
    vendor: str = ""
    product_type: str = ""
    tags: list[str] = []
    option_name: str = ""
    variants: list[VariantOption] = []
    image: str = ""
    image_srcset: str = ""
    image_width: int = PLACEHOLDER_PICTURE.width
    image_height: int = PLACEHOLDER_PICTURE.height
    selected_variant: str = ""
    quantity: int = 1
    loading: bool = True
    not_found: bool = False
    failed: bool = False
    #: Why this catalogue's items cannot be added to the cart ("" when they can): the demo's.
    not_for_sale: str = ""

    @rx.var
    def price(self) -> str:
        """The selected variant's price, else the first variant's (what a card shows)."""
        chosen = next((v for v in self.variants if v["id"] == self.selected_variant), None)
        if chosen is None:
            chosen = self.variants[0] if self.variants else None
        return chosen["price"] if chosen is not None else PRICE_UNAVAILABLE

    @rx.var
    def can_add(self) -> bool:
        return self.selected_variant != "" and not self.not_for_sale

    @rx.event
    def select_variant(self, variant_id: str) -> None:
        if any(v["id"] == variant_id for v in self.variants):
            self.selected_variant = variant_id

    @rx.event
    def increment(self) -> None:
        self.quantity += 1

    @rx.event
    def decrement(self) -> None:
        if self.quantity > 1:  # never below 1
            self.quantity -= 1

    @rx.event(background=True)
    async def load(self):
        async with self:
            raw_id = str(getattr(self, "product_id", "") or "")
            self.loading, self.not_found, self.failed = True, False, False
            self.selected_variant, self.quantity = "", 1
        if not (raw_id.isascii() and raw_id.isdigit()):
            async with self:
                self.loading, self.not_found, self.shown_id = False, True, ""
            return
        try:
            # Counted with the API's store requests: each product id not in the caches reaches Shopify.
            await asyncio.to_thread(_count_store_request, self.router.session.client_ip)
        except TooManyRequestsError as refused:
            async with self:
                self.loading, self.failed, self.shown_id = False, True, ""
            yield rx.toast.error(PRODUCT_ERROR_TITLE, description=refused.message)
            return
        try:
            catalogue = _catalogue(self.router.session.client_ip)
            product, status = await asyncio.gather(catalogue.product(int(raw_id)), _health().status())
        except NotFoundError:
            async with self:
                self.loading, self.not_found, self.shown_id = False, True, ""
            return
        except Exception as error:
            if not isinstance(error, StoreUnavailable):
                log.exception("loading store product %s failed", raw_id, exc_info=error)
            async with self:
                self.loading, self.failed, self.shown_id = False, True, ""
            yield rx.toast.error(PRODUCT_ERROR_TITLE, description=PRODUCT_ERROR_TEXT)
            return
        description = await asyncio.to_thread(sanitize_html, product.body_html)
        shown = store_picture(product.image)
        variants = [
            VariantOption(id=str(v.id), title=v.title, price=store_price_label(v.price_cents)) for v in product.variants
        ]
        async with self:
            if str(getattr(self, "product_id", "") or "") != raw_id:
                return  # the shopper moved on to another product
            self.shown_id = str(product.id)
            self.title = product.title
            self.description_html = description
            self.vendor, self.product_type = product.vendor, product.product_type
            self.tags = list(product.tags)
            self.option_name = product.option_names[0] if product.option_names else "Variant"
            self.variants = variants
            self.image, self.image_srcset = shown.src, shown.srcset
            self.image_width, self.image_height = shown.width, shown.height
            self.selected_variant = variants[0]["id"] if len(variants) == 1 else ""
            self.not_for_sale = purchase_refusal(status)
            self.loading = False

