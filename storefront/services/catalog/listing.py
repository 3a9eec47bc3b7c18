"""Listing pages: product cards a page at a time, each from the ready card its product keeps.

A card (price, sizes, colours and picture: what a listing shows) is derived from the product's
variants and images. Deriving it for every card of every page was most of a listing's cost, so
each product keeps its card in `catalog_product.card_json`, rebuilt in the same transaction as
any change to its variants or images (the session hooks below). A page is then one query on one
table. A product whose card is missing or of an older format is derived on the spot.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import and_, event, func, update
from sqlalchemy.orm import ORMExecuteState, Session as OrmSession
from sqlmodel import Session, col, or_, select

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.catalog import (
    LISTING_ORDER,
    PLACEHOLDER_PICTURE,
    chosen_image,
    enabled_sizes,
    first_enabled_variant,
    in_size_order,
    matching,
)
from storefront.services.catalog.text_search import search_text
from storefront.services.media.images import Picture, PreparedImage, picture

MAX_PAGE_SIZE = 100
#: The format of `card_json`; a card of another version is derived again.
CARD_VERSION = 1
_STALE_KEY = "stale_product_cards"
#: Product ids per query when cards are rebuilt.
_REBUILD_BATCH = 500
#: Stored cards kept decoded (a listing shows the same cards again and again; a change to a
#: product changes its stored card, so an entry is never stale).
DECODED_CARDS = 4096


@dataclass(frozen=True, slots=True)
class CardColour:
    """A colour of a card's Quick Add menu and the sizes it comes in."""

    name: str
    sizes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProductCardSummary:
    """Only what a listing card shows (and its Quick Add menu needs): no description, no variants."""

    id: str
    name: str
    price_cents: int | None
    picture: Picture
    has_variants: bool
    sizes: tuple[str, ...]
    colors: tuple[CardColour, ...]

    @property
    def image_url(self) -> str:
        return self.picture.src


@dataclass(frozen=True, slots=True)
class ProductPage:
    """One page of a listing: its cards, the cursor of the next page ("" when this is the last)
    and how many products match in all (None when the caller did not ask)."""

    cards: tuple[ProductCardSummary, ...]
    next_cursor: str
    total: int | None


# --------------------------------------------------------------------------- the ready card


