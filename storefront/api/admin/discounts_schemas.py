"""Request and answer models of the staff discount routes (storefront/api/admin/discounts.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import Number, Text, _example, _Open


class DiscountBody(_Open):
    """A discount code's whole form (a change sends every field again)."""

    model_config = _example(
        {
            "code": "TOUR-BERLIN",
            "kind": "percent",
            "value": 15,
            "startsAt": "2030-06-01T09:00",
            "endsAt": "2030-06-08T00:00",
            "minSubtotal": 40,
            "usageLimit": 100,
            "perCustomerLimit": 1,
            "scope": "collections",
            "scopeValues": ["swdnn"],
            "active": True,
        }
    )

    code: Text = Field(None, description="2 to 40 letters, digits, dashes or underscores; matched in any case")
    kind: Text = Field(None, description="percent, amount or free_shipping")
    value: Number = Field(None, description="Whole percent 1-100, or dollars for an amount; none for free_shipping")
    startsAt: Text = Field(None, description="ISO date and time; without an offset it is UTC; empty: from now")
    endsAt: Text = Field(None, description="ISO date and time (after startsAt); empty: no end")
    minSubtotal: Number = Field(None, description="Dollars of subtotal the cart needs before the discount")
    usageLimit: Any = Field(None, description="Uses in all, 1 to 1,000,000; empty: no limit")
    perCustomerLimit: Any = Field(None, description="Uses per customer email; empty: no limit")
    scope: Text = Field(None, description="all (default), collections or products")
    scopeValues: Any = Field(None, description="Collection keys or product ids, for a scope other than all")
    active: Any = Field(None, description="Default true")


class ActiveBody(_Open):
    active: bool = Field(..., description="Whether shoppers can use the code")


class Discount(_Open):
    """A code with its settings, its uses and what its paid orders brought."""

    id: int
    code: str
    kind: str
    value: float | int | None = None
    description: str
    startsAt: str | None = None
    endsAt: str | None = None
    minSubtotal: float
    usageLimit: int | None = None
    perCustomerLimit: int | None = None
    scope: str
    scopeValues: list[str] = []
    active: bool
    usedCount: int = Field(description="Uses held by orders (a cancelled or expired order gives its use back)")
    paidOrders: int = Field(description="Paid orders placed with the code")
    discountGiven: float = Field(description="Dollars the code took off its paid orders")
    revenue: float = Field(description="Dollars its paid orders brought, net of refunds")
    revenueText: str


class DiscountPage(_Open):
    data: list[Discount]
    nextCursor: str | None = None
    hasMore: bool


class DiscountAnswer(_Open):
    success: bool
    discount: Discount
