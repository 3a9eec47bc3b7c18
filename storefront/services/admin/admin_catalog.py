"""The back office's view of the catalogue cache, and every product action staff can take.

Reads come from the cache. A change goes to the print provider first and reaches the cache only
once the provider accepted it, in one transaction: an action is complete or refused with a
reason, and a refused one changes nothing locally. Provider errors (ProviderError) reach the
caller unchanged, carrying the provider's details; `printify.errors.provider_reason` words them
for a toast. The catalogue sync (`sync_shop`) lives in `catalog/sync.py`.
No database transaction is open while the provider is called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from storefront.collections import COLLECTIONS
from storefront.models import CatalogProduct, CatalogVariant
from storefront.services.admin.product_forms import (
    DESCRIPTION_NOT_TEXT,
    DESCRIPTION_TOO_SHORT,
    INVALID_PRICE,
    MIN_DESCRIPTION_CHARS,
    MIN_TITLE_CHARS,
    PRINT_PROVIDERS,
    PRODUCT_TYPES,
    SELECT_PRINT_PROVIDER,
    SELECT_PRODUCT_TYPE,
    TITLE_REQUIRED,
    TITLE_TOO_SHORT,
    ProductForm,
    category_key,
    checked_changes,
    choice,
    parse_price,
    parse_product_id,
    raise_if,
    title_errors,
    whole_number,
)
from storefront.services.catalog.catalog import PRODUCT_NOT_FOUND, listing_price, plain_text, storefront_handle
from storefront.services.catalog.sync import remove_products, upsert_product, variant_labels
from storefront.services.platform.errors import NotFoundError, ServiceError, ValidationError
from storefront.services.platform.money import cents_to_dollars
from storefront.services.printify.errors import ProviderError, ProviderNotFound, provider_reason
from storefront.services.printify.provider import PRODUCT_LOCKED_CODE, PUBLISH_EVERYTHING, PrintProvider
from storefront.services.catalog.text_search import contains_text

# --------------------------------------------------------------------------- the spec's texts

SELECT_PRODUCT_TO_PUBLISH = "Please select a product to publish"
#: Failure texts of the admin toasts (spec section 8); the API answers them as `error`.
FAILED_TO_LOAD_PRODUCTS = "Failed to load products for selected shop"
FAILED_TO_CREATE_PRODUCT = "Failed to create product"
FAILED_TO_PUBLISH_PRODUCT = "Failed to publish product"
FAILED_TO_UPDATE_PRODUCT = "Failed to update product"
FAILED_TO_UPDATE_IN_PRINTIFY = "Failed to update product in Printify"
FAILED_TO_UPDATE_CATEGORY = "Failed to update product category in database"
FAILED_TO_PUBLISH_OR_UNPUBLISH = "Failed to publish/unpublish product"
FAILED_TO_SYNC_PRICE_WITH_PRINTIFY = "Failed to sync price with Printify"
FAILED_TO_SYNC_PRODUCT_PRICE = "Failed to sync product price"

# --------------------------------------------------------------------------- our own texts

INVALID_VISIBILITY = "Visibility must be true or false"
INVALID_LIMIT_TEMPLATE = "Limit must be a whole number from 1 to {max}"
INVALID_OFFSET = "Offset must be a whole number, 0 or more"
UNKNOWN_VARIANT = "Unknown variant"
CATALOGUE_NOT_UPDATED = (
    "The print provider saved the change, but the store's catalogue could not be updated. "
    "Sync the catalogue to catch up."
)

# --------------------------------------------------------------------------- constants

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
CATEGORY_PREVIEW = 3
PUBLISHED = "published"
UNPUBLISHED = "unpublished"
INVALID_LIMIT = INVALID_LIMIT_TEMPLATE.format(max=MAX_PAGE_SIZE)


class CatalogueWriteError(ServiceError):
    """The provider accepted a change but the cache could not record it (a sync catches up)."""

    status_code = 500


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


@dataclass(frozen=True, slots=True)
class VariantMargin:
    """A variant's price, the provider's cost and what is left, in cents."""

    id: int
    title: str
    size: str
    colour: str
    enabled: bool
    price_cents: int
    cost_cents: int
    margin_cents: int
    #: Margin as a percentage of the price, one decimal; None for a zero price.
    margin_percent: float | None


def _page_number(value: object, minimum: int, maximum: int | None, message: str, field: str) -> int:
    number = whole_number(value)
    if number is None or number < minimum or (maximum is not None and number > maximum):
        raise ValidationError(message, {field: message})
    return number


# --------------------------------------------------------------------------- reading the cache


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


def _row(product: CatalogProduct, variants: Sequence[CatalogVariant]) -> AdminProductRow:
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


def _filters(shop_id: int | None, query: str, category: str | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if shop_id is not None:
        conditions.append(col(CatalogProduct.shop_id) == shop_id)
    needle = query.strip()
    if needle:
        conditions.append(contains_text(needle, in_description=True))
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
) -> ProductPage:
    """A page of the shop's products, hidden and unpublished ones included, newest first; `query`
    matches title or description case-insensitively, `category` keeps one collection, and
    `unpublished_first` puts what still awaits publishing ahead (the publish select)."""
    size = _page_number(limit, 1, MAX_PAGE_SIZE, INVALID_LIMIT, "limit")
    start = _page_number(offset, 0, None, INVALID_OFFSET, "offset")
    conditions = _filters(shop_id, query, category)
    total = session.exec(select(func.count()).select_from(CatalogProduct).where(*conditions)).one()
    products = session.exec(
        select(CatalogProduct)
        .where(*conditions)
        .order_by(*((col(CatalogProduct.is_published),) if unpublished_first else ()), *_newest_first())
        .offset(start)
        .limit(size)
    ).all()
    variants = _variants_of(session, [p.id for p in products])
    return ProductPage(
        rows=[_row(p, variants[p.id]) for p in products], total=int(total), limit=size, offset=start
    )


def get_product_row(session: Session, product_id: str) -> AdminProductRow:
    """One cached product as a row; NotFoundError when it is not cached."""
    product = session.get(CatalogProduct, parse_product_id(product_id))
    if product is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return _row(product, _variants_of(session, [product.id])[product.id])


def shop_of(session: Session, product_id: str) -> int:
    """The shop a cached product belongs to; NotFoundError when it is not cached."""
    shop_id = session.exec(select(CatalogProduct.shop_id).where(CatalogProduct.id == parse_product_id(product_id))).first()
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


# --------------------------------------------------------------------------- writing the cache


def _store(
    session: Session,
    product: dict[str, Any],
    shop_id: int,
    *,
    category: str | None = None,
    failure: str = CATALOGUE_NOT_UPDATED,
) -> AdminProductRow:
    """Write the provider's answer (and a staff placement) into the cache in one transaction."""
    try:
        row = upsert_product(session, product, shop_id)
        if category is not None:
            row.collection_key, row.collection_assigned = category, True
        session.commit()
    except SQLAlchemyError as exc:
        session.rollback()
        raise CatalogueWriteError(failure) from exc
    return get_product_row(session, row.id)


