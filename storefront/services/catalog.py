"""Catalogue rules: collection derivation and the storefront's read side of the cached catalogue.

Every read here comes from the database cache (catalog_product, catalog_variant, catalog_image);
nothing calls the print provider. Shoppers only ever see products that are active and published.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TypeVar

from sqlalchemy import func
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, or_, select

from storefront.collections import COLLECTIONS, DEFAULT_COLLECTION_KEY, DERIVATION_ORDER
from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.errors import NotFoundError, ValidationError

_Row = TypeVar("_Row", CatalogVariant, CatalogImage)

PLACEHOLDER_IMAGE = "/images/product-placeholder.jpg"
SIZE_ORDER: tuple[str, ...] = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL")
PRODUCT_NOT_FOUND = "Product not found"
SIZE_NOT_AVAILABLE = "Size not available"
PREVIEW_POSITION = "preview"

_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


# --------------------------------------------------------------------------- collection derivation


def _word_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """Any of `words` as a whole word, case-insensitive, optionally plural ('Zetas', 'Redz')."""
    alternatives = "|".join(re.escape(word) for word in words)
    return re.compile(rf"\b(?:{alternatives})[sz]?\b", re.IGNORECASE)


# An explicit collection key outranks every looser keyword ('HWDRN tee for a Kappa' is hwdrn).
_KEY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (collection.key, _word_pattern([collection.key])) for collection in DERIVATION_ORDER
)
_KEYWORD_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (collection.key, _word_pattern(collection.keywords)) for collection in DERIVATION_ORDER
)


def _matching_collection(text: str) -> str | None:
    """The collection named in `text`: keys first, then keywords, each in the spec's order."""
    text = text.replace("\u2019", "'")  # a typographic apostrophe still spells K's
    for patterns in (_KEY_PATTERNS, _KEYWORD_PATTERNS):
        found = next((key for key, pattern in patterns if pattern.search(text)), None)
        if found is not None:
            return found
    return None


def derive_collection(tags: Iterable[str], title: str, description: str) -> str:
    """The collection key of a product: tags first, then title plus description, default swdnn."""
    return (
        _matching_collection(" ".join(tags))
        or _matching_collection(f"{title} {description}")
        or DEFAULT_COLLECTION_KEY
    )


# --------------------------------------------------------------------------- read models


@dataclass(frozen=True, slots=True)
class ProductSummary:
    """A product as a listing card shows it; price in cents, None when no variant is enabled."""

    id: str
    name: str
    description: str
    price_cents: int | None
    image_url: str
    collection_key: str
    is_active: bool
    has_variants: bool
    sizes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProductDetail(ProductSummary):
    """A product as its detail page shows it: summary plus HTML description and each size's price."""

    description_html: str
    size_prices: dict[str, int]
    is_sample: bool


@dataclass(frozen=True, slots=True)
class LinePrice:
    """The unit price of a cart line and the provider variant it orders."""

    price_cents: int
    variant_id: str


# --------------------------------------------------------------------------- pure helpers


def plain_text(description_html: str) -> str:
    """Description HTML as plain text: tags stripped, entities decoded, whitespace collapsed."""
    text = html.unescape(_TAG.sub(" ", description_html or ""))
    return _SPACE.sub(" ", text).strip()


def pick_image(images: Iterable[CatalogImage]) -> str:
    """The 'preview' image, else the first image by sort_order, else the placeholder."""
    ordered = sorted(images, key=lambda image: image.sort_order)
    preview = next((i for i in ordered if (i.position or "").lower() == PREVIEW_POSITION), None)
    chosen = preview or (ordered[0] if ordered else None)
    return chosen.src if chosen is not None and chosen.src else PLACEHOLDER_IMAGE


def enabled_sizes(variants: Iterable[CatalogVariant]) -> tuple[str, ...]:
    """Distinct sizes of enabled variants in SIZE_ORDER; unknown sizes after, first-seen order."""
    seen: list[str] = []
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and variant.size and variant.size not in seen:
            seen.append(variant.size)
    rank = {size: index for index, size in enumerate(SIZE_ORDER)}
    # sorted() is stable, so unknown sizes (all ranked last) keep their first-seen order.
    return tuple(sorted(seen, key=lambda size: rank.get(size, len(SIZE_ORDER))))