def card_json(variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> str:
    """A product's card as stored: the same rules the product page and cart prices follow."""
    first = first_enabled_variant(variants)
    colour_sizes: dict[str, list[str]] = {}
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and variant.color:
            sizes = colour_sizes.setdefault(variant.color, [])
            if variant.size and variant.size not in sizes:
                sizes.append(variant.size)
    image = chosen_image(images)
    card: dict[str, Any] = {
        "v": CARD_VERSION,
        "price": first.price_cents if first is not None else None,
        "sizes": list(enabled_sizes(variants)),
        # One colour is no choice: a one-colour product's card offers sizes only.
        "colors": [[name, list(in_size_order(sizes))] for name, sizes in colour_sizes.items()]
        if len(colour_sizes) > 1
        else [],
        "image": [image.digest, image.width, image.height] if image is not None and image.digest else None,
    }
    return json.dumps(card, separators=(",", ":"))


@lru_cache(maxsize=DECODED_CARDS)
def _card(product_id: str, name: str, stored: str) -> ProductCardSummary | None:
    """The card kept for a product; None when it is missing or of another format."""
    try:
        card = json.loads(stored) if stored else None
    except ValueError:
        return None
    if not isinstance(card, dict) or card.get("v") != CARD_VERSION:
        return None
    image = card["image"]
    return ProductCardSummary(
        id=product_id,
        name=name,
        price_cents=card["price"],
        picture=picture(PreparedImage(digest=image[0], width=image[1], height=image[2]))
        if image
        else PLACEHOLDER_PICTURE,
        has_variants=card["price"] is not None,
        sizes=tuple(card["sizes"]),
        colors=tuple(CardColour(name=name, sizes=tuple(sizes)) for name, sizes in card["colors"]),
    )


def card_pictures(session: Session, stored: Mapping[str, str]) -> dict[str, Picture]:
    """The card's picture of each product ({id: its `card_json`}): the placeholder for one without
    an image; a card missing or of an older format is derived now."""
    cards = {pid: _card(pid, "", card) for pid, card in stored.items()}
    missing = [pid for pid, card in cards.items() if card is None]
    if missing:
        cards.update({pid: _card(pid, "", card) for pid, card in derive_cards(session, missing).items()})
    return {pid: card.picture for pid, card in cards.items() if card is not None}


def _grouped(session: Session, model: type[Any], product_ids: Sequence[str]) -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = {pid: [] for pid in product_ids}
    rows = session.exec(
        select(model).where(col(model.product_id).in_(product_ids)).order_by(col(model.sort_order), col(model.id))
    ).all()
    for row in rows:
        grouped[row.product_id].append(row)
    return grouped


def derive_cards(session: Session, product_ids: Sequence[str]) -> dict[str, str]:
    """The card of each of these products, derived from its variants and images now."""
    cards: dict[str, str] = {}
    for start in range(0, len(product_ids), _REBUILD_BATCH):
        batch = list(product_ids[start : start + _REBUILD_BATCH])
        variants = _grouped(session, CatalogVariant, batch)
        images = _grouped(session, CatalogImage, batch)
        cards.update({pid: card_json(variants[pid], images[pid]) for pid in batch})
    return cards


def rebuild_cards(session: Session, product_ids: Iterable[str]) -> None:
    """Write the card of each of these products (those that no longer exist are skipped)."""
    ids = sorted(set(product_ids))
    table = CatalogProduct.__table__  # type: ignore[attr-defined]
    for product_id, card in derive_cards(session, ids).items():
        # A Core update: it neither marks the product dirty nor fires the hooks again.
        session.execute(update(table).where(table.c.id == product_id).values(card_json=card))


def fill_missing_cards(session: Session) -> int:
    """Write the card of every product without one of the current format (after a migration or
    a format change); returns how many were written."""
    rows = session.exec(select(CatalogProduct.id, CatalogProduct.card_json)).all()
    stale = [pid for pid, stored in rows if _card(pid, "", stored) is None]
    rebuild_cards(session, stale)
    return len(stale)


# --------------------------------------------------------------------------- keeping cards current


def _stale(session: OrmSession) -> set[str]:
    return session.info.setdefault(_STALE_KEY, set())


@event.listens_for(OrmSession, "after_flush")
def _note_changed_rows(session: OrmSession, _context: Any) -> None:
    """Remember the products whose variants or images this flush wrote (new, changed, deleted)."""
    stale = _stale(session)
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, (CatalogVariant, CatalogImage)):
            stale.add(row.product_id)
        elif isinstance(row, CatalogProduct) and row in session.new:
            stale.add(row.id)


_CARD_TABLES = {CatalogVariant.__tablename__, CatalogImage.__tablename__}


