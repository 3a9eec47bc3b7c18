"""The admin's read side of the catalogue cache: product rows and pages, collection cards, and a row's JSON."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.admin.base_price import upcharge_note
from storefront.services.admin.product_forms import category_key, parse_product_id, whole_number
from storefront.services.catalog.catalog import (
    PLACEHOLDER_IMAGE,
    PRODUCT_NOT_FOUND,
    image_picture,
    listing_price,
    plain_text,
)
from storefront.services.catalog.listing import card_pictures
from storefront.services.catalog.text_search import search_condition
from storefront.services.collections import COLLECTIONS
from storefront.services.media.images import smallest_rendition
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import cents_to_dollars

INVALID_LIMIT_TEMPLATE = "Limit must be a whole number from 1 to {max}"
INVALID_OFFSET = "Offset must be a whole number, 0 or more"

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
CATEGORY_PREVIEW = 3
PUBLISHED = "published"
UNPUBLISHED = "unpublished"
INVALID_LIMIT = INVALID_LIMIT_TEMPLATE.format(max=MAX_PAGE_SIZE)

# --------------------------------------------------------------------------- read models


@dataclass(frozen=True, slots=True)
class VariantRow:
    """One variant of a product row; price in cents."""

    id: int
    title: str
    size: str
    colour: str
    price_cents: int
    enabled: bool


@dataclass(frozen=True, slots=True)
class AdminProductRow:
    """A product as the editor and category lists show it (hidden and unpublished ones too)."""

    id: str
    shop_id: int
    title: str
    #: Plain text for display; `description_html` is what the provider holds.
    description: str
    description_html: str
    #: The first enabled variant's price; None when no variant is enabled.
    price_cents: int | None
    category: str
    is_active: bool
    is_published: bool
    status: str
    variants: tuple[VariantRow, ...]
    #: Archived by staff: out of the store and of the lists (but `archived=True`).
    archived: bool = False
    #: The card picture's smallest rendition, beside the title in the back office's lists; "" for
    #: a product without a picture.
    thumbnail: str = ""

    @property
    def price_note(self) -> str:
        """What a new price means for the sizes (base_price.upcharge_note of the sold variants)."""
        return upcharge_note((v.price_cents, v.enabled) for v in self.variants)


@dataclass(frozen=True, slots=True)
class ProductPage:
    """One page of a shop's products and how many match in all."""

    rows: list[AdminProductRow]
    total: int
    limit: int
    offset: int

    @property
    def has_more(self) -> bool:
        return self.offset + len(self.rows) < self.total


@dataclass(frozen=True, slots=True)
class CollectionSummary:
    """A collection card: products shown on its page of all placed in it, and the first names."""

    key: str
    label: str
    title: str
    route: str
    #: Shown on the collection page (visible and published).
    visible: int
    total: int
    preview_names: tuple[str, ...]
    #: How many more than the preview ('+N more').
    more: int


# --------------------------------------------------------------------------- reading the cache


def _page_number(value: object, minimum: int, maximum: int | None, message: str, field: str) -> int:
    number = whole_number(value)
    if number is None or number < minimum or (maximum is not None and number > maximum):
        raise ValidationError(message, {field: message})
    return number


def _newest_first() -> tuple[Any, ...]:
    """The stable order of every product list: newest first, undated last, then title and id."""
    return (
        col(CatalogProduct.provider_created_at).is_(None),
        col(CatalogProduct.provider_created_at).desc(),
        col(CatalogProduct.title),
        col(CatalogProduct.id),
    )


def _variants_of(session: Session, product_ids: Sequence[str]) -> dict[str, list[CatalogVariant]]:
    """Variants of these products in provider order, in one query."""
    grouped: dict[str, list[CatalogVariant]] = {pid: [] for pid in product_ids}
    if product_ids:
        rows = session.exec(
            select(CatalogVariant)
            .where(col(CatalogVariant.product_id).in_(list(product_ids)))
            .order_by(col(CatalogVariant.sort_order), col(CatalogVariant.id))
        ).all()
        for row in rows:
            grouped[row.product_id].append(row)
    return grouped


def thumbnail_url(image_url: str) -> str:
    """What a back-office list shows beside a product's name for a picture at `image_url`: its
    smallest rendition; "" for none (or the placeholder), which the list draws as an empty box."""
    if not image_url or image_url == PLACEHOLDER_IMAGE:
        return ""
    return smallest_rendition(image_url)


def _thumbnails(session: Session, products: Sequence[CatalogProduct]) -> dict[str, str]:
    """Each product's thumbnail, from the picture its listing card shows."""
    pictures = card_pictures(session, {p.id: p.card_json for p in products})
    return {pid: thumbnail_url(picture.src) for pid, picture in pictures.items()}


def _row(product: CatalogProduct, variants: Sequence[CatalogVariant], thumbnail: str = "") -> AdminProductRow:
    return AdminProductRow(
        id=product.id,
        shop_id=product.shop_id,
        title=product.title,
        description=plain_text(product.description),
        description_html=product.description,
        price_cents=listing_price(variants),
        category=product.collection_key,
        is_active=product.is_active,
        is_published=product.is_published,
        archived=product.archived_at is not None,
        thumbnail=thumbnail,
        status=PUBLISHED if product.is_published else UNPUBLISHED,
        variants=tuple(
            VariantRow(
                id=v.variant_id,
                title=v.title,
                size=v.size,
                colour=v.color,
                price_cents=v.price_cents,
                enabled=v.is_enabled,
            )
            for v in variants
        ),
    )


