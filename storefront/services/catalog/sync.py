"""Copying provider products (Printify-shaped dicts) into the storefront's catalogue cache."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, delete, select

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant, utcnow
from storefront.services.catalog.catalog import derive_collection, plain_text
from storefront.services.media.catalog_images import apply_known_renditions
from storefront.services.printify.errors import ProviderNotFound
from storefront.services.printify.provider import PrintProvider

#: The provider refuses pages larger than 50 products.
PAGE_LIMIT = 50
#: Rows deleted per statement when products leave the cache (keeps IN lists short).
_DELETE_BATCH = 500
_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}")


@dataclass(frozen=True, slots=True)
class SyncProgress:
    """How far a catalogue sync got: products copied of the provider's total, pages read of all."""

    done: int
    total: int
    page: int
    pages: int


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a catalogue sync did: products copied and products removed from the cache."""

    synced: int
    removed: int


ProgressCallback = Callable[[SyncProgress], None]


def parse_provider_time(value: object) -> datetime | None:
    """A provider timestamp ('2017-04-18 13:24:28+00:00' or ISO) in UTC, or None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace(" ", "T", 1).replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _option_titles(product: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """Option-value id -> (option type, value title)."""
    titles: dict[int, tuple[str, str]] = {}
    for option in product.get("options") or []:
        kind = str(option.get("type") or option.get("name") or "").lower()
        for value in option.get("values") or []:
            if isinstance(value.get("id"), int):
                titles[value["id"]] = (kind, str(value.get("title", "")))
    return titles


def _variant_color_size(variant: dict[str, Any], titles: dict[int, tuple[str, str]]) -> tuple[str, str]:
    options = variant.get("options")
    if isinstance(options, dict):  # catalogue-style {color, size}
        return str(options.get("color", "")), str(options.get("size", ""))
    color = size = ""
    for value_id in options or []:
        kind, title = titles.get(value_id, ("", ""))
        if "color" in kind or "colour" in kind:
            color = title
        elif "size" in kind:
            size = title
    if not size and " / " in str(variant.get("title", "")):
        color, size = (part.strip() for part in str(variant["title"]).split(" / ", 1))
    return color, size


def colour_hexes(product: dict[str, Any]) -> dict[str, str]:
    """Colour name -> swatch '#rrggbb' from the product's colour option, where the provider gives one."""
    hexes: dict[str, str] = {}
    for option in product.get("options") or []:
        kind = str(option.get("type") or option.get("name") or "").lower()
        if "color" not in kind and "colour" not in kind:
            continue
        for value in option.get("values") or []:
            codes = value.get("colors") or []
            code = str(codes[0]).strip() if isinstance(codes, list) and codes else ""
            # Only a plain hex code: the value ends up in the page's CSS.
            if _HEX_COLOUR.fullmatch(code):
                hexes[str(value.get("title", ""))] = code.lower()
    return hexes


def image_colour(variant_ids: object, colour_of: dict[int, str]) -> str:
    """The one colour of the variants an image shows, "" when it shows several or none."""
    ids = variant_ids if isinstance(variant_ids, list) else []
    colours = {colour_of.get(vid, "") for vid in ids if isinstance(vid, int)} - {""}
    return colours.pop() if len(colours) == 1 else ""


def variant_labels(product: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """Variant id -> (colour, size) of a provider product."""
    titles = _option_titles(product)
    return {
        int(variant["id"]): _variant_color_size(variant, titles)
        for variant in product.get("variants") or []
        if isinstance(variant.get("id"), int)
    }


def upsert_product(session: Session, product: dict[str, Any], shop_id: int) -> CatalogProduct:
    """Write one provider product, its variants and images into the cache (replacing old rows)."""
    product_id = str(product["id"])
    tags = [str(tag) for tag in product.get("tags") or []]
    title = str(product.get("title") or "")
    description = str(product.get("description") or "")
    row = session.get(CatalogProduct, product_id)
    if row is None:
        row = CatalogProduct(id=product_id, shop_id=shop_id, title=title, collection_key="")
    row.shop_id = shop_id
    row.title = title
    row.description = description
    row.tags_json = json.dumps(tags)
    if not row.collection_assigned:
        row.collection_key = derive_collection(tags, title, plain_text(description))
    row.is_published = bool(product.get("is_published", product.get("visible", False)))
    row.blueprint_id = product.get("blueprint_id")
    row.print_provider_id = product.get("print_provider_id")
    row.provider_created_at = parse_provider_time(product.get("created_at"))
    row.provider_updated_at = parse_provider_time(product.get("updated_at"))
    row.synced_at = utcnow()
    session.add(row)
    session.flush()

    session.exec(delete(CatalogVariant).where(col(CatalogVariant.product_id) == product_id))
    session.exec(delete(CatalogImage).where(col(CatalogImage.product_id) == product_id))
    titles = _option_titles(product)
    hexes = colour_hexes(product)
    colour_of: dict[int, str] = {}
    for order, variant in enumerate(product.get("variants") or []):
        color, size = _variant_color_size(variant, titles)
        colour_of[int(variant["id"])] = color
        session.add(
            CatalogVariant(
                product_id=product_id,
                variant_id=int(variant["id"]),
                sku=str(variant.get("sku") or ""),
                title=str(variant.get("title") or variant.get("name") or ""),
                price_cents=int(variant.get("price") or 0),
                is_enabled=bool(variant.get("is_enabled", True)),
                color=color,
                color_hex=hexes.get(color, ""),
                size=size,
                sort_order=order,
            )
        )
    images = [
        CatalogImage(
            product_id=product_id,
            src=str(image["src"]),
            position=str(image.get("position") or ""),
            is_default=bool(image.get("is_default", False)),
            sort_order=image["order"] if isinstance(image.get("order"), int) else order,
            color=image_colour(image.get("variant_ids"), colour_of),
        )
        for order, image in enumerate(product.get("images") or [])
        if image.get("src")
    ]
    apply_known_renditions(session, images)
    session.add_all(images)
    return row


def product_pages(provider: PrintProvider, shop_id: int) -> Iterator[dict[str, Any]]:
    """Every page envelope of the shop's products, first to last (one provider call per page)."""
    page = 1
    while True:
        envelope = provider.list_products(shop_id, page=page, limit=PAGE_LIMIT)
        yield envelope
        if not envelope.get("next_page_url") or page >= int(envelope.get("last_page") or page):
            return
        page += 1


def page_progress(envelope: dict[str, Any], done: int) -> SyncProgress:
    """The progress after copying `done` products, the last of them from `envelope`."""
    page = int(envelope.get("current_page") or 1)
    return SyncProgress(
        done=done,
        total=max(int(envelope.get("total") or 0), done),
        page=page,
        pages=max(int(envelope.get("last_page") or page), page),
    )


def sync_catalogue(
    session: Session, provider: PrintProvider, shop_id: int, progress: ProgressCallback | None = None
) -> int:
    """Copy every product of the shop, page by page, into the cache; returns how many.

    The caller commits; `progress` hears about every page copied."""
    count = 0
    for envelope in product_pages(provider, shop_id):
        for product in envelope.get("data") or []:
            upsert_product(session, product, shop_id)
            count += 1
        if progress is not None:
            progress(page_progress(envelope, count))
    return count


def cached_product_ids(session: Session, shop_id: int) -> set[str]:
    """Ids of every cached product of the shop."""
    return set(session.exec(select(CatalogProduct.id).where(CatalogProduct.shop_id == shop_id)).all())


def remove_products(session: Session, product_ids: Collection[str]) -> int:
    """Delete these cached products with their variants and images; returns how many there were.
    Archived ones stay, gone at the provider or not: the orders that name them still show them."""
    ids = sorted(product_ids)
    removed = 0
    for start in range(0, len(ids), _DELETE_BATCH):
        archived = session.exec(
            select(CatalogProduct.id).where(
                col(CatalogProduct.id).in_(ids[start : start + _DELETE_BATCH]),
                col(CatalogProduct.archived_at).is_not(None),
            )
        ).all()
        batch = sorted(set(ids[start : start + _DELETE_BATCH]) - set(archived))
        # Explicit child deletes: the foreign keys cascade, but only where the database enforces them.
        session.exec(delete(CatalogVariant).where(col(CatalogVariant.product_id).in_(batch)))
        session.exec(delete(CatalogImage).where(col(CatalogImage.product_id).in_(batch)))
        result = session.exec(delete(CatalogProduct).where(col(CatalogProduct.id).in_(batch)))
        removed += result.rowcount or 0
    return removed


def sync_shop(
    session: Session, provider: PrintProvider, shop_id: int, progress: ProgressCallback | None = None
) -> SyncResult:
    """Copy every product of the shop into the cache, committing page by page and telling
    `progress` after each; then remove the products the provider no longer has."""
    seen: set[str] = set()
    totals: set[int] = set()
    for envelope in product_pages(provider, shop_id):
        for product in envelope.get("data") or []:
            upsert_product(session, product, shop_id)
            seen.add(str(product["id"]))
        session.commit()  # no transaction stays open across the next page's request
        totals.add(int(envelope.get("total") or 0))
        if progress is not None:
            progress(page_progress(envelope, len(seen)))
    missing = cached_product_ids(session, shop_id) - seen
    session.commit()
    # Pages are offsets: a product deleted mid-sync shifts the rest, so one may go unseen.
    # Only then ask the provider about each product before dropping it.
    if missing and totals != {len(seen)}:
        missing = {pid for pid in missing if _provider_lacks(provider, shop_id, pid)}
    removed = remove_products(session, missing)
    session.commit()
    return SyncResult(synced=len(seen), removed=removed)


def _provider_lacks(provider: PrintProvider, shop_id: int, product_id: str) -> bool:
    try:
        provider.get_product(shop_id, product_id)
    except ProviderNotFound:
        return True
    return False


def catalogue_is_empty(session: Session) -> bool:
    return session.exec(select(CatalogProduct.id).limit(1)).first() is None
