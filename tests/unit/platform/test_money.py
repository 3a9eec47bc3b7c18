"""Money: cents inside services, en-US dollars for display."""

from __future__ import annotations

from decimal import Decimal

import pytest

from storefront.services.platform.money import cents_to_dollars, dollars_to_cents, format_usd


@pytest.mark.parametrize(
    ("value", "cents"),
    [
        ("24.99", 2499),
        (24.99, 2499),
        (Decimal("49.99"), 4999),
        (10, 1000),
        ("0", 0),
        (" 19.99 ", 1999),
    ],
)
def test_dollars_to_cents_converts_strings_numbers_and_decimals(
    value: str | int | float | Decimal, cents: int
) -> None:
    assert dollars_to_cents(value) == cents


def test_dollars_to_cents_rounds_half_up_to_the_cent() -> None:
    assert dollars_to_cents("1.005") == 101
    assert dollars_to_cents("1.004") == 100


def test_dollars_to_cents_rounds_a_float_by_its_written_value_not_its_binary_value() -> None:
    assert dollars_to_cents(1.005) == 101


def test_dollars_to_cents_rounds_negative_halves_away_from_zero() -> None:
    assert dollars_to_cents("-1.005") == -101


@pytest.mark.parametrize(
    "value",
    ["", "abc", "12.3.4", "NaN", "inf", "-Infinity", float("nan"), float("inf"), "1e999999"],
)
def test_dollars_to_cents_rejects_non_numeric_and_non_finite_values(value: str | float) -> None:
    with pytest.raises(ValueError):
        dollars_to_cents(value)


def test_dollars_to_cents_rejects_booleans() -> None:
    with pytest.raises(ValueError):
        dollars_to_cents(True)


def test_cents_to_dollars_is_exact_with_two_decimals() -> None:
    assert cents_to_dollars(1050) == Decimal("10.50")
    assert str(cents_to_dollars(1050)) == "10.50"
    assert str(cents_to_dollars(0)) == "0.00"


@pytest.mark.parametrize(
    ("cents", "text"),
    [
        (123450, "$1,234.50"),
        (0, "$0.00"),
        (-500, "-$5.00"),
        (5, "$0.05"),
        (999, "$9.99"),
        (123456789, "$1,234,567.89"),
    ],
)
def test_format_usd_uses_en_us_format(cents: int, text: str) -> None:
    assert format_usd(cents) == text


def test_dollars_round_trip_through_cents() -> None:
    assert cents_to_dollars(dollars_to_cents("29.99")) == Decimal("29.99")