def _filters(
    shop_id: int | None, query: str, category: str | None, archived: bool = False
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [
        col(CatalogProduct.archived_at).is_not(None) if archived else col(CatalogProduct.archived_at).is_(None)
    ]
    if shop_id is not None:
        conditions.append(col(CatalogProduct.shop_id) == shop_id)
    searched = search_condition(query, in_description=True)
    if searched is not None:
        conditions.append(searched)
    if category:
        conditions.append(col(CatalogProduct.collection_key) == category_key(category))
    return conditions


def product_page(
    session: Session,
    *,
    shop_id: int | None = None,
    query: str = "",
    category: str | None = None,
    limit: object = DEFAULT_PAGE_SIZE,
    offset: object = 0,
    unpublished_first: bool = False,
    archived: bool = False,
) -> ProductPage:
    """A page of the shop's products, hidden and unpublished ones included, newest first; `query`
    matches title or description case-insensitively, `category` keeps one collection, and
    `unpublished_first` puts what still awaits publishing ahead (the publish select). Archived
    products are left out, or are the only ones listed with `archived`."""
    size = _page_number(limit, 1, MAX_PAGE_SIZE, INVALID_LIMIT, "limit")
    start = _page_number(offset, 0, None, INVALID_OFFSET, "offset")
    conditions = _filters(shop_id, query, category, archived)
    total = session.exec(select(func.count()).select_from(CatalogProduct).where(*conditions)).one()
    products = session.exec(
        select(CatalogProduct)
        .where(*conditions)
        .order_by(*((col(CatalogProduct.is_published),) if unpublished_first else ()), *_newest_first())
        .offset(start)
        .limit(size)
    ).all()
    variants, thumbnails = _variants_of(session, [p.id for p in products]), _thumbnails(session, products)
    return ProductPage(
        rows=[_row(p, variants[p.id], thumbnails.get(p.id, "")) for p in products],
        total=int(total),
        limit=size,
        offset=start,
    )


def get_product_row(session: Session, product_id: str) -> AdminProductRow:
    """One cached product as a row; NotFoundError when it is not cached."""
    product = session.get(CatalogProduct, parse_product_id(product_id))
    if product is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    variants = _variants_of(session, [product.id])[product.id]
    return _row(product, variants, _thumbnails(session, [product]).get(product.id, ""))


def shop_of(session: Session, product_id: str) -> int:
    """The shop a cached product belongs to; NotFoundError when it is not cached."""
    shop_id = session.exec(
        select(CatalogProduct.shop_id).where(CatalogProduct.id == parse_product_id(product_id))
    ).first()
    if shop_id is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return int(shop_id)


def collection_summaries(session: Session, *, shop_id: int | None = None) -> list[CollectionSummary]:
    """The five collection cards, in display order."""
    conditions = _filters(shop_id, "", None)
    shown = col(CatalogProduct.is_active).is_(True) & col(CatalogProduct.is_published).is_(True)
    counts = {
        key: (int(total), int(visible or 0))
        for key, total, visible in session.exec(
            select(
                CatalogProduct.collection_key,
                func.count(),
                func.sum(case((shown, 1), else_=0)),
            )
            .where(*conditions)
            .group_by(col(CatalogProduct.collection_key))
        ).all()
    }
    summaries = []
    for collection in COLLECTIONS:
        total, visible = counts.get(collection.key, (0, 0))
        names = tuple(
            session.exec(
                select(CatalogProduct.title)
                .where(col(CatalogProduct.collection_key) == collection.key, *conditions)
                .order_by(*_newest_first())
                .limit(CATEGORY_PREVIEW)
            ).all()
        )
        summaries.append(
            CollectionSummary(
                key=collection.key,
                label=collection.label,
                title=collection.title,
                route=collection.route,
                visible=visible,
                total=total,
                preview_names=names,
                more=max(total - len(names), 0),
            )
        )
    return summaries


# --------------------------------------------------------------------------- wording and JSON


def dollars(cents: int | None) -> str | None:
    """'29.99' for 2999; None stays None."""
    return None if cents is None else f"{cents_to_dollars(cents):.2f}"


def serialize_row(row: AdminProductRow) -> dict[str, Any]:
    """A row as the API answers it: the spec's editable product fields, variant prices in cents."""
    return {
        "id": row.id,
        "shopId": row.shop_id,
        "title": row.title,
        "description": row.description_html,
        "descriptionText": row.description,
        "price": dollars(row.price_cents),
        "priceCents": row.price_cents,
        "category": row.category,
        "isActive": row.is_active,
        "archived": row.archived,
        "is_published": row.is_published,
        "status": row.status,
        "variants": [
            {
                "id": v.id,
                "title": v.title,
                "size": v.size,
                "color": v.colour,
                "price": v.price_cents,
                "is_enabled": v.enabled,
            }
            for v in row.variants
        ],
    }


def mockup_urls(session: Session, product_id: str) -> list[str]:
    """The cached product's mockups, one per colour (its front view first), as the copied-in
    renditions (the placeholder until they are prepared)."""
    images = session.exec(
        select(CatalogImage).where(CatalogImage.product_id == product_id).order_by(col(CatalogImage.sort_order))
    ).all()
    by_colour: dict[str, CatalogImage] = {}
    for image in images:
        if image.src and (image.position or "front") != "back":
            by_colour.setdefault(image.color or image.src, image)
    return [image_picture(image).src for image in by_colour.values()]
