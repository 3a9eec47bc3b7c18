"""The base-price rule on its own: upcharges kept, the note staff read, negatives and costs."""

from __future__ import annotations

import pytest

from storefront.services.admin.base_price import (
    BelowCostError,
    PricedVariant,
    base_price,
    confirmed,
    move_base,
    upcharge_note,
    upcharges,
)
from storefront.services.platform.errors import ValidationError

# S, M and L at the base, 2XL and 3XL above it; a disabled 4XL that sells nowhere.
SIZES = [
    PricedVariant(1, "Black / S", 2699, 1242, True),
    PricedVariant(2, "Black / M", 2699, 1242, True),
    PricedVariant(3, "Black / 2XL", 2899, 1334, True),
    PricedVariant(4, "Black / 3XL", 2999, 1380, True),
    PricedVariant(5, "Black / 4XL", 3199, 1500, False),
]


def _pairs(variants: list[PricedVariant]) -> list[tuple[int, bool]]:
    return [(v.price_cents, v.enabled) for v in variants]


def test_the_base_is_the_first_enabled_variants_price() -> None:
    assert base_price(_pairs(SIZES)) == 2699
    assert base_price([(500, False), (700, True)]) == 700
    assert base_price([(500, False)]) == 500
    assert base_price([]) is None


def test_the_note_names_each_upcharge_of_the_sold_sizes() -> None:
    assert upcharges(_pairs(SIZES)) == [200, 300]
    assert upcharge_note(_pairs(SIZES)) == "Base price; larger sizes keep their +$2.00 / +$3.00"
    assert upcharge_note([(2499, True), (2499, True)]) == "Base price: every size sells at it"


def test_a_new_base_moves_every_variant_by_the_same_amount() -> None:
    move = move_base(SIZES, 2499)
    assert (move.base_cents, move.changed) == (2699, True)
    assert [v["price"] for v in move.variants] == [2499, 2499, 2699, 2799, 2999]
    assert [v["is_enabled"] for v in move.variants] == [True, True, True, True, False]
    assert not move_base(SIZES, 2699).changed


def test_a_variant_pushed_below_zero_refuses_the_whole_move() -> None:
    cheaper_second = [PricedVariant(1, "S", 2000, 0, True), PricedVariant(2, "M", 100, 0, True)]
    with pytest.raises(ValidationError) as excinfo:
        move_base(cheaper_second, 1000)
    assert excinfo.value.field_errors == {"price": "Invalid price value"}
    assert [v["price"] for v in move_base(cheaper_second, 1900).variants] == [1900, 0]


def test_below_cost_needs_a_confirmation_naming_the_sold_variants_only() -> None:
    move = move_base(SIZES, 1250)  # S and M stay above 12.42; the disabled 4XL is not sold
    assert move.below_cost == []
    move = move_base(SIZES, 1200)
    assert move.below_cost == ["Black / S", "Black / M"]
    with pytest.raises(BelowCostError) as excinfo:
        confirmed(move, False)
    assert excinfo.value.labels == ["Black / S", "Black / M"]
    assert "Black / S, Black / M" in excinfo.value.message
    assert confirmed(move, True) is move