@event.listens_for(OrmSession, "do_orm_execute")
def _note_bulk_writes(state: ORMExecuteState) -> None:
    """Remember the products a bulk UPDATE or DELETE of variants or images is about to change."""
    if not (state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    if table is None or getattr(table, "name", None) not in _CARD_TABLES:
        return
    where = state.statement.whereclause  # type: ignore[attr-defined]
    query = select(table.c.product_id).distinct()
    if where is not None:
        query = query.where(where)
    _stale(state.session).update(state.session.execute(query).scalars())


@event.listens_for(OrmSession, "before_commit")
def _rebuild_changed_cards(session: OrmSession) -> None:
    """Rebuild the noted products' cards inside the transaction that changed them."""
    session.flush()
    stale = session.info.pop(_STALE_KEY, None)
    if stale:
        rebuild_cards(session, stale)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- keyset pages


def _encode_cursor(created: datetime | None, title: str, product_id: str) -> str:
    """An opaque cursor: the sort key of the last row of a page."""
    raw = json.dumps([created.isoformat() if created is not None else None, title, product_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime | None, str, str] | None:
    """The sort key a cursor holds; None for an empty or malformed cursor (the first page)."""
    if not cursor:
        return None
    try:
        created, title, product_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return (datetime.fromisoformat(created) if created is not None else None, str(title), str(product_id))
    except (ValueError, TypeError, binascii.Error):
        return None


def _after(key: tuple[datetime | None, str, str]) -> Any:
    """SQL condition: the row comes after `key` in LISTING_ORDER (keyset paging)."""
    created, title, product_id = key
    created_col, title_col, id_col = (
        col(CatalogProduct.provider_created_at),
        col(CatalogProduct.title),
        col(CatalogProduct.id),
    )
    later_in_tie = or_(title_col > title, and_(title_col == title, id_col > product_id))
    if created is None:  # among the undated, which come last
        return and_(created_col.is_(None), later_in_tie)
    return or_(
        created_col.is_(None),
        created_col < created,
        and_(created_col == created, later_in_tie),
    )


#: Search statements kept built, by what they search (typing a search repeats its prefixes, and
#: building one is a good part of a page's cost).
PAGE_STATEMENTS = 512
_CARD_COLUMNS: tuple[Any, ...] = (
    CatalogProduct.id, CatalogProduct.title, CatalogProduct.provider_created_at, CatalogProduct.card_json
)


@lru_cache(maxsize=PAGE_STATEMENTS)
def _page_statements(
    query: str, collection_key: str | None, match_description: bool, limit: int, counted: bool
) -> tuple[Any, Any]:
    """(the count of matches, the first page's rows and one more to tell whether a page follows),
    built once: SQLAlchemy statements are immutable, and one built before keeps its cache key. A
    later page adds its cursor's condition to the page."""
    conditions = matching(query=query, collection_key=collection_key, match_description=match_description)
    count = select(func.count()).select_from(CatalogProduct).where(*conditions)
    page = (
        select(*_CARD_COLUMNS, *([func.count().over()] if counted else []))
        .where(*conditions)
        .order_by(*LISTING_ORDER)
        .limit(limit + 1)
    )
    return count, page


def product_page(
    session: Session,
    *,
    query: str = "",
    collection_key: str | None = None,
    match_description: bool = False,
    cursor: str = "",
    limit: int = 24,
    with_total: bool = True,
) -> ProductPage:
    """One page of shown products matching the search, newest first, as cards; the total of
    matches only `with_total` (a Load More already knows it).

    Keyset paging: the cursor is where the previous page ended, so products added or removed
    between two requests never make a page skip or repeat one that was there all along."""
    limit = min(max(limit, 1), MAX_PAGE_SIZE)
    key = _decode_cursor(cursor)
    # On PostgreSQL the first page counts the matches in the same query (a window over every match,
    # taken before the LIMIT): one round trip instead of two. SQLite has no round trip to save, and
    # its window would keep every matching row (card and all) where a COUNT reads only an index.
    counted = with_total and key is None and session.get_bind().dialect.name != "sqlite"
    count, page = _page_statements(search_text(query), collection_key, match_description, limit, counted)
    total = int(session.exec(count).one()) if with_total and not counted else None
    rows = session.exec(page if key is None else page.where(_after(key))).all()
    if counted:
        total = int(rows[0][4]) if rows else 0
    rows, more = rows[:limit], len(rows) > limit
    cards = {row[0]: _card(row[0], row[1], row[3]) for row in rows}
    missing = [pid for pid, card in cards.items() if card is None]
    if missing:
        titles = {row[0]: row[1] for row in rows}
        cards.update({pid: _card(pid, titles[pid], stored) for pid, stored in derive_cards(session, missing).items()})
    last = rows[-1] if rows else None
    return ProductPage(
        cards=tuple(card for card in cards.values() if card is not None),
        next_cursor=_encode_cursor(last[2], last[1], last[0]) if more and last is not None else "",
        total=total,
    )