def set_visibility(session: Session, product_id: str, active: object) -> AdminProductRow:
    """Show or hide a product on the storefront (the cache only: the provider has no such flag)."""
    if not isinstance(active, bool):
        raise ValidationError(INVALID_VISIBILITY, {"isActive": INVALID_VISIBILITY})
    product = session.get(CatalogProduct, parse_product_id(product_id))
    if product is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    product.is_active = active
    session.add(product)
    session.commit()
    return get_product_row(session, product.id)


# --------------------------------------------------------------------------- provider actions


def _priced_variants(product: dict[str, Any], price_cents: int) -> list[dict[str, Any]]:
    """Every variant of a provider product at one price, each keeping its enabled flag."""
    return [
        {"id": v["id"], "price": price_cents, "is_enabled": bool(v.get("is_enabled", True))}
        for v in product.get("variants") or []
    ]


def update_product(
    session: Session,
    provider: PrintProvider,
    shop_id: int,
    product_id: str,
    *,
    title: object,
    description: object,
    price: object,
    category: object | None = None,
) -> AdminProductRow:
    """The editor's Save: title, description (None keeps it) and every variant at `price` (dollars
    as typed) at the provider, then those and the category (when given) in the cache."""
    errors: dict[str, str] = {}
    try:
        price_cents = parse_price(price)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    if (title_error := title_errors(title, 1, TITLE_REQUIRED)) is not None:
        errors["title"] = title_error
    if description is not None and not isinstance(description, str):
        errors["description"] = DESCRIPTION_NOT_TEXT
    key: str | None = None
    if category is not None and category != "":
        try:
            key = category_key(category)
        except ValidationError as exc:
            errors.update(exc.field_errors)
    raise_if(errors)
    product_id = parse_product_id(product_id)
    current = provider.get_product(shop_id, product_id)
    changes: dict[str, Any] = {"title": str(title).strip(), "variants": _priced_variants(current, price_cents)}
    if description is not None:
        changes["description"] = description
    answer = provider.update_product(shop_id, product_id, changes)
    return _store(session, answer, shop_id, category=key)


