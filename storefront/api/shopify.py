"""Store-catalogue routes (spec section 7): the store's status, products, one product and the
collections, in Shopify's own shapes. All public and read-only.

The catalogue (the Shopify client, or the demo when the store is not configured) is built once
per app from the settings and kept on `app.state.store_catalogue`; tests may set it first.
A store that cannot answer is a 502 with the catalogue's message; an unknown product a 404.
Each address may make STORE_REQUESTS_PER_MINUTE requests a minute (then 429 with Retry-After).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from storefront.api.orders import client_address
from storefront.api.schemas import errors
from storefront.api.shopify_schemas import (
    Collections,
    StoreProduct as StoreProductAnswer,
    StoreProducts,
    StoreStatusAnswer,
)
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    MAX_PAGE_SIZE,
    PRODUCT_NOT_FOUND,
    StoreCatalogue,
    StoreProduct,
    StoreStatus,
)
from storefront.services.shopify.graphql import set_buyer_ip
from storefront.services.shopify.health import StoreHealth
from storefront.services.shopify.sanitize import sanitize_html
from storefront.services.shopify.throttle import store_key


async def throttle(request: Request) -> None:
    """429 (with Retry-After) past STORE_REQUESTS_PER_MINUTE requests from one address: what the
    caches do not hold is paid for from the store's own request budget."""
    limiter = request.app.state.services.store_limiter
    await asyncio.to_thread(limiter.check, store_key(client_address(request)))
    set_buyer_ip(client_address(request))  # the store's requests for this route name this shopper


router = APIRouter(tags=["store catalogue"], dependencies=[Depends(throttle)])

PREFIX = "/api/shopify"
DEFAULT_PAGE_SIZE = 24
INVALID_COLLECTION = "collection_id must be a collection's numeric id"
#: Shopify ids are 64-bit integers.
_MAX_ID_DIGITS = 19


def store_catalogue(request: Request) -> StoreCatalogue:
    """The app's catalogue: its services' own (shared with the pages), or one a test set on the app."""
    state = request.app.state
    catalogue = getattr(state, "store_catalogue", None)
    if catalogue is None:
        catalogue = state.services.store_catalogue
        state.store_catalogue = catalogue
    return catalogue


def store_health(request: Request) -> StoreHealth:
    """The store's status asked at most once a minute: the process's own (shared with the pages),
    or one over the catalogue a test set on the app."""
    state = request.app.state
    health = getattr(state, "store_health", None)
    if health is None:
        catalogue = store_catalogue(request)
        shared = catalogue is state.services.store_catalogue
        health = state.services.store_health if shared else StoreHealth(catalogue)
        state.store_health = health
    return health


def _numeric_id(value: str) -> int | None:
    value = value.strip()
    if not value.isascii() or not value.isdigit() or len(value) > _MAX_ID_DIGITS:
        return None
    number = int(value)
    return number if 0 < number < 2**63 else None


def _price(cents: int | None) -> str | None:
    """Cents as Shopify's decimal string ('19.99'); None when the store gives no price."""
    if cents is None:
        return None
    return f"{cents // 100}.{cents % 100:02d}"


def serialize_status(status: StoreStatus) -> dict[str, Any]:
    body: dict[str, Any] = {"status": status.status, "message": status.message}
    if status.shop_name:
        body["shopName"] = status.shop_name
    if status.domain:
        body["domain"] = status.domain
    return body


def serialize_product(product: StoreProduct) -> dict[str, Any]:
    """The product as Shopify shapes it (tags one comma string, prices decimal strings), with
    its description sanitised."""
    images = [
        {"src": image.src, "alt": image.alt, "width": image.width, "height": image.height}
        for image in product.images
    ]
    options = []
    for position, name in enumerate(product.option_names):
        values: list[str] = []
        for variant in product.variants:
            if position < len(variant.options) and variant.options[position] not in values:
                values.append(variant.options[position])
        options.append({"name": name, "position": position + 1, "values": values})
    variants = []
    for variant in product.variants:
        row: dict[str, Any] = {"id": variant.id, "title": variant.title, "price": _price(variant.price_cents)}
        for n in range(3):
            row[f"option{n + 1}"] = variant.options[n] if n < len(variant.options) else None
        variants.append(row)
    return {
        "id": product.id,
        "title": product.title,
        "body_html": sanitize_html(product.body_html),
        "vendor": product.vendor,
        "product_type": product.product_type,
        "tags": ", ".join(product.tags),
        "image": images[0] if images else None,
        "images": images,
        "options": options,
        "variants": variants,
    }


@router.get(
    PREFIX + "/test", response_model=StoreStatusAnswer, response_model_exclude_unset=True, responses=errors(429)
)
async def store_status(request: Request) -> dict[str, Any]:
    """status ('demo', 'connected' or 'error'), message, and shopName when connected; the store
    is asked at most once a minute."""
    return serialize_status(await store_health(request).status())


@router.get(PREFIX + "/products", response_model=StoreProducts, responses=errors(422, 429, 502))
async def list_products(
    request: Request,
    query: str = Query("", max_length=255, description="Part of the title, any case"),
    collection_id: str = Query("", description="A collection's id; empty or 'all' for every product"),
    cursor: str = Query("", max_length=1024, description="nextCursor of the previous page"),
    limit: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
) -> dict[str, Any]:
    """{products, nextCursor}: a page of products (nextCursor is null on the last page)."""
    collection: int | None = None
    if collection_id.strip() and collection_id.strip().lower() != "all":
        collection = _numeric_id(collection_id)
        if collection is None:
            raise ValidationError(INVALID_COLLECTION, {"collection_id": INVALID_COLLECTION})
    page = await store_catalogue(request).products(
        query=query, collection_id=collection, cursor=cursor, limit=limit
    )
    return {
        "products": [serialize_product(product) for product in page.products],
        "nextCursor": page.next_cursor or None,
    }


@router.get(PREFIX + "/products/{product_id}", response_model=StoreProductAnswer, responses=errors(404, 429, 502))
async def get_product(request: Request, product_id: str) -> dict[str, Any]:
    """One product; 404 'Product Not Found' for an unknown or malformed id."""
    number = _numeric_id(product_id)
    if number is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return serialize_product(await store_catalogue(request).product(number))


@router.get(PREFIX + "/collections", response_model=Collections, responses=errors(429, 502))
async def list_collections(request: Request) -> dict[str, Any]:
    """{collections: [{id, title}]}, custom and smart alike."""
    collections = await store_catalogue(request).collections()
    return {"collections": [{"id": c.id, "title": c.title} for c in collections]}
