"""Cart rules (spec sections 3, 4 and 9)."""

from __future__ import annotations

import json

import pytest

from storefront.services.orders.cart import (
    CART_STORAGE_KEY,
    MAX_LINE_QUANTITY,
    CartLine,
    add_line,
    decrement,
    dump_cart,
    increment,
    load_cart,
    remove_line,
    set_quantity,
    shipping_cents,
    subtotal_cents,
    total_cents,
    total_quantity,
)


def make_line(
    product_id: str = "prod-1", size: str = "M", quantity: int = 1, price_cents: int = 2499
) -> CartLine:
    return CartLine(
        product_id=product_id,
        name=f"Tee {product_id}",
        price_cents=price_cents,
        size=size,
        image=f"/images/{product_id}.jpg",
        quantity=quantity,
    )


def test_storage_key_is_cart_storage() -> None:
    assert CART_STORAGE_KEY == "cart-storage"


def test_adding_a_new_item_appends_a_line() -> None:
    lines = add_line((), make_line("a"))
    lines = add_line(lines, make_line("b"))
    assert [line.product_id for line in lines] == ["a", "b"]


def test_adding_same_id_and_size_raises_quantity_by_added_amount() -> None:
    lines = add_line((), make_line("a", "M", quantity=2))
    lines = add_line(lines, make_line("a", "M", quantity=3))
    assert len(lines) == 1
    assert lines[0].quantity == 5


def test_same_product_in_different_sizes_stays_separate() -> None:
    lines = add_line((), make_line("a", "M"))
    lines = add_line(lines, make_line("a", "L"))
    assert [(line.size, line.quantity) for line in lines] == [("M", 1), ("L", 1)]


def test_two_different_non_numeric_product_ids_never_merge() -> None:
    lines = add_line((), make_line("5f1a2b3c4d", "One Size"))
    lines = add_line(lines, make_line("6e9f8a7b6c", "One Size"))
    assert [line.product_id for line in lines] == ["5f1a2b3c4d", "6e9f8a7b6c"]
    assert [line.quantity for line in lines] == [1, 1]


def test_add_line_does_not_mutate_its_input() -> None:
    original = [make_line("a", quantity=1)]
    add_line(original, make_line("a", quantity=2))
    add_line(original, make_line("b"))
    assert original == [make_line("a", quantity=1)]


def test_adding_zero_quantity_is_rejected() -> None:
    with pytest.raises(ValueError):
        add_line((), make_line("a", quantity=0))


def test_set_quantity_changes_only_the_matching_line() -> None:
    lines = (make_line("a", "M"), make_line("a", "L"))
    lines = set_quantity(lines, "a", "L", 4)
    assert [line.quantity for line in lines] == [1, 4]


@pytest.mark.parametrize("quantity", [0, -1])
def test_set_quantity_below_one_is_ignored(quantity: int) -> None:
    lines = (make_line("a", quantity=2),)
    assert set_quantity(lines, "a", "M", quantity) == lines


def test_decrement_never_goes_below_one() -> None:
    lines = (make_line("a", quantity=1),)
    assert decrement(lines, "a", "M")[0].quantity == 1


def test_decrement_lowers_quantity_by_one() -> None:
    lines = (make_line("a", quantity=3),)
    assert decrement(lines, "a", "M")[0].quantity == 2


def test_increment_raises_quantity_by_one() -> None:
    lines = (make_line("a", quantity=3),)
    assert increment(lines, "a", "M")[0].quantity == 4


def test_remove_filters_by_id_and_size() -> None:
    lines = (make_line("a", "M"), make_line("a", "L"), make_line("b", "M"))
    remaining = remove_line(lines, "a", "M")
    assert [(line.product_id, line.size) for line in remaining] == [("a", "L"), ("b", "M")]


def test_total_quantity_sums_all_lines() -> None:
    lines = (make_line("a", quantity=2), make_line("b", quantity=3))
    assert total_quantity(lines) == 5


def test_total_quantity_of_empty_cart_is_zero() -> None:
    assert total_quantity(()) == 0


def test_subtotal_is_price_times_quantity_summed() -> None:
    lines = (
        make_line("a", quantity=2, price_cents=2499),
        make_line("b", quantity=1, price_cents=1999),
    )
    assert subtotal_cents(lines) == 2 * 2499 + 1999


def test_shipping_is_charged_at_exactly_one_hundred_dollars() -> None:
    assert shipping_cents(10000) == 999


def test_shipping_is_free_over_one_hundred_dollars() -> None:
    assert shipping_cents(10001) == 0


