"""The product cards of the listing, New Arrivals and collection pages, a page at a time: what the
pages' state holds and what the served first view draws (prices already formatted, no description)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TypedDict

from sqlmodel import Session

from storefront.services.catalog import listing
from storefront.services.platform.money import format_usd

NEW_ARRIVALS_LIMIT = 12
PRODUCTS_PAGE_SIZE = 24
#: Cards kept as the browser's JSON (a search or a listing sends the same cards again and again).
CARD_TEXTS = 4096


class CardColour(TypedDict):
    """A colour in a card's Quick Add menu and the sizes it comes in."""

    name: str
    sizes: list[str]


class ProductCard(TypedDict):
    """What a product card shows (no description); prices are already formatted. `colors` is
    empty for a product in one colour."""

    id: str
    name: str
    price: str
    image: str
    srcset: str
    image_width: int
    image_height: int
    has_variants: bool
    sizes: list[str]
    colors: list[CardColour]


def price_label(price_cents: int | None) -> str:
    return "N/A" if price_cents is None else format_usd(price_cents)


def to_card(product: listing.ProductCardSummary) -> ProductCard:
    return ProductCard(
        id=product.id,
        name=product.name,
        price=price_label(product.price_cents),
        image=product.picture.src,
        srcset=product.picture.srcset,
        image_width=product.picture.width,
        image_height=product.picture.height,
        has_variants=product.has_variants,
        sizes=list(product.sizes),
        colors=[CardColour(name=c.name, sizes=list(c.sizes)) for c in product.colors],
    )


@lru_cache(maxsize=CARD_TEXTS)
def _shown_card(product: listing.ProductCardSummary) -> tuple[ProductCard, str]:
    """The card and its JSON for the browser, made once per summary (which is immutable)."""
    card = to_card(product)
    return card, json.dumps(card, separators=(",", ":"))


class CardPage(TypedDict):
    cards: list[ProductCard]
    #: The same cards as one JSON array, for the browser.
    cards_json: str
    next_cursor: str
    total: int


def card_page(
    session: Session,
    *,
    query: str = "",
    collection_key: str | None = None,
    match_description: bool = False,
    cursor: str = "",
    limit: int = PRODUCTS_PAGE_SIZE,
) -> CardPage:
    """One page of cards; the total of matches with the first page only (-1 on later pages)."""
    page = listing.product_page(
        session,
        query=query,
        collection_key=collection_key,
        match_description=match_description,
        cursor=cursor,
        limit=limit,
        with_total=not cursor,
    )
    total = page.total if page.total is not None else -1
    shown = [_shown_card(p) for p in page.cards]
    return CardPage(
        cards=[ProductCard(**card) for card, _ in shown],  # copies: the kept cards stay as made
        cards_json=f"[{','.join(text for _, text in shown)}]",
        next_cursor=page.next_cursor,
        total=total,
    )
