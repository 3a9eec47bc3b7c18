"""The checkout form: the fields a tab keeps while the shopper comes and goes, and the order payload
made from the form and the cart (card fields never leave the form for anywhere but the gateway)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from storefront.services.orders.cart import SOURCE_OURS, CartLine, cart_totals
from storefront.services.orders.order_money import dollars
from storefront.services.orders.order_request import BILLING_FIELD, SHIPPING_FIELD
from storefront.services.payments.gateway import CARD_FIELDS

#: An address's fields, as the checkout form names them after its prefix ("shippingAddress.city").
ADDRESS_PARTS = ("first_name", "last_name", "address1", "address2", "city", "state_code", "zip", "country_code")
#: The checkout form's fields a tab keeps while the shopper comes and goes: contact and addresses.
#: Never the card fields: card data is neither kept nor stored anywhere.
KEPT_FORM_FIELDS = frozenset(
    ("customerEmail", "customerName", "customerPhone")
    + tuple(f"{prefix}.{part}" for prefix in (SHIPPING_FIELD, BILLING_FIELD) for part in ADDRESS_PARTS)
)
#: A kept field is cut at this length (the order refuses longer values anyway, with a message).
MAX_KEPT_CHARS = 255
#: The form's starting values: the country is US, everything else empty (spec section 3).
FORM_DEFAULTS = {f"{SHIPPING_FIELD}.country_code": "US", f"{BILLING_FIELD}.country_code": "US"}


def kept_form_fields(form: Mapping[str, Any]) -> dict[str, str]:
    """The contact and address fields of a checkout form, as typed; card fields and any other key
    the browser sends are left out."""
    return {
        name: value[:MAX_KEPT_CHARS]
        for name, value in form.items()
        if name in KEPT_FORM_FIELDS and isinstance(value, str)
    }


def checkout_payload(form: Mapping[str, Any], lines: Sequence[CartLine], same_as_shipping: bool) -> dict[str, Any]:
    """The spec's order payload from the checkout form's fields and the cart, prices as shown.

    Form keys are flat ("shippingAddress.city"); card fields are dropped whatever happens, since
    card data goes only to the payment API. Only our own lines are ordered: store-catalogue lines
    are checked out on the store. A cart of store lines only sends them (with their source), so
    the order is refused with STORE_ITEMS_REFUSED rather than as an empty cart.
    """
    payload: dict[str, Any] = {}
    for name, value in form.items():
        if name in CARD_FIELDS:
            continue
        head, _, tail = name.partition(".")
        if tail:
            payload.setdefault(head, {})[tail] = value
        else:
            payload[name] = value
    payload["sameAsShipping"] = same_as_shipping
    if same_as_shipping:
        payload[BILLING_FIELD] = dict(payload.get(SHIPPING_FIELD, {}))
    ours = [line for line in lines if line.source == SOURCE_OURS]
    lines = ours if ours or not lines else list(lines)
    totals = cart_totals(lines)
    payload["items"] = [_payload_item(line) for line in lines]
    payload.update(
        subtotal=dollars(totals.subtotal_cents),
        shipping=dollars(totals.shipping_cents),
        tax=dollars(totals.tax_cents),
        total=dollars(totals.total_cents),
    )
    return payload


def _payload_item(line: CartLine) -> dict[str, Any]:
    """The spec's order line item for a cart line, with its colour when it has one."""
    item: dict[str, Any] = {
        "productId": line.product_id,
        "printifyProductId": line.product_id,
        "printifyVariantId": line.variant_id or f"{line.product_id}_{line.size}",
        "name": line.name,
        "size": line.size,
        "price": dollars(line.price_cents),
        "quantity": line.quantity,
        "imageUrl": line.image,
    }
    if line.color:
        item["color"] = line.color
    if line.source:
        item["source"] = line.source
    return item
