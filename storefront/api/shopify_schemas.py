"""Answer models of the store-catalogue routes (storefront/api/shopify.py), in Shopify's shapes."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import _Open


class StoreStatusAnswer(_Open):
    status: str = Field(description="'demo', 'connected' or 'error'")
    message: str | None = None
    shopName: str | None = None
    domain: str | None = None


class StoreImage(_Open):
    src: str
    alt: str | None = None
    width: int | None = None
    height: int | None = None


class StoreOption(_Open):
    name: str
    position: int
    values: list[str]


class StoreVariant(_Open):
    id: int
    title: str | None = None
    price: str | None = None
    option1: str | None = None
    option2: str | None = None
    option3: str | None = None


class StoreProduct(_Open):
    id: int
    title: str
    body_html: str | None = None
    vendor: str | None = None
    product_type: str | None = None
    tags: str = ""
    image: StoreImage | None = None
    images: list[StoreImage]
    options: list[StoreOption]
    variants: list[StoreVariant]


class StoreProducts(_Open):
    products: list[StoreProduct]
    nextCursor: str | None = None


class Collection(_Open):
    id: int
    title: str


class Collections(_Open):
    collections: list[Collection]