def set_category(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, category: object
) -> AdminProductRow:
    """Place a product in a collection: provider tags [KEY], then the cache's placement."""
    key = category_key(category)
    answer = provider.update_product(shop_id, parse_product_id(product_id), {"tags": [key.upper()]})
    return _store(session, answer, shop_id, category=key, failure=FAILED_TO_UPDATE_CATEGORY)


def sync_price(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, price: object
) -> AdminProductRow:
    """Every variant of the product to one price (dollars as typed), at the provider then in the cache."""
    price_cents = parse_price(price)
    product_id = parse_product_id(product_id)
    current = provider.get_product(shop_id, product_id)
    answer = provider.update_product(shop_id, product_id, {"variants": _priced_variants(current, price_cents)})
    return _store(session, answer, shop_id)


def set_variant_prices(
    session: Session,
    provider: PrintProvider,
    shop_id: int,
    product_id: str,
    prices: Mapping[int, object],
) -> AdminProductRow:
    """The pricing editor: each listed variant (id -> dollars as typed) to its own price."""
    product_id = parse_product_id(product_id)
    errors: dict[str, str] = {}
    cents: dict[int, int] = {}
    for variant_id, price in prices.items():
        try:
            cents[variant_id] = parse_price(price)
        except ValidationError:
            errors[f"variants.{variant_id}.price"] = INVALID_PRICE
    raise_if(errors)
    if not cents:
        return get_product_row(session, product_id)
    current = provider.get_product(shop_id, product_id)
    known = {v["id"] for v in current.get("variants") or []}
    raise_if({f"variants.{vid}.id": UNKNOWN_VARIANT for vid in cents if vid not in known})
    variants = [{"id": vid, "price": price} for vid, price in cents.items()]
    answer = provider.update_product(shop_id, product_id, {"variants": variants})
    return _store(session, answer, shop_id)


def update_provider_product(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, changes: object
) -> AdminProductRow:
    """Send a provider-shaped change ({tags} or {title, description, variants} with prices in
    cents) to the provider, then its answer to the cache (placements made by staff are kept)."""
    checked = checked_changes(changes)
    answer = provider.update_product(shop_id, parse_product_id(product_id), checked)
    return _store(session, answer, shop_id)


def create_product(session: Session, provider: PrintProvider, shop_id: int, form: ProductForm) -> AdminProductRow:
    """Create a product from the form: every catalogue variant of the product type at that print
    provider, enabled, at the form's price; unpublished until published."""
    errors: dict[str, str] = {}
    if (title_error := title_errors(form.title, MIN_TITLE_CHARS, TITLE_TOO_SHORT)) is not None:
        errors["title"] = title_error
    description = form.description.strip() if isinstance(form.description, str) else ""
    if len(description) < MIN_DESCRIPTION_CHARS:
        errors["description"] = DESCRIPTION_TOO_SHORT
    blueprint_id = choice(form.blueprint_id, PRODUCT_TYPES)
    if blueprint_id is None:
        errors["blueprintId"] = SELECT_PRODUCT_TYPE
    print_provider_id = choice(form.print_provider_id, PRINT_PROVIDERS)
    if print_provider_id is None:
        errors["printProviderId"] = SELECT_PRINT_PROVIDER
    try:
        price_cents = parse_price(form.price)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    raise_if(errors)
    assert blueprint_id is not None and print_provider_id is not None
    catalogue = provider.catalog_variants(blueprint_id, print_provider_id)
    body = {
        "title": form.title.strip(),
        "description": description,
        "blueprint_id": blueprint_id,
        "print_provider_id": print_provider_id,
        "variants": [{"id": v["id"], "price": price_cents, "is_enabled": True} for v in catalogue["variants"]],
    }
    return _store(session, provider.create_product(shop_id, body), shop_id)


