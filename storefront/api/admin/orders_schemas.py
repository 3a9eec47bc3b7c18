"""Answer models of the staff order routes (storefront/api/admin/orders.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import _Open


class AdminOrder(_Open):
    """The spec's admin Order entity, with tracking."""

    id: str
    orderNumber: str | None = None  # noqa: N815
    customerName: str | None = None  # noqa: N815
    customerEmail: str | None = None  # noqa: N815
    customerPhone: str | None = None  # noqa: N815
    subtotal: float | None = None
    shipping: float | None = None
    tax: float | None = None
    total: float | None = None
    status: str | None = None
    paymentStatus: str | None = None  # noqa: N815
    printifyStatus: str | None = None  # noqa: N815
    printifyOrderId: str | None = None  # noqa: N815
    trackingNumber: str | None = None  # noqa: N815
    createdAt: str | None = None  # noqa: N815
    shippingAddress: dict[str, Any] | None = None  # noqa: N815
    items: list[dict[str, Any]] = []
    paymentProvider: str | None = None  # noqa: N815
    history: list[dict[str, Any]] | None = Field(None, description="Refunds, cancellations, expiry: at, actor, action, detail")
    emails: list[dict[str, Any]] | None = Field(
        None, description="Emails to the customer: queuedAt, sentAt, kind, subject, recipient, state, attempts, lastError"
    )


class OrderPage(_Open):
    data: list[AdminOrder]
    total: int
    nextCursor: str | None = None  # noqa: N815
    hasMore: bool  # noqa: N815


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
