"""Catalogue states: product listing, product detail, New Arrivals and collection pages."""

from __future__ import annotations

import asyncio
import logging
from typing import TypedDict

import reflex as rx

from storefront.collections import COLLECTIONS, get_collection
from storefront.db import session_scope
from storefront.services import catalog
from storefront.services.errors import NotFoundError
from storefront.services.money import format_usd
from storefront.services.printify.provider import product_page_url

log = logging.getLogger(__name__)

NEW_ARRIVALS_LIMIT = 12
PRODUCTS_PAGE_SIZE = 24
PRODUCT_NOT_FOUND_TITLE = catalog.PRODUCT_NOT_FOUND
PRODUCT_NOT_FOUND_TEXT = "We couldn't find the product you're looking for."


class CardColour(TypedDict):
    """A colour in a card's Quick Add menu and the sizes it comes in."""

    name: str
    sizes: list[str]


class ProductCard(TypedDict):
    """What a product card shows; prices are already formatted. `colors` is empty for a product
    in one colour."""

    id: str
    name: str
    description: str
    price: str
    image: str
    has_variants: bool
    sizes: list[str]
    colors: list[CardColour]


class ColourOption(TypedDict):
    """A colour swatch of the product page, with what choosing it shows."""

    name: str
    swatch: str
    image: str
    price: str
    sizes: list[str]
    size_prices: dict[str, str]


def price_label(price_cents: int | None) -> str:
    return "N/A" if price_cents is None else format_usd(price_cents)


def to_card(product: catalog.ProductSummary) -> ProductCard:
    return ProductCard(
        id=product.id,
        name=product.name,
        description=product.description,
        price=price_label(product.price_cents),
        image=product.image_url,
        has_variants=product.has_variants,
        sizes=list(product.sizes),
        colors=[CardColour(name=c.name, sizes=list(c.sizes)) for c in product.colors],
    )


def to_colour_option(choice: catalog.ColourChoice) -> ColourOption:
    return ColourOption(
        name=choice.name,
        swatch=choice.swatch,
        image=choice.image_url,
        price=format_usd(choice.price_cents),
        sizes=list(choice.sizes),
        size_prices={size: format_usd(cents) for size, cents in choice.size_prices.items()},
    )


def _search_cards(
    query: str, collection_key: str | None = None, match_description: bool = False, limit: int | None = None
) -> list[ProductCard]:
    with session_scope() as session:
        found = catalog.search_products(
            session, query=query, collection_key=collection_key, match_description=match_description, limit=limit
        )
        return [to_card(p) for p in found]


def _newest_cards() -> list[ProductCard]:
    with session_scope() as session:
        return [to_card(p) for p in catalog.newest_products(session, limit=NEW_ARRIVALS_LIMIT)]


class ProductsState(rx.State):
    """/products: the searchable listing."""

    query: str = ""
    shown: int = PRODUCTS_PAGE_SIZE
    products: list[ProductCard] = []
    has_more: bool = False
    loading: bool = True
    failed: bool = False

    @rx.event
    def set_query(self, value: str):
        self.query, self.shown = value, PRODUCTS_PAGE_SIZE
        return ProductsState.load

    @rx.event
    def load_more(self):
        self.shown += PRODUCTS_PAGE_SIZE
        return ProductsState.load

    @rx.event(background=True)
    async def load(self):
        async with self:
            self.loading, query, shown = True, self.query, self.shown
        try:
            # One extra row tells whether there is more to load.
            cards = await asyncio.to_thread(_search_cards, query, None, False, shown + 1)
        except Exception:
            log.exception("loading the product listing failed")
            async with self:
                self.loading, self.failed = False, True
            return
        async with self:
            if (query, shown) == (self.query, self.shown):  # a newer request owns the result otherwise
                self.products, self.has_more = cards[:shown], len(cards) > shown
                self.loading, self.failed = False, False


class NewArrivalsState(rx.State):
    """/new-arrivals: the newest products."""

    products: list[ProductCard] = []
    loading: bool = True

    @rx.event(background=True)
    async def load(self):
        async with self:
            self.loading = True
        try:
            cards = await asyncio.to_thread(_newest_cards)
        except Exception:
            # The spec shows no handling for failed fetches here: the page stays empty.
            log.exception("loading new arrivals failed")
            cards = []
        async with self:
            self.products, self.loading = cards, False


class CollectionPageState(rx.State):
    """/collections/{key}: the active products of one collection."""

    products: list[ProductCard] = []
    loading: bool = True
    failed: bool = False

    @rx.event(background=True)
    async def load(self, key: str):
        async with self:
            self.loading, self.failed, self.products = True, False, []
        try:
            cards = await asyncio.to_thread(_search_cards, "", key)
        except Exception:
            log.exception("loading collection %s failed", key)
            async with self:
                self.loading, self.failed = False, True
            return
        async with self:
            self.products, self.loading = cards, False


class CollectionsTabsState(rx.State):
    """/collections: one tab per collection with a search over name and description."""

    tab: str = COLLECTIONS[0].key
    query: str = ""
    products: list[ProductCard] = []
    loading: bool = True
    failed: bool = False

    @rx.event
    def select_tab(self, key: str):
        if get_collection(key) is not None:
            self.tab, self.query = key, ""
        return CollectionsTabsState.load

    @rx.event
    def set_query(self, value: str):
        self.query = value
        return CollectionsTabsState.load

    @rx.event(background=True)
    async def load(self):
        async with self:
            self.loading, tab, query = True, self.tab, self.query
        try:
            cards = await asyncio.to_thread(_search_cards, query, tab, True)
        except Exception:
            log.exception("loading collection tab %s failed", tab)
            async with self:
                self.loading, self.failed = False, True
            return
        async with self:
            if (tab, query) == (self.tab, self.query):
                self.products, self.loading, self.failed = cards, False, False


class ProductDetailState(rx.State):
    """/product/{id}: one product, its colours and sizes, and the colour and size the shopper picked.

    A product in several colours always has one chosen (the first, until the shopper picks)."""

    product_id: str = ""
    name: str = ""
    listing_price: str = ""
    size_prices: dict[str, str] = {}
    image: str = ""
    description: str = ""
    sizes: list[str] = []
    colors: list[ColourOption] = []
    is_sample: bool = False
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
    def available_sizes(self) -> list[str]:
        """The sizes the chosen colour comes in (every size when there is no colour to choose)."""
        colour = self._chosen_colour()
        return colour["sizes"] if colour is not None else self.sizes

    @rx.var
    def provider_url(self) -> str:
        return product_page_url(self.product_id) if self.product_id else ""

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
            product_id = str(self.router.page.params.get("id", ""))
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
            self.image = product.image_url
            self.description = product.description
            self.sizes = list(product.sizes)
            self.colors = [to_colour_option(choice) for choice in product.colors]
            self.selected_color = product.colors[0].name if product.colors else ""
            self.is_sample = product.is_sample
            self.loading = False


def _load_detail(product_id: str) -> catalog.ProductDetail:
    with session_scope() as session:
        return catalog.get_product(session, product_id)
