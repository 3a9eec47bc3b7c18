"""The ready card each product keeps (catalog_product.card_json) on SQLite and PostgreSQL: written
with every change to the product's variants or images, equal to what the product page shows,
derived on the spot when missing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select, update

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.cards import card_page
from storefront.services.catalog.catalog import get_product
from storefront.services.catalog.listing import ProductCardSummary, fill_missing_cards, product_page
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.printify.demo import DemoPrintProvider
from tests.unit.catalog.test_catalog import add, printify_product


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


def card(session: Session, product_id: str) -> ProductCardSummary:
    """The product's card as a listing shows it."""
    for shown in product_page(session, limit=100).cards:
        if shown.id == product_id:
            return shown
    raise AssertionError(f"{product_id} is not listed")


def stored(engine: Engine, product_id: str) -> dict:
    """The card as written in the database, read by another session."""
    with Session(engine) as other:
        return json.loads(other.exec(select(CatalogProduct.card_json).where(CatalogProduct.id == product_id)).one())


def test_every_card_shows_what_the_product_page_shows(session: Session, tmp_path: Path) -> None:
    seed_catalogue_if_empty(session, DemoPrintProvider(media_dir=tmp_path / "demo", media_url="/uploads/demo"))
    session.commit()
    cards = product_page(session, limit=100).cards
    assert len(cards) == 25 and any(len(c.colors) > 1 for c in cards)
    for shown in cards:
        detail = get_product(session, shown.id)
        assert (shown.name, shown.price_cents, shown.picture, shown.sizes) == (
            detail.name, detail.price_cents, detail.picture, detail.sizes
        )
        assert [(c.name, c.sizes) for c in shown.colors] == [(c.name, c.sizes) for c in detail.colors]
    assert fill_missing_cards(session) == 0  # every card was written by the seed's own commit


def test_a_resync_with_new_prices_and_sizes_rewrites_the_card(engine: Engine, session: Session) -> None:
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True), (2, "L", 2700, True)]))
    assert (stored(engine, "p1")["price"], stored(engine, "p1")["sizes"]) == (2500, ["M", "L"])
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2600, False), (2, "L", 2900, True)]))
    assert (stored(engine, "p1")["price"], stored(engine, "p1")["sizes"]) == (2900, ["L"])
    assert (card(session, "p1").price_cents, card(session, "p1").sizes) == (2900, ("L",))


def test_a_variant_changed_through_the_orm_rewrites_the_card_in_the_same_commit(
    engine: Engine, session: Session
) -> None:
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True), (2, "L", 2700, True)]))
    medium = session.exec(select(CatalogVariant).where(CatalogVariant.variant_id == 1)).one()
    medium.is_enabled = False
    session.add(medium)
    session.commit()
    assert (stored(engine, "p1")["price"], stored(engine, "p1")["sizes"]) == (2700, ["L"])


def test_disabling_every_variant_leaves_a_card_without_price(session: Session) -> None:
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True)]))
    session.exec(update(CatalogVariant).where(col(CatalogVariant.product_id) == "p1").values(is_enabled=False))
    session.commit()
    shown = card(session, "p1")
    assert (shown.price_cents, shown.has_variants, shown.sizes) == (None, False, ())


def test_a_bulk_image_update_rewrites_the_card_of_every_product_showing_it(engine: Engine, session: Session) -> None:
    image = {"src": "https://images.example/shared.png", "position": "front", "is_default": True}
    for product_id in ("p1", "p2"):
        add(session, printify_product(product_id, "Tee", images=[dict(image)]))
    add(session, printify_product("p3", "Other", images=[{"src": "https://images.example/other.png"}]))
    assert stored(engine, "p1")["image"] is None  # not prepared yet: the placeholder
    session.exec(
        update(CatalogImage)
        .where(col(CatalogImage.src) == image["src"])
        .values(digest="d" * 24, width=1000, height=1200)
    )
    session.commit()
    for product_id in ("p1", "p2"):
        assert stored(engine, product_id)["image"] == ["d" * 24, 1000, 1200]
        assert "d" * 24 in card(session, product_id).picture.src
    assert stored(engine, "p3")["image"] is None


def test_a_rolled_back_change_leaves_the_card_as_it_was(engine: Engine, session: Session) -> None:
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True)]))
    variant = session.exec(select(CatalogVariant)).one()
    variant.price_cents = 9900
    session.add(variant)
    session.flush()
    session.rollback()
    assert stored(engine, "p1")["price"] == 2500
    session.commit()  # a later commit of the same session rebuilds from what is really there
    assert stored(engine, "p1")["price"] == 2500 and card(session, "p1").price_cents == 2500


@pytest.mark.parametrize("kept", ["", "not json", '{"v": 0, "price": 1}'])
def test_a_missing_or_old_card_is_derived_on_the_spot_and_filled_later(
    engine: Engine, session: Session, kept: str
) -> None:
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True), (2, "L", 2700, True)]))
    expected = card(session, "p1")
    session.exec(update(CatalogProduct).where(col(CatalogProduct.id) == "p1").values(card_json=kept))
    session.commit()
    assert card(session, "p1") == expected
    assert fill_missing_cards(session) == 1
    session.commit()
    assert stored(engine, "p1")["price"] == 2500 and fill_missing_cards(session) == 0


def test_the_browser_s_cards_follow_a_change_after_being_shown(session: Session) -> None:
    """A card is kept decoded and as the browser's JSON once shown (by its stored text); a change to
    the product is what the next page shows, in both forms."""
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2500, True), (2, "L", 2700, True)]))
    first = card_page(session, limit=100)
    assert card_page(session, limit=100)["cards_json"] == first["cards_json"]  # shown again, from the cache
    add(session, printify_product("p1", "Tee", variants=[(1, "M", 2600, False), (2, "L", 2900, True)]))
    again = card_page(session, limit=100)
    assert json.loads(again["cards_json"]) == again["cards"]
    assert [(c["price"], c["sizes"]) for c in again["cards"]] == [("$29.00", ["L"])]
    assert json.loads(first["cards_json"])[0]["price"] == "$25.00"