def test_total_adds_shipping_under_the_threshold() -> None:
    lines = (make_line("a", quantity=2, price_cents=2499),)
    assert total_cents(lines) == 4998 + 999


def test_total_has_no_shipping_over_the_threshold() -> None:
    lines = (make_line("a", quantity=3, price_cents=4999),)
    assert total_cents(lines) == 14997


def test_dump_cart_uses_spec_field_names_and_dollar_prices() -> None:
    line = CartLine("prod-1", "Tee", 2499, "M", "/t.jpg", 2, variant_id="12345")
    assert json.loads(dump_cart([line])) == [
        {
            "id": "prod-1",
            "name": "Tee",
            "price": 24.99,
            "size": "M",
            "image": "/t.jpg",
            "quantity": 2,
            "variantId": "12345",
        }
    ]


def test_dump_then_load_round_trips() -> None:
    lines = [
        CartLine("prod-1", "Tee", 2499, "M", "/t.jpg", 2, variant_id="12345"),
        CartLine("prod-2", "Hoodie", 4999, "One Size", "/h.jpg", 1),
    ]
    assert load_cart(dump_cart(lines)) == lines


@pytest.mark.parametrize(
    "raw",
    [None, "", "   ", "not json", "{", "42", '"text"', "null", "{}", '{"items": 3}', "[" * 100000],
)
def test_load_cart_returns_empty_cart_for_garbage(raw: str | None) -> None:
    assert load_cart(raw) == []


def test_load_cart_skips_entries_with_missing_or_wrong_fields() -> None:
    good = {"id": "ok", "name": "Tee", "price": 24.99, "size": "M", "image": "", "quantity": 1}
    bad_entries = [
        1,
        "text",
        None,
        [],
        {},
        {**good, "id": None},
        {**good, "id": ""},
        {**good, "id": True},
        {**good, "name": 5},
        {**good, "size": None},
        {**good, "size": ""},
        {**good, "price": "abc"},
        {**good, "price": -1},
        {**good, "quantity": "lots"},
        # A quantity is a whole number, here as at checkout: no fractions, no text.
        {**good, "quantity": 2.7},
        {**good, "quantity": "2"},
        {**good, "quantity": None},
        {k: v for k, v in good.items() if k != "price"},
    ]
    raw = json.dumps([*bad_entries, good])
    assert [line.product_id for line in load_cart(raw)] == ["ok"]


def test_load_cart_skips_non_finite_prices_and_quantities() -> None:
    raw = (
        '[{"id": "a", "name": "A", "price": NaN, "size": "M", "image": "", "quantity": 1},'
        ' {"id": "b", "name": "B", "price": 1, "size": "M", "image": "", "quantity": Infinity}]'
    )
    assert load_cart(raw) == []


@pytest.mark.parametrize(
    ("stored", "loaded"),
    [(0, 1), (-5, 1), (10**9, MAX_LINE_QUANTITY), (1e300, MAX_LINE_QUANTITY), (2.0, 2)],
)
def test_load_cart_clamps_quantity_to_one_through_ninety_nine(stored: object, loaded: int) -> None:
    entry = {"id": "a", "name": "A", "price": 10, "size": "M", "image": "", "quantity": stored}
    raw = json.dumps([entry])
    assert [line.quantity for line in load_cart(raw)] == [loaded]


def test_load_cart_accepts_numeric_ids_as_strings() -> None:
    entry = {"id": 9999, "name": "A", "price": 10, "size": "M", "image": "", "quantity": 1}
    raw = json.dumps([entry])
    assert load_cart(raw)[0].product_id == "9999"


def test_load_cart_defaults_a_missing_image_to_empty() -> None:
    raw = json.dumps([{"id": "a", "name": "A", "price": 10, "size": "M", "quantity": 1}])
    assert load_cart(raw)[0].image == ""


def test_load_cart_merges_duplicate_id_and_size_entries() -> None:
    entry = {"id": "a", "name": "A", "price": 10, "size": "M", "image": "", "quantity": 60}
    lines = load_cart(json.dumps([entry, entry]))
    assert [(line.product_id, line.quantity) for line in lines] == [("a", MAX_LINE_QUANTITY)]


def test_load_cart_reads_the_persisted_state_items_shape() -> None:
    entry = {"id": 7, "name": "A", "price": 19.99, "size": "S", "image": "", "quantity": 2}
    raw = json.dumps({"state": {"items": [entry]}, "version": 0})
    assert load_cart(raw) == [CartLine("7", "A", 1999, "S", "", 2)]
