"""The pricing rules of discount codes, in cents: percent rounding, fixed amounts, scope, the
minimum subtotal, and the free-shipping threshold applied to the subtotal after the discount."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from storefront.models import DiscountCode
from storefront.services.discounts import rules
from storefront.services.discounts.quotes import apply_code
from storefront.services.discounts.rules import DiscountLine, DiscountRule, discount_cents
from storefront.services.orders.cart import SHIPPING_CENTS, totals_for

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
TEE = DiscountLine("tee", "swdnn", 2499)
HOODIE = DiscountLine("hoodie", "hwdkn", 5999)


def _code(**fields: object) -> DiscountCode:
    values: dict[str, object] = {"id": 1, "code": "SAVE", "code_key": "SAVE", "kind": rules.PERCENT, "percent": 10}
    values.update(fields)
    return DiscountCode(**values)


@pytest.mark.parametrize(
    ("cents", "percent", "expected"),
    [
        (2499, 10, 250),  # 249.9 rounds up
        (2445, 10, 245),  # 244.5 rounds half up
        (2444, 10, 244),  # 244.4 rounds down
        (1, 50, 1),  # half a cent rounds up to the cent
        (999, 100, 999),  # never more than the lines
        (3333, 15, 500),  # 499.95
    ],
)
def test_a_percent_is_rounded_half_up_to_the_cent(cents: int, percent: int, expected: int) -> None:
    rule = DiscountRule(rules.PERCENT, percent=percent)
    assert discount_cents(rule, [DiscountLine("p", "swdnn", cents)]) == expected


def test_a_fixed_amount_never_takes_more_than_the_lines_it_applies_to() -> None:
    assert discount_cents(DiscountRule(rules.AMOUNT, amount_cents=500), [TEE]) == 500
    assert discount_cents(DiscountRule(rules.AMOUNT, amount_cents=5000), [TEE]) == 2499


def test_free_shipping_takes_nothing_off_the_subtotal() -> None:
    assert discount_cents(DiscountRule(rules.FREE_SHIPPING), [TEE, HOODIE]) == 0


def test_a_collection_scope_discounts_only_that_collections_lines() -> None:
    rule = DiscountRule(rules.PERCENT, percent=20, scope=rules.SCOPE_COLLECTIONS, scope_values=frozenset({"hwdkn"}))
    assert discount_cents(rule, [TEE, HOODIE]) == 1200  # 20% of 59.99 = 11.998
    assert discount_cents(rule, [TEE]) == 0


def test_a_product_scope_discounts_only_the_chosen_products() -> None:
    rule = DiscountRule(rules.AMOUNT, amount_cents=3000, scope=rules.SCOPE_PRODUCTS, scope_values=frozenset({"tee"}))
    assert discount_cents(rule, [TEE, HOODIE]) == 2499


def test_a_code_for_other_items_is_refused_with_the_reason() -> None:
    code = _code(scope=rules.SCOPE_PRODUCTS, scope_values_json=json.dumps(["hoodie"]))
    assert apply_code(code, [TEE], NOW).refusal == rules.CODE_NOT_IN_SCOPE
    applied = apply_code(code, [TEE, HOODIE], NOW).applied
    assert applied is not None and applied.discount_cents == 600  # 10% of the hoodie only


def test_the_minimum_is_the_subtotal_before_the_discount() -> None:
    code = _code(min_subtotal_cents=5000)
    assert apply_code(code, [TEE], NOW).refusal == "This discount code needs a subtotal of at least $50.00."
    exactly = apply_code(code, [DiscountLine("p", "swdnn", 5000)], NOW).applied
    assert exactly is not None and exactly.discount_cents == 500


def test_a_code_applies_only_inside_its_window_and_while_active() -> None:
    window = {"starts_at": NOW, "ends_at": NOW + timedelta(days=1)}
    assert apply_code(_code(**window), [TEE], NOW - timedelta(seconds=1)).refusal == rules.CODE_NOT_STARTED
    assert apply_code(_code(**window), [TEE], NOW).applied is not None
    assert apply_code(_code(**window), [TEE], NOW + timedelta(days=1)).refusal == rules.CODE_EXPIRED
    assert apply_code(_code(active=False), [TEE], NOW).refusal == rules.CODE_UNKNOWN


def test_a_used_up_code_is_refused_unless_the_order_already_holds_a_use() -> None:
    code = _code(usage_limit=5, used_count=5)
    assert apply_code(code, [TEE], NOW).refusal == rules.CODE_USED_UP
    assert apply_code(code, [TEE], NOW, holds_use=True).applied is not None


def test_free_shipping_over_100_counts_the_subtotal_after_the_discount() -> None:
    # $110.00 of goods is over $100 and ships free; with $15.00 off it is $95.00 and pays shipping.
    assert totals_for(11000).shipping_cents == 0
    discounted = totals_for(11000, 1500)
    assert (discounted.subtotal_cents, discounted.discount_cents, discounted.shipping_cents) == (11000, 1500, 999)
    assert discounted.total_cents == 11000 - 1500 + SHIPPING_CENTS
    # Exactly $100.00 after the discount is not over $100.
    assert totals_for(11000, 1000).shipping_cents == SHIPPING_CENTS
    assert totals_for(11000, 999).shipping_cents == 0


def test_a_free_shipping_code_ships_free_under_the_threshold() -> None:
    totals = totals_for(2499, 0, free_shipping=True)
    assert (totals.shipping_cents, totals.total_cents) == (0, 2499)


def test_a_discount_never_makes_the_total_negative() -> None:
    totals = totals_for(1000, 5000)
    assert (totals.discount_cents, totals.total_cents) == (1000, SHIPPING_CENTS)


def test_codes_are_matched_without_regard_to_case() -> None:
    assert rules.code_key("  tour-Berlin ") == "TOUR-BERLIN"
