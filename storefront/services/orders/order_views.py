"""An order as the shopper's browser and the admin API are told about it (camelCase, money in dollars
from order_money)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from storefront.models import Order, OrderItem
from storefront.services.orders.customer_status import answer_payment_status
from storefront.services.orders.order_money import dollars, order_money


def shipping_address(order: Order) -> dict[str, Any]:
    """The order's shipping address with the checkout form's field names."""
    return {
        "first_name": order.first_name,
        "last_name": order.last_name,
        "address1": order.address1,
        "address2": order.address2,
        "city": order.city,
        "state_code": order.state_code,
        "zip": order.zip,
        "country_code": order.country_code,
    }


def _item_view(item: OrderItem) -> dict[str, Any]:
    return {
        "id": item.id,
        "productId": item.product_id,
        "variantId": item.variant_id,
        "name": item.name,
        "size": item.size,
        "color": item.color,
        "quantity": item.quantity,
        "price": dollars(item.unit_price_cents),
        "imageUrl": item.image_url,
    }


def shopper_view(order: Order, items: Sequence[OrderItem]) -> dict[str, Any]:
    """What the shopper's browser is told about its order: what was bought and where it stands.

    No name, contact, address or card details: the browser already has what it typed, and an
    answer that repeats them could only ever leak them.
    """
    return {
        "id": order.number,
        "orderNumber": order.number,
        **order_money(order),
        "status": order.status,
        "paymentStatus": answer_payment_status(order),
        "createdAt": order.created_at.isoformat(),
        "items": [_item_view(item) for item in items],
    }


def serialize_order(order: Order, items: Sequence[OrderItem]) -> dict[str, Any]:
    """The spec's admin Order entity: camelCase keys, money in dollars; "id" is the order number."""
    billing = json.loads(order.billing_address_json) if order.billing_address_json else None
    return {
        "id": order.number,
        "orderNumber": order.number,
        "customerName": order.customer_name,
        "customerEmail": order.customer_email,
        "customerPhone": order.customer_phone,
        **order_money(order),
        "status": order.status,
        "paymentStatus": answer_payment_status(order),
        "amountRefunded": dollars(order.refunded_cents),
        "paymentProvider": order.payment_provider,
        "cardBrand": order.card_brand,
        "cardLast4": order.card_last4,
        "printifyStatus": order.printify_status,
        "printifyOrderId": order.printify_order_id,
        "trackingNumber": order.tracking_number,
        "attentionReason": order.attention_reason,
        "createdAt": order.created_at.isoformat(),
        "updatedAt": order.updated_at.isoformat(),
        "shippingAddress": shipping_address(order),
        "billingAddress": billing,
        "items": [_item_view(item) for item in items],
    }
