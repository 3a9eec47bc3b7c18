"""A discount code's rules as plain values, and what it takes off a cart, in cents.

Pure functions: no database. A percent is rounded half up to the cent; a fixed amount never takes
more than the lines it applies to; free shipping takes nothing off the subtotal (the order's
shipping is then 0). The minimum subtotal is the cart's subtotal before any discount.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from storefront.models import DiscountCode
from storefront.services.platform.money import format_usd

PERCENT, AMOUNT, FREE_SHIPPING = "percent", "amount", "free_shipping"
KINDS = (PERCENT, AMOUNT, FREE_SHIPPING)
SCOPE_ALL, SCOPE_COLLECTIONS, SCOPE_PRODUCTS = "all", "collections", "products"
SCOPES = (SCOPE_ALL, SCOPE_COLLECTIONS, SCOPE_PRODUCTS)

# What a shopper is told when a code does not apply (the cart's field, the checkout's refusal).
CODE_UNKNOWN = "This discount code is not valid."
CODE_NOT_STARTED = "This discount code is not active yet."
CODE_EXPIRED = "This discount code has expired."
CODE_USED_UP = "This discount code has reached its usage limit."
CODE_USED_BY_EMAIL = "This discount code was already used with this email address."
CODE_MINIMUM = "This discount code needs a subtotal of at least {minimum}."
CODE_NOT_IN_SCOPE = "This discount code does not apply to the items in your cart."
#: Added to a refusal at checkout: the order's total without the code, before any charge.
NEW_TOTAL = "{reason} Your total without it is {total}."


@dataclass(frozen=True, slots=True)
class DiscountLine:
    """One cart line as a code sees it: its product, the product's collection, and its line total."""

    product_id: str
    collection_key: str
    line_total_cents: int


@dataclass(frozen=True, slots=True)
class DiscountRule:
    """What a code takes off and what it applies to."""

    kind: str
    percent: int = 0
    amount_cents: int = 0
    min_subtotal_cents: int = 0
    scope: str = SCOPE_ALL
    scope_values: frozenset[str] = frozenset()

    @classmethod
    def of(cls, code: DiscountCode) -> DiscountRule:
        return cls(
            kind=code.kind,
            percent=code.percent,
            amount_cents=code.amount_cents,
            min_subtotal_cents=code.min_subtotal_cents,
            scope=code.scope,
            scope_values=frozenset(scope_values(code)),
        )

    def applies_to(self, line: DiscountLine) -> bool:
        if self.scope == SCOPE_COLLECTIONS:
            return line.collection_key in self.scope_values
        if self.scope == SCOPE_PRODUCTS:
            return line.product_id in self.scope_values
        return True


def scope_values(code: DiscountCode) -> list[str]:
    """The collection keys or product ids a code is limited to ([] for the whole cart)."""
    try:
        values = json.loads(code.scope_values_json or "[]")
    except ValueError:
        return []
    return [str(value) for value in values] if isinstance(values, list) else []


def eligible_cents(rule: DiscountRule, lines: Sequence[DiscountLine]) -> int:
    """The subtotal of the lines the code applies to."""
    return sum(line.line_total_cents for line in lines if rule.applies_to(line))


def discount_cents(rule: DiscountRule, lines: Sequence[DiscountLine]) -> int:
    """What the code takes off the subtotal, in cents (0 for free shipping)."""
    eligible = eligible_cents(rule, lines)
    if rule.kind == PERCENT:
        return min((eligible * rule.percent + 50) // 100, eligible)
    if rule.kind == AMOUNT:
        return min(rule.amount_cents, eligible)
    return 0


def refusal(code: DiscountCode, lines: Sequence[DiscountLine], now: datetime, *, holds_use: bool = False) -> str:
    """Why the code does not apply to these lines now ('' when it does). Uses claimed by orders
    count here as a hint (not for an order that `holds_use` already); the claim itself
    (claims.py) is what holds under a rush."""
    if not code.active:
        return CODE_UNKNOWN
    if code.starts_at is not None and now < code.starts_at:
        return CODE_NOT_STARTED
    if code.ends_at is not None and now >= code.ends_at:
        return CODE_EXPIRED
    if not holds_use and code.usage_limit is not None and code.used_count >= code.usage_limit:
        return CODE_USED_UP
    subtotal = sum(line.line_total_cents for line in lines)
    if subtotal < code.min_subtotal_cents:
        return CODE_MINIMUM.format(minimum=format_usd(code.min_subtotal_cents))
    if eligible_cents(DiscountRule.of(code), lines) <= 0:
        return CODE_NOT_IN_SCOPE
    return ""


def code_key(text: str) -> str:
    """A code as it is matched: trimmed and upper-cased."""
    return text.strip().upper()


def describe(code: DiscountCode) -> str:
    """'15% off', '$5.00 off' or 'Free shipping'."""
    if code.kind == PERCENT:
        return f"{code.percent}% off"
    if code.kind == AMOUNT:
        return f"{format_usd(code.amount_cents)} off"
    return "Free shipping"


def describe_applied(code: str, discount: int, free_shipping: bool) -> str:
    """What the field says of an applied code: 'SAVE10 · -$2.50' or 'SHIPFREE · Free shipping'."""
    return f"{code} · {'Free shipping' if free_shipping else format_usd(-discount)}"
