"""Turning a pick into a priced cart line, and bringing stored carts up to date."""

from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, update

from storefront.models import CatalogProduct, CatalogVariant
from storefront.services.catalog.catalog import get_product, line_price
from storefront.services.orders.shopping import (
    NO_VARIANTS_TEXT,
    SIZE_REQUIRED,
    new_cart_line,
    quick_add_line,
    refresh_lines,
)
from storefront.services.platform.errors import NotFoundError, ValidationError
from tests.ordering import pick, seed_demo


@pytest.fixture
def seeded(engine: Engine, tmp_path: Path) -> Engine:
    seed_demo(engine, tmp_path)
    return engine


def offer_only(engine: Engine, product_id: str, sizes: set[str], colour: str | None = None) -> None:
    """Disable every variant of the product whose size is not in `sizes` (or, when given, whose
    colour is not `colour`)."""
    other = col(CatalogVariant.size).not_in(sizes)
    if colour is not None:
        other = other | (col(CatalogVariant.color) != colour)
    with Session(engine) as session:
        session.exec(
            update(CatalogVariant).where(col(CatalogVariant.product_id) == product_id, other).values(is_enabled=False)
        )
        session.commit()


def first_colour(engine: Engine, product_id: str) -> str:
    with Session(engine) as session:
        return get_product(session, product_id).colors[0].name


def test_a_cart_line_is_priced_from_the_catalogue(seeded: Engine) -> None:
    chosen = pick(seeded, size="M")
    with Session(seeded) as session:
        line = new_cart_line(session, chosen.product_id, "M")
    assert (line.product_id, line.size, line.quantity, line.price_cents) == (
        chosen.product_id,
        "M",
        1,
        chosen.price_cents,
    )
    assert line.variant_id


def test_a_missing_size_is_refused_with_the_spec_message(seeded: Engine) -> None:
    chosen = pick(seeded)
    with Session(seeded) as session, pytest.raises(ValidationError) as raised:
        new_cart_line(session, chosen.product_id, "")
    assert raised.value.message == SIZE_REQUIRED == "Please select a size"


def test_quick_add_of_a_one_size_product_adds_that_size_at_its_price(seeded: Engine) -> None:
    chosen = pick(seeded)
    offer_only(seeded, chosen.product_id, {"L"}, first_colour(seeded, chosen.product_id))
    with Session(seeded) as session:
        line = quick_add_line(session, chosen.product_id)
        expected = line_price(session, chosen.product_id, "L")
    assert (line.size, line.quantity, line.price_cents, line.variant_id) == (
        "L", 1, expected.price_cents, expected.variant_id
    )


def test_quick_add_of_a_product_with_several_sizes_asks_for_one(seeded: Engine) -> None:
    chosen = pick(seeded)
    with Session(seeded) as session, pytest.raises(ValidationError) as raised:
        quick_add_line(session, chosen.product_id)
    assert raised.value.message == SIZE_REQUIRED


def test_quick_add_of_a_product_without_enabled_variants_is_refused_with_the_spec_message(seeded: Engine) -> None:
    chosen = pick(seeded)
    offer_only(seeded, chosen.product_id, set())
    with Session(seeded) as session, pytest.raises(ValidationError) as raised:
        quick_add_line(session, chosen.product_id)
    assert raised.value.message == NO_VARIANTS_TEXT == "No variants available for this product"


def test_a_size_the_product_does_not_come_in_is_refused(seeded: Engine) -> None:
    chosen = pick(seeded)
    with Session(seeded) as session, pytest.raises(ValidationError, match="^Size not available$"):
        new_cart_line(session, chosen.product_id, "One Size")


def test_sample_products_cannot_be_ordered(seeded: Engine) -> None:
    with Session(seeded) as session, pytest.raises(NotFoundError):
        new_cart_line(session, "sample-1", "M")


def test_refresh_replaces_a_stale_price_with_the_catalogue_price(seeded: Engine) -> None:
    chosen = pick(seeded, size="M")
    with Session(seeded) as session:
        line = new_cart_line(session, chosen.product_id, "M")
        stale = replace(line, price_cents=1, quantity=3)
        fresh, dropped = refresh_lines(session, [stale])
    assert dropped == 0
    assert (fresh[0].price_cents, fresh[0].quantity) == (chosen.price_cents, 3)


def test_refresh_drops_lines_whose_product_is_no_longer_shown(seeded: Engine) -> None:
    chosen = pick(seeded, size="M")
    with Session(seeded) as session:
        line = new_cart_line(session, chosen.product_id, "M")
        product = session.get(CatalogProduct, chosen.product_id)
        product.is_active = False
        session.commit()
        fresh, dropped = refresh_lines(session, [line])
    assert (fresh, dropped) == ([], 1)