def first_enabled_variant(variants: Iterable[CatalogVariant], size: str | None = None) -> CatalogVariant | None:
    """The variant a line ships: the first enabled one in provider order, of exactly `size` when
    given (an empty size matches nothing), of any size when None."""
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and (size is None or (size and variant.size == size)):
            return variant
    return None


def listing_price(variants: Iterable[CatalogVariant]) -> int | None:
    """Price of the first enabled variant in provider order, None when none is enabled."""
    variant = first_enabled_variant(variants)
    return variant.price_cents if variant is not None else None


def size_prices(variants: Sequence[CatalogVariant]) -> dict[str, int]:
    """Each offered size's price: what line_price charges for that size."""
    prices: dict[str, int] = {}
    for size in enabled_sizes(variants):
        variant = first_enabled_variant(variants, size)
        if variant is not None:
            prices[size] = variant.price_cents
    return prices


def _summary(row: CatalogProduct, variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> ProductSummary:
    """The listing card of a cached product."""
    price_cents = listing_price(variants)
    return ProductSummary(
        id=row.id,
        name=row.title,
        description=plain_text(row.description),
        price_cents=price_cents,
        image_url=pick_image(images),
        collection_key=row.collection_key,
        is_active=row.is_active,
        has_variants=price_cents is not None,
        sizes=enabled_sizes(variants),
    )


def _detail(row: CatalogProduct, variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> ProductDetail:
    """The detail view of a cached product."""
    summary = _summary(row, variants, images)
    return ProductDetail(
        **{field.name: getattr(summary, field.name) for field in fields(summary)},
        description_html=row.description,
        size_prices=size_prices(variants),
        is_sample=False,
    )


# --------------------------------------------------------------------------- sample products


def _sample(product_id: str, name: str, price_cents: int, description_html: str) -> ProductDetail:
    """One built-in sample product (swdnn, sizes S-XL at one price, placeholder image)."""
    sizes = ("S", "M", "L", "XL")
    return ProductDetail(
        id=product_id,
        name=name,
        description=plain_text(description_html),
        price_cents=price_cents,
        image_url=PLACEHOLDER_IMAGE,
        collection_key=DEFAULT_COLLECTION_KEY,
        is_active=True,
        has_variants=True,
        sizes=sizes,
        description_html=description_html,
        size_prices=dict.fromkeys(sizes, price_cents),
        is_sample=True,
    )


#: The spec's built-in fallbacks for /product/{id}: shown, never listed, never orderable.
SAMPLE_PRODUCTS: tuple[ProductDetail, ...] = (
    _sample(
        "sample-1",
        "SWDNN Classic Crimson Tee",
        2499,
        "<p>A soft ringspun cotton tee in crimson with the SWDNN letters printed in cream across the chest.</p>"
        "<p>Regular fit, ribbed crew neck and double-stitched hems.</p>",
    ),
    _sample(
        "sample-2",
        "SWDNN Signature Pullover Hoodie",
        4999,
        "<p>A cosy cotton-blend fleece hoodie with a lined hood, drawstrings and a kangaroo pocket.</p>"
        "<p>Crimson body with cream SWDNN lettering.</p>",
    ),
    _sample(
        "sample-3",
        "SWDNN Everyday Cream Tee",
        1999,
        "<p>A lightweight everyday tee in cream with a small crimson SWDNN mark on the chest.</p>"
        "<p>Pre-shrunk cotton for a fit that lasts.</p>",
    ),
)
SAMPLE_PRODUCTS_BY_ID: dict[str, ProductDetail] = {p.id: p for p in SAMPLE_PRODUCTS}


# --------------------------------------------------------------------------- queries


def _shown() -> ColumnElement[bool]:
    """SQL condition: the product is shown to shoppers (active and published)."""
    return (col(CatalogProduct.is_active).is_(True)) & (col(CatalogProduct.is_published).is_(True))


def _grouped_by_product(session: Session, model: type[_Row], product_ids: Sequence[str]) -> dict[str, list[_Row]]:
    """Rows of `model` for these products in their sort order, grouped by product id (one query)."""
    grouped: dict[str, list[_Row]] = {pid: [] for pid in product_ids}
    if not product_ids:
        return grouped
    rows = session.exec(
        select(model).where(col(model.product_id).in_(product_ids)).order_by(col(model.sort_order), col(model.id))
    ).all()
    for row in rows:
        grouped[row.product_id].append(row)
    return grouped


def _variants_by_product(session: Session, product_ids: Sequence[str]) -> dict[str, list[CatalogVariant]]:
    return _grouped_by_product(session, CatalogVariant, product_ids)


def _images_by_product(session: Session, product_ids: Sequence[str]) -> dict[str, list[CatalogImage]]:
    return _grouped_by_product(session, CatalogImage, product_ids)


def search_products(
    session: Session,
    *,
    query: str = "",
    collection_key: str | None = None,
    match_description: bool = False,
    limit: int | None = None,
    offset: int = 0,
) -> list[ProductSummary]:
    """Shown products whose title (or description) contains the query, newest first."""
    statement = select(CatalogProduct).where(_shown())
    needle = query.strip()
    if needle:
        title_match = col(CatalogProduct.title).icontains(needle, autoescape=True)
        if match_description:
            title_match = or_(title_match, col(CatalogProduct.description).icontains(needle, autoescape=True))
        statement = statement.where(title_match)
    if collection_key is not None:
        statement = statement.where(col(CatalogProduct.collection_key) == collection_key.strip().lower())
    statement = statement.order_by(
        col(CatalogProduct.provider_created_at).is_(None),  # undated last on every backend
        col(CatalogProduct.provider_created_at).desc(),
        col(CatalogProduct.title),
        col(CatalogProduct.id),
    )
    if offset:
        statement = statement.offset(max(offset, 0))
    if limit is not None:
        statement = statement.limit(max(limit, 0))
    rows = session.exec(statement).all()
    ids = [row.id for row in rows]
    variants = _variants_by_product(session, ids)
    images = _images_by_product(session, ids)
    return [_summary(row, variants[row.id], images[row.id]) for row in rows]


def newest_products(session: Session, limit: int = 12) -> list[ProductSummary]:
    """The newest shown products."""
    return search_products(session, limit=limit)


def collection_counts(session: Session) -> dict[str, int]:
    """Shown products per collection key, every collection present (0 when empty)."""
    rows = session.exec(
        select(CatalogProduct.collection_key, func.count())
        .where(_shown())
        .group_by(col(CatalogProduct.collection_key))
    ).all()
    found = {key: int(count) for key, count in rows}
    return {collection.key: found.get(collection.key, 0) for collection in COLLECTIONS}


def _shown_product(session: Session, product_id: str) -> CatalogProduct | None:
    """The cached product if it is shown to shoppers, else None."""
    row = session.get(CatalogProduct, product_id) if product_id else None
    return row if row is not None and row.is_active and row.is_published else None


def get_product(session: Session, product_id: str) -> ProductDetail:
    """A shown cached product, else the sample with this id; NotFoundError otherwise."""
    row = _shown_product(session, product_id)
    if row is not None:
        ids = [row.id]
        return _detail(row, _variants_by_product(session, ids)[row.id], _images_by_product(session, ids)[row.id])
    sample = SAMPLE_PRODUCTS_BY_ID.get(product_id)
    if sample is not None:
        return sample
    raise NotFoundError(PRODUCT_NOT_FOUND)


def line_price(session: Session, product_id: str, size: str) -> LinePrice:
    """Unit price of a cart line: the first enabled variant of exactly that size."""
    row = _shown_product(session, product_id)
    if row is None:  # unknown, hidden, or a sample (samples cannot be ordered)
        raise NotFoundError(PRODUCT_NOT_FOUND)
    variant = first_enabled_variant(_variants_by_product(session, [row.id])[row.id], size)
    if variant is None:
        raise ValidationError(SIZE_NOT_AVAILABLE, {"size": SIZE_NOT_AVAILABLE})
    return LinePrice(price_cents=variant.price_cents, variant_id=str(variant.variant_id))
