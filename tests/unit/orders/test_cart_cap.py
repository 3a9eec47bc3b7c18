"""A cart holds at most 100 distinct lines, however big the stored cart, and is repriced in a
constant number of queries (issue 23: a 6,500-line cart cost 12.3 s of server work)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.services.catalog import catalog
from storefront.services.orders import cart
from storefront.services.orders.cart import CartLine, add_line, dump_cart, read_cart
from storefront.services.orders.checkout import TOO_MANY_ITEMS, OrderLineRequest, reprice_lines, validate_order_payload
from storefront.services.orders.shopping import refresh_lines
from storefront.services.platform.errors import ValidationError
from tests.ordering import order_payload, pick, seed_demo


def stored_entry(index: int, size: str = "M") -> dict[str, object]:
    return {"id": f"p-{index}", "name": f"Tee {index}", "price": 25, "size": size, "image": "", "quantity": 1}


def line(index: int) -> CartLine:
    return CartLine(f"p-{index}", f"Tee {index}", 2500, "M", "", 1)


@contextmanager
def counted_statements(engine: Engine) -> Iterator[list[str]]:
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


# --------------------------------------------------------------------------- loading


def test_a_6500_line_cart_loads_as_its_first_100_lines_with_the_message() -> None:
    stored = read_cart(json.dumps([stored_entry(i) for i in range(6500)]))
    assert [line.product_id for line in stored.lines] == [f"p-{i}" for i in range(100)]
    assert stored.trimmed
    assert cart.CART_TRIMMED == "Your cart had more than 100 items; only the first 100 were kept."


def test_a_cart_of_100_lines_loads_whole_without_the_message() -> None:
    stored = read_cart(json.dumps([stored_entry(i) for i in range(100)]))
    assert len(stored.lines) == 100 and not stored.trimmed


def test_duplicate_entries_merge_and_do_not_count_against_the_cap() -> None:
    entries = [stored_entry(i) for i in range(100)] + [stored_entry(0)] * 3
    stored = read_cart(json.dumps(entries))
    assert len(stored.lines) == 100 and stored.lines[0].quantity == 4 and not stored.trimmed


def test_a_stored_cart_longer_than_the_cap_is_not_parsed_past_it() -> None:
    # Parsed whole, the one entry would load; read only up to the cap, it is cut off and skipped.
    huge = json.dumps([{**stored_entry(1), "name": "x" * 5_000_000}])
    assert read_cart(huge).lines == []
    kept = json.dumps([stored_entry(0), {**stored_entry(1), "name": "x" * 5_000_000}])
    stored = read_cart(kept)
    assert [line.product_id for line in stored.lines] == ["p-0"] and stored.trimmed


def test_a_broken_tail_keeps_the_entries_before_it() -> None:
    raw = json.dumps([stored_entry(0), stored_entry(1)])[:-5]
    assert [line.product_id for line in read_cart(raw).lines] == ["p-0"]


# --------------------------------------------------------------------------- adding


def test_a_101st_distinct_line_is_refused() -> None:
    full = tuple(line(i) for i in range(100))
    with pytest.raises(ValidationError) as refused:
        add_line(full, line(100))
    assert refused.value.message == cart.CART_FULL
    assert "at most 100 different items" in cart.CART_FULL


def test_a_full_cart_still_takes_more_of_a_line_it_holds() -> None:
    full = tuple(line(i) for i in range(100))
    assert add_line(full, line(7))[7].quantity == 2


def test_an_order_of_more_lines_than_a_cart_holds_is_refused() -> None:
    payload = json.loads(json.dumps(order_payload()))
    payload["items"] = [{**stored_entry(i), "productId": f"p-{i}"} for i in range(cart.MAX_CART_LINES + 1)]
    with pytest.raises(ValidationError) as refused:
        validate_order_payload(payload)
    assert refused.value.field_errors["items"] == TOO_MANY_ITEMS


# --------------------------------------------------------------------------- repricing


@pytest.fixture
def seeded(engine: Engine, tmp_path: Path) -> Engine:
    seed_demo(engine, tmp_path)
    return engine


def hundred_real_lines(engine: Engine) -> list[CartLine]:
    """100 distinct lines of the demo catalogue (every product in each of its sizes)."""
    lines: list[CartLine] = []
    with Session(engine) as session:
        for product in catalog.search_products(session):
            for size in product.sizes:
                lines.append(CartLine(product.id, product.name, 1, size, "", 1))
    assert len(lines) >= 100
    return lines[:100]


def test_a_6500_line_cart_is_repriced_in_two_queries(seeded: Engine) -> None:
    real = hundred_real_lines(seeded)
    stored = json.loads(dump_cart(real)) + [stored_entry(i) for i in range(6400)]
    lines = read_cart(json.dumps(stored)).lines
    with Session(seeded) as session, counted_statements(seeded) as statements:
        fresh, dropped = refresh_lines(session, lines)
    # One query for the names and prices of every product, one for their pictures.
    assert len(statements) == 2
    assert (len(fresh), dropped) == (100, 0)
    assert all(line.price_cents > 1 for line in fresh)


def test_repricing_gives_the_prices_a_single_line_gets(seeded: Engine) -> None:
    real = hundred_real_lines(seeded)
    with Session(seeded) as session:
        fresh, _ = refresh_lines(session, real)
        for line in fresh[:: 17]:
            assert line.price_cents == catalog.line_price(session, line.product_id, line.size, line.color).price_cents


def test_an_order_of_100_lines_is_repriced_in_two_queries(seeded: Engine) -> None:
    chosen = pick(seeded)
    items = [OrderLineRequest(chosen.product_id, chosen.size, 1, chosen.price_cents)] * 100
    with Session(seeded) as session, counted_statements(seeded) as statements:
        priced = reprice_lines(session, items)
    assert len(priced) == 100 and len(statements) == 2
