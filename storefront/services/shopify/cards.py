"""The store catalogue's cards on /shopify, a page at a time: what its state holds and what the
served first view draws (prices already formatted, no description, no variant list)."""

from __future__ import annotations

from typing import TypedDict

from storefront.services.platform.money import format_usd
from storefront.services.shopify.catalogue import StoreProduct
from storefront.services.shopify.images import store_picture

STORE_PAGE_SIZE = 24
PRICE_UNAVAILABLE = "Price unavailable"


class StoreCard(TypedDict):
    """What a store-catalogue card shows (no description, no variant list)."""

    id: str
    title: str
    price: str
    image: str
    srcset: str
    image_width: int
    image_height: int


def store_price_label(price_cents: int | None) -> str:
    return PRICE_UNAVAILABLE if price_cents is None else format_usd(price_cents)


def to_store_card(product: StoreProduct) -> StoreCard:
    shown = store_picture(product.image)
    return StoreCard(
        id=str(product.id),
        title=product.title,
        price=store_price_label(product.price_cents),
        image=shown.src,
        srcset=shown.srcset,
        image_width=shown.width,
        image_height=shown.height,
    )
