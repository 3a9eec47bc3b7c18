"""Request and answer models of the order routes (storefront/api/orders.py): place, pay, status, lookup."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.payments_schemas import _CARD_EXAMPLE, CardData
from storefront.api.schemas import AnyText, Email, Id, Number, Text, _example, _Open

_ADDRESS_EXAMPLE = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "address1": "12 Analytical Row",
    "city": "Albany",
    "state_code": "NY",
    "country_code": "US",
    "zip": "12207",
}


class Address(_Open):
    """An address of the checkout form (spec section 3); each field's rule is checked by the service."""

    first_name: Text = Field(None, description="Required ('First name is required')")
    last_name: Text = Field(None, description="Required ('Last name is required')")
    address1: Text = Field(None, description="Required ('Address is required')")
    address2: Text = None
    city: Text = Field(None, description="Required ('City is required')")
    state_code: Text = Field(None, description="At least 2 characters ('State is required')")
    country_code: Text = Field(None, description="At least 2 characters ('Country is required'); default US")
    zip: Text = Field(None, description="Required ('ZIP code is required')")


class OrderLine(_Open):
    """An order line as the cart sends it; its price is never trusted (the server reprices it)."""

    id: Id = None
    productId: Id = None
    printifyProductId: Id = None
    printifyVariantId: Id = None
    variantId: Id = None
    name: Text = None
    size: Text = None
    color: Text = None
    price: Number = None
    quantity: Number = None
    imageUrl: Text = None
    source: Text = None


class OrderRequest(_Open):
    """The spec's order payload."""

    model_config = _example(
        {
            "customerEmail": "ada@example.com",
            "customerName": "Ada Lovelace",
            "shippingAddress": _ADDRESS_EXAMPLE,
            "sameAsShipping": True,
            "items": [{"productId": "1", "name": "Tee", "size": "M", "price": 24.99, "quantity": 1}],
            "subtotal": 24.99,
            "shipping": 9.99,
            "tax": 0,
            "total": 34.98,
        }
    )

    customerEmail: Email = Field(None, description="A valid email ('Please enter a valid email address')")
    customerName: Text = Field(None, description="At least 2 characters ('Name must be at least 2 characters')")
    customerPhone: Text = Field(None, description="Optional")
    shippingAddress: Address | None = None
    billingAddress: Address | None = Field(None, description="Checked only when sameAsShipping is false")
    sameAsShipping: bool | None = Field(None, description="Default true")
    items: list[OrderLine] | None = Field(None, description="Not empty ('No items in cart')")
    subtotal: Number = Field(None, description="Must match the lines within 0.01 (else 'Price mismatch detected...')")
    shipping: Number = None
    tax: Number = None
    total: Number = None
    idempotencyKey: Text = Field(None, description="Or the Idempotency-Key header")
    discountCode: Text = Field(
        None,
        description="A discount code (any case). The server prices it and checks it again here: one that no "
        "longer applies is refused (422, details.discountCode) with the order's total without it",
    )


class OrderItemView(_Open):
    id: Any = None
    productId: Any = None
    variantId: Any = None
    name: str | None = None
    size: str | None = None
    color: str | None = None
    quantity: int | None = None
    price: float | None = None
    imageUrl: str | None = None


class ShopperOrder(_Open):
    """What the shopper is told about an order: lines, money in dollars, where it stands."""

    id: str
    orderNumber: str
    subtotal: float
    shipping: float
    tax: float
    total: float
    discount: float = Field(0, description="What the order's discount code took off the subtotal")
    discountCode: str | None = None
    status: str
    paymentStatus: str
    createdAt: str
    items: list[OrderItemView]


class PaymentHandoff(_Open):
    """What the browser needs to pay with Stripe's Payment Element (only when Stripe takes payments)."""

    provider: str = Field(description="'stripe'")
    clientSecret: str = Field(description="The order's PaymentIntent client secret, for Stripe.js only")
    publishableKey: str


class PlacedOrder(_Open):
    order: ShopperOrder
    accessToken: str | None = Field(None, description="Opens the order later (X-Order-Token)")
    payment: PaymentHandoff | None = Field(None, description="With Stripe: how the browser pays the order")


class ReplayedOrderRef(_Open):
    id: str = Field(description="The order the first request made")
    orderNumber: str


class ReplayedOrder(_Open):
    """The answer to a repeated request (same Idempotency-Key and body) without the order's token."""

    order: ReplayedOrderRef
    accessToken: None = Field(None, description="Never: the first answer's token stays the only one")
    replayed: bool = True


class PaymentRequest(_Open):
    model_config = _example({"paymentId": "pay_1700000000_abc123", "paymentMethod": "card", "cardData": _CARD_EXAMPLE})

    paymentId: str | int | None = Field(None, description="Client-generated; a retried request charges once")
    shopId: Any = None
    paymentMethod: Text = None
    amount: Number = None
    cardData: CardData | None = None


class PaymentAnswer(_Open):
    success: bool
    order: ShopperOrder


class OrderStatusAnswer(_Open):
    id: str
    status: str
    paymentStatus: str = Field(description="As stored, or 'partially_refunded' while part of a paid order is refunded")
    customerStatus: str = Field("", description="The one status the customer is told (awaiting_payment ... refunded)")
    customerStatusLabel: str = Field("", description="Its badge ('Shipped')")
    customerStatusText: str = Field("", description="Its sentence, as the order page and the emails say it")
    amountRefunded: Number = Field(0, description="Dollars refunded so far")
    printifyStatus: str | None = None
    printifyOrderId: str | None = None
    trackingNumber: str | None = None
    trackingCarrier: str | None = None
    trackingUrl: str | None = None
    shippedAt: str | None = None
    deliveredAt: str | None = None
    needsAttention: bool = False


class LookupRequest(_Open):
    model_config = _example({"number": "SF-000001", "email": "ada@example.com"})

    number: AnyText = Field(None, description="The order number ('SF-000123'); 'Order number is required'")
    email: AnyText = Field(
        None,
        description="The email the order was placed with; 'Email is required'",
        json_schema_extra={"format": "email"},
    )


class GuestOrder(_Open):
    """The guest view of an order (lookup or token)."""

    id: str
    orderNumber: str | None = None
