"""Listing pages (keyset cursor) on SQLite and PostgreSQL: no skip, no repeat, search in SQL, counts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, fields
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, delete

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.catalog import search_products
from storefront.services.catalog.listing import ProductCardSummary, product_page
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.printify.demo import DemoPrintProvider
from tests.unit.catalog.test_catalog import add, printify_product


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


@pytest.fixture
def demo(session: Session, tmp_path: Path) -> Session:
    seed_catalogue_if_empty(session, DemoPrintProvider(media_dir=tmp_path / "demo", media_url="/uploads/demo"))
    session.commit()
    return session


def stamp(minute: int) -> str:
    return f"2024-05-01 10:{minute:02d}:00+00:00"


def seed(session: Session, count: int, *, same_time: bool = False, title: str = "Tee") -> list[str]:
    """`count` products; with same_time they all share one creation time (ties broken by title, id)."""
    ids = []
    for i in range(count):
        when = stamp(0) if same_time else stamp(i % 60)
        add(session, printify_product(f"p{i:03d}", f"{title} {i % 7}", created_at=when))
        ids.append(f"p{i:03d}")
    return ids


def remove(session: Session, product_id: str) -> None:
    session.exec(delete(CatalogVariant).where(CatalogVariant.product_id == product_id))  # type: ignore[arg-type]
    session.exec(delete(CatalogImage).where(CatalogImage.product_id == product_id))  # type: ignore[arg-type]
    session.exec(delete(CatalogProduct).where(CatalogProduct.id == product_id))  # type: ignore[arg-type]
    session.commit()


def walk(session: Session, limit: int, **search) -> list[str]:
    """Every id, following the cursors page by page."""
    seen, cursor = [], ""
    while True:
        page = product_page(session, cursor=cursor, limit=limit, **search)
        seen += [card.id for card in page.cards]
        if not page.next_cursor:
            return seen
        cursor = page.next_cursor


def test_pages_follow_the_listing_order_without_skip_or_repeat(demo: Session) -> None:
    assert walk(demo, 4) == [p.id for p in search_products(demo)]


def test_a_page_holds_at_most_limit_cards_and_the_total(demo: Session) -> None:
    page = product_page(demo, limit=24)
    assert (len(page.cards), page.total, bool(page.next_cursor)) == (24, 25, True)
    last = product_page(demo, limit=24, cursor=page.next_cursor)
    assert (len(last.cards), last.total, last.next_cursor) == (1, 25, "")


def test_cards_carry_only_what_a_card_shows(demo: Session) -> None:
    assert {f.name for f in fields(ProductCardSummary)} == {
        "id", "name", "price_cents", "picture", "has_variants", "sizes", "colors"
    }
    card = product_page(demo, limit=1).cards[0]
    assert card.sizes and card.price_cents is not None


@pytest.mark.parametrize("same_time", [False, True])
def test_products_added_between_pages_never_make_a_page_skip_or_repeat(session: Session, same_time: bool) -> None:
    original = seed(session, 30, same_time=same_time)
    first = product_page(session, limit=10)
    # Newer, older and same-time products arrive before the next page is asked for.
    add(session, printify_product("new-newest", "Tee new", created_at="2030-01-01 00:00:00+00:00"))
    add(session, printify_product("new-oldest", "Tee old", created_at="2000-01-01 00:00:00+00:00"))
    add(session, printify_product("new-tied", "Tee 3", created_at=stamp(0)))
    seen = [c.id for c in first.cards]
    cursor = first.next_cursor
    while cursor:
        page = product_page(session, cursor=cursor, limit=10)
        seen += [c.id for c in page.cards]
        cursor = page.next_cursor
    assert len(seen) == len(set(seen))
    assert set(original) <= set(seen)


@pytest.mark.parametrize("same_time", [False, True])
def test_products_removed_between_pages_never_make_a_page_skip_or_repeat(session: Session, same_time: bool) -> None:
    seed(session, 30, same_time=same_time)
    first = product_page(session, limit=10)
    seen = [c.id for c in first.cards]
    removed = {seen[-1], seen[0]}  # the cursor's own row and one already shown
    later = product_page(session, cursor=first.next_cursor, limit=10).cards[0].id
    removed.add(later)  # and one not yet shown
    for product_id in removed:
        remove(session, product_id)
    cursor = first.next_cursor
    while cursor:
        page = product_page(session, cursor=cursor, limit=10)
        seen += [c.id for c in page.cards]
        cursor = page.next_cursor
    assert len(seen) == len(set(seen))
    assert set(seen) | removed == {f"p{i:03d}" for i in range(30)}
    assert later not in seen


def test_undated_products_come_last_and_page_too(session: Session) -> None:
    seed(session, 5)
    for i in range(5):
        product = printify_product(f"u{i}", f"Undated {i}")
        product["created_at"] = None
        add(session, product)
    ids = walk(session, 3)
    assert ids == [p.id for p in search_products(session)]
    assert ids[-5:] == [f"u{i}" for i in range(5)]


def test_search_pages_match_the_title_case_insensitively(session: Session) -> None:
    seed(session, 20, title="Classic Tee")
    seed_other = [printify_product(f"h{i}", f"Hoodie {i}", created_at=stamp(i)) for i in range(5)]
    for product in seed_other:
        add(session, product)
    page = product_page(session, query="  cLaSsIc ", limit=8)
    assert page.total == 20 and all("Classic" in c.name for c in page.cards)
    assert walk(session, 8, query="classic") == [p.id for p in search_products(session, query="classic")]


def test_collection_pages_page_and_count(demo: Session) -> None:
    all_in = [p.id for p in search_products(demo, collection_key="hwdkn")]
    page = product_page(demo, collection_key="hwdkn", limit=2)
    assert page.total == len(all_in) and len(page.cards) == 2
    assert walk(demo, 2, collection_key="hwdkn") == all_in


def test_collection_search_matches_name_and_description(demo: Session) -> None:
    page = product_page(demo, query="KANGAROO pocket", collection_key="swdnn", match_description=True)
    assert page.total == 1 and "Hoodie" in page.cards[0].name
    assert product_page(demo, query="KANGAROO pocket", collection_key="swdnn").total == 0


def test_a_malformed_cursor_starts_from_the_first_page(demo: Session) -> None:
    assert product_page(demo, cursor="not a cursor!", limit=3) == product_page(demo, limit=3)


def test_twenty_four_cards_stay_far_below_the_update_budget(session: Session) -> None:
    # A listing update carries one page of cards; 30 KiB is the budget of one update.
    for i in range(24):
        add(session, printify_product(f"p{i}", "A long product title " * 5, description="<p>" + "x" * 5000 + "</p>"))
    page = product_page(session, limit=24)
    size = len(json.dumps([asdict(card) for card in page.cards]))
    assert size < 30 * 1024
