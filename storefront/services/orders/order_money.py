"""An order's money as its answers give it: dollars as JSON numbers, from the cents kept everywhere
else. Every order answer (the shopper's, the guest lookup's, the admin API's, the checkout payload)
takes its amounts from here, and pages format the same cents with format_usd, never the dollars."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from storefront.models import Order
from storefront.services.platform.money import cents_to_dollars

_CENT = Decimal("0.01")
#: The order's amounts, in the order answers give them.
TOTALS = ("subtotal", "shipping", "tax", "total")


def dollars(cents: int) -> float:
    """Cents as a JSON number of dollars with two decimals (2499 -> 24.99)."""
    return float(cents_to_dollars(cents).quantize(_CENT))


def order_money(order: Order) -> dict[str, Any]:
    """The order's subtotal, shipping, tax and total in dollars, with its discount (the amount its
    code took off the subtotal, and the code; 0 and None without one)."""
    cents = (order.subtotal_cents, order.shipping_cents, order.tax_cents, order.total_cents)
    money: dict[str, Any] = {name: dollars(amount) for name, amount in zip(TOTALS, cents, strict=True)}
    money.update(discount=dollars(order.discount_cents), discountCode=order.discount_code)
    return money