def publish_product(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str | None
) -> AdminProductRow:
    """Publish a product to the storefront: the provider starts the publish and locks the product;
    the storefront is the sales channel, so it confirms at once (which unlocks it). A product still
    locked by a publish nobody confirmed is confirmed now."""
    if not isinstance(product_id, str) or not product_id.strip():
        raise ValidationError(SELECT_PRODUCT_TO_PUBLISH, {"productId": SELECT_PRODUCT_TO_PUBLISH})
    product_id = product_id.strip()
    try:
        provider.publish_product(shop_id, product_id, dict(PUBLISH_EVERYTHING))
    except ProviderError as exc:
        if exc.code != PRODUCT_LOCKED_CODE:
            raise
    try:
        provider.publishing_succeeded(shop_id, product_id, {"id": product_id, "handle": storefront_handle(product_id)})
    except ProviderError as exc:
        _unlock(provider, shop_id, product_id, provider_reason(exc))
        raise
    return _store(session, provider.get_product(shop_id, product_id), shop_id)


def _unlock(provider: PrintProvider, shop_id: int, product_id: str, reason: str) -> None:
    """Report a failed publish so the provider unlocks the product; the first error is the one told."""
    try:
        provider.publishing_failed(shop_id, product_id, reason)
    except ProviderError:
        pass


def unpublish_product(session: Session, provider: PrintProvider, shop_id: int, product_id: str) -> AdminProductRow:
    """Take a product off the storefront, at the provider then in the cache."""
    product_id = parse_product_id(product_id)
    provider.unpublish_product(shop_id, product_id)
    return _store(session, provider.get_product(shop_id, product_id), shop_id)


def refresh_product(session: Session, provider: PrintProvider, shop_id: int, product_id: str) -> AdminProductRow:
    """Copy one product from the provider into the cache again; one the provider no longer has
    leaves the cache (and ProviderNotFound is raised)."""
    product_id = parse_product_id(product_id)
    try:
        product = provider.get_product(shop_id, product_id)
    except ProviderNotFound:
        remove_products(session, [product_id])
        session.commit()
        raise
    return _store(session, product, shop_id)


# --------------------------------------------------------------------------- margins


def margins_of(product: dict[str, Any]) -> list[VariantMargin]:
    """Each variant's price, cost and margin (price minus cost) of a provider product."""
    labels = variant_labels(product)
    margins = []
    for variant in product.get("variants") or []:
        price, cost = int(variant.get("price") or 0), int(variant.get("cost") or 0)
        colour, size = labels.get(int(variant["id"]), ("", ""))
        margin = price - cost
        margins.append(
            VariantMargin(
                id=int(variant["id"]),
                title=str(variant.get("title") or ""),
                size=size,
                colour=colour,
                enabled=bool(variant.get("is_enabled", True)),
                price_cents=price,
                cost_cents=cost,
                margin_cents=margin,
                margin_percent=round(margin * 100 / price, 1) if price else None,
            )
        )
    return margins


def variant_margins(provider: PrintProvider, shop_id: int, product_id: str) -> list[VariantMargin]:
    """The product's variant margins with the provider's current costs (costs are not cached)."""
    return margins_of(provider.get_product(shop_id, parse_product_id(product_id)))


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


def serialize_margin(margin: VariantMargin) -> dict[str, Any]:
    return {
        "id": margin.id,
        "title": margin.title,
        "size": margin.size,
        "color": margin.colour,
        "is_enabled": margin.enabled,
        "price": margin.price_cents,
        "cost": margin.cost_cents,
        "margin": margin.margin_cents,
        "marginPercent": margin.margin_percent,
    }
