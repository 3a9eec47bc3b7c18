"""Answer models of the staff order routes (storefront/api/admin/orders.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import Number, _example, _Open


class AdminOrder(_Open):
    """The spec's admin Order entity, with tracking."""

    id: str
    orderNumber: str | None = None
    customerName: str | None = None
    customerEmail: str | None = None
    customerPhone: str | None = None
    subtotal: float | None = None
    shipping: float | None = None
    tax: float | None = None
    total: float | None = None
    discount: float | None = Field(None, description="What the order's discount code took off the subtotal")
    discountCode: str | None = None
    status: str | None = None
    paymentStatus: str | None = None
    printifyStatus: str | None = None
    printifyOrderId: str | None = None
    trackingNumber: str | None = None
    createdAt: str | None = None
    shippingAddress: dict[str, Any] | None = None
    items: list[dict[str, Any]] = []
    paymentProvider: str | None = None
    history: list[dict[str, Any]] | None = Field(
        None, description="Refunds, cancellations, expiry: at, actor, action, detail"
    )
    emails: list[dict[str, Any]] | None = Field(
        None,
        description="Emails to the customer: queuedAt, sentAt, kind, subject, recipient, state, attempts, lastError",
    )


class RefundLine(_Open):
    itemId: Any = Field(None, description="The line's id (the order's items[].id)")
    quantity: Any = Field(1, description="How many of it, 1 or more")


class RefundBody(_Open):
    """What to refund: an amount, or lines, or (no body) the rest of the order."""

    model_config = _example({"amount": 12.5})

    amount: Number = Field(None, description="Dollars, above 0 and at most what is left to refund")
    lines: list[RefundLine] | None = Field(None, description="Lines to refund at their price: [{itemId, quantity}]")


class ResolveBody(_Open):
    model_config = _example({"note": "Address corrected with the customer; resent by hand."})

    note: Any = Field(None, description="What was done (required, at most 2,000 characters)")


class OrderPage(_Open):
    data: list[AdminOrder]
    total: int
    nextCursor: str | None = None
    hasMore: bool


class RetryAnswer(_Open):
    success: bool
    order: AdminOrder


class CancellationAnswer(_Open):
    success: bool
    order: AdminOrder
    message: str = Field("", description="What became of the print order (already printing, cancelled, ...)")


class RevokeLinksAnswer(_Open):
    success: bool
    order: AdminOrder


class ResendAnswer(_Open):
    success: bool
    #: False when this Idempotency-Key was used before (nothing more was queued).
    queued: bool
    order: AdminOrder
