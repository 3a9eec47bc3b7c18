"""The checkout's order payload: its messages, the validated request and the validation itself.

Every field is checked with the spec's message (section 5); the shipping address must be in a country
the store ships to. Prices in the payload are the browser's, kept only to compare with ours
(repricing.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from email_validator import EmailNotValidError, validate_email

from storefront.services.catalog.catalog import COLOR_NOT_AVAILABLE
from storefront.services.orders.cart import (
    MAX_CART_LINES,
    MAX_LINE_QUANTITY,
    MIN_LINE_QUANTITY,
    SOURCE_OURS,
    SOURCE_STORE,
    parse_quantity,
)
from storefront.services.orders.ship_to import DEFAULT_SHIP_TO, US, not_shipped_message, us_state_code
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import parse_cents

# Messages of spec section 5 (and 8), shown as they are.
EMAIL_INVALID = "Please enter a valid email address"
NAME_TOO_SHORT = "Name must be at least 2 characters"
FIRST_NAME_REQUIRED = "First name is required"
LAST_NAME_REQUIRED = "Last name is required"
ADDRESS_REQUIRED = "Address is required"
CITY_REQUIRED = "City is required"
STATE_REQUIRED = "State is required"
COUNTRY_REQUIRED = "Country is required"
ZIP_REQUIRED = "ZIP code is required"
NO_ITEMS = "No items in cart"
PRICE_MISMATCH = "Price mismatch detected. Please refresh and try again."
# Messages the spec does not show.
COUNTRY_INVALID = "Country must be a 2-letter code"
US_STATE_INVALID = "Choose a US state"
PRODUCT_REQUIRED = "Product is required"
SIZE_REQUIRED = "Size is required"
QUANTITY_INVALID = f"Quantity must be a whole number from {MIN_LINE_QUANTITY} to {MAX_LINE_QUANTITY}"
PRICE_REQUIRED = "Price is required"
PRICE_INVALID = "Price must be a number"
SUBTOTAL_REQUIRED = "Subtotal is required"
DISCOUNT_CODE_INVALID = "This discount code is not valid."
DISCOUNT_FIELD = "discountCode"
TOO_MANY_ITEMS = "Too many items in cart"
STORE_ITEMS_REFUSED = (
    "Items from the store catalogue are checked out on the store itself: use its Checkout button in your cart."
)
SOURCE_UNKNOWN = "Unknown item source"
#: Sources a sent line may name for our own catalogue (none, or the print provider's name).
OUR_SOURCES = (SOURCE_OURS, "printify")

SHIPPING_FIELD = "shippingAddress"
BILLING_FIELD = "billingAddress"
#: The cart's own cap on distinct lines: an order can hold no more than a cart.
MAX_ITEMS = MAX_CART_LINES
#: Browser prices may differ from ours by at most one cent (the spec's 0.01 tolerance).
PRICE_TOLERANCE_CENTS = 1


@dataclass(frozen=True, slots=True)
class Address:
    """A postal address with the checkout form's field names."""

    first_name: str
    last_name: str
    address1: str
    address2: str | None
    city: str
    state_code: str
    zip: str
    country_code: str


@dataclass(frozen=True, slots=True)
class OrderLineRequest:
    """One cart line as the browser sent it; price_cents is the browser's price, for comparison only.
    The colour is "" when the browser sent none."""

    product_id: str
    size: str
    quantity: int
    price_cents: int
    color: str = ""


@dataclass(frozen=True, slots=True)
class OrderRequest:
    """A validated order payload; billing is None when it is the same as shipping."""

    customer_email: str
    customer_name: str
    customer_phone: str | None
    shipping: Address
    billing: Address | None
    items: tuple[OrderLineRequest, ...]
    subtotal_cents: int
    #: The discount code the shopper applied, as typed ("" for none); the server prices it.
    discount_code: str = ""

    def fingerprint(self) -> str:
        """SHA-256 of the request, to tell a retry from a different order under the same key."""
        canonical = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


# --------------------------------------------------------------------------- validation

# (field, message when missing or too short, minimum length, maximum length)
_ADDRESS_RULES: tuple[tuple[str, str, int, int], ...] = (
    ("first_name", FIRST_NAME_REQUIRED, 1, 100),
    ("last_name", LAST_NAME_REQUIRED, 1, 100),
    ("address1", ADDRESS_REQUIRED, 1, 255),
    ("city", CITY_REQUIRED, 1, 100),
    ("state_code", STATE_REQUIRED, 2, 64),
    ("country_code", COUNTRY_REQUIRED, 2, 2),
    ("zip", ZIP_REQUIRED, 1, 20),
)


def _text(value: object) -> str:
    """A string field stripped of surrounding whitespace; anything else counts as empty."""
    return value.strip() if isinstance(value, str) else ""


def too_long(limit: int) -> str:
    return f"Must be at most {limit} characters"


def _validate_address(
    raw: object, prefix: str, errors: dict[str, str], ship_to: Sequence[str] | None = None
) -> Address | None:
    """An Address, or None after recording a message per bad field under "prefix.field"; with
    `ship_to`, a country outside it is refused (a parcel is sent there, not just a card billed)."""
    data = raw if isinstance(raw, Mapping) else {}
    values: dict[str, str] = {}
    for name, message, minimum, maximum in _ADDRESS_RULES:
        value = _text(data.get(name))
        key = f"{prefix}.{name}"
        if len(value) < minimum:
            errors[key] = message
        elif name == "country_code" and not value.isalpha():
            errors[key] = COUNTRY_INVALID
        elif len(value) > maximum:
            errors[key] = COUNTRY_INVALID if name == "country_code" else too_long(maximum)
        values[name] = value
    country = values["country_code"].upper()
    if ship_to is not None and f"{prefix}.country_code" not in errors and country not in ship_to:
        errors[f"{prefix}.country_code"] = not_shipped_message(ship_to)
    if country == US and f"{prefix}.state_code" not in errors:
        state = us_state_code(values["state_code"])
        if state is None:
            errors[f"{prefix}.state_code"] = US_STATE_INVALID
        else:
            values["state_code"] = state
    address2 = _text(data.get("address2"))
    if len(address2) > 255:
        errors[f"{prefix}.address2"] = too_long(255)
    if any(key.startswith(f"{prefix}.") for key in errors):
        return None
    return Address(
        first_name=values["first_name"],
        last_name=values["last_name"],
        address1=values["address1"],
        address2=address2 or None,
        city=values["city"],
        state_code=values["state_code"],
        zip=values["zip"],
        country_code=country,
    )


def _quantity(value: object) -> int | None:
    """A whole quantity within 1..99, else None."""
    quantity = parse_quantity(value)
    return quantity if quantity is not None and MIN_LINE_QUANTITY <= quantity <= MAX_LINE_QUANTITY else None


def _item_product_id(item: Mapping[str, Any]) -> str:
    """The catalogue product id of a sent line (productId, else the cart's id)."""
    for key in ("productId", "id"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return ""


def _validate_items(raw: object, errors: dict[str, str]) -> list[OrderLineRequest]:
    if not isinstance(raw, list) or not raw:
        errors["items"] = NO_ITEMS
        return []
    if len(raw) > MAX_ITEMS:
        errors["items"] = TOO_MANY_ITEMS
        return []
    lines: list[OrderLineRequest] = []
    for index, item in enumerate(raw):
        prefix = f"items.{index}"
        data = item if isinstance(item, Mapping) else {}
        product_id = _item_product_id(data)
        size = _text(data.get("size"))
        color = _text(data.get("color"))
        quantity = _quantity(data.get("quantity"))
        price = data.get("price")
        price_cents = parse_cents(price)
        source = _text(data.get("source")).lower()
        if source not in OUR_SOURCES:
            # Store-catalogue lines are not printed by our provider: refused whatever else they hold.
            errors[f"{prefix}.source"] = STORE_ITEMS_REFUSED if source == SOURCE_STORE else SOURCE_UNKNOWN
            continue
        if not product_id or len(product_id) > 64:
            errors[f"{prefix}.productId"] = PRODUCT_REQUIRED
        if not size or len(size) > 32:
            errors[f"{prefix}.size"] = SIZE_REQUIRED
        if len(color) > 64:
            errors[f"{prefix}.color"] = COLOR_NOT_AVAILABLE
        if quantity is None:
            errors[f"{prefix}.quantity"] = QUANTITY_INVALID
        if price_cents is None:
            errors[f"{prefix}.price"] = PRICE_REQUIRED if price is None or price == "" else PRICE_INVALID
        if product_id and size and len(color) <= 64 and quantity is not None and price_cents is not None:
            lines.append(OrderLineRequest(product_id, size, quantity, price_cents, color))
    return lines


def is_email(text: str) -> bool:
    """Whether `text` is an email address by its syntax (email-validator; no lookup of its domain)."""
    if not text or len(text) > 254:
        return False
    try:
        validate_email(text, check_deliverability=False)
    except EmailNotValidError:
        return False
    return True


def validate_order_payload(payload: Mapping[str, Any], ship_to: Sequence[str] = DEFAULT_SHIP_TO) -> OrderRequest:
    """The spec's order payload as an OrderRequest; ValidationError with a message per bad field.
    The shipping address must be in one of the `ship_to` countries (SHIP_TO_COUNTRIES)."""
    if not isinstance(payload, Mapping):
        payload = {}  # reported field by field like an empty form
    errors: dict[str, str] = {}

    email = _text(payload.get("customerEmail"))
    if not is_email(email):
        errors["customerEmail"] = EMAIL_INVALID
    name = _text(payload.get("customerName"))
    if len(name) < 2:
        errors["customerName"] = NAME_TOO_SHORT
    elif len(name) > 200:
        errors["customerName"] = too_long(200)
    phone = _text(payload.get("customerPhone"))
    if len(phone) > 40:
        errors["customerPhone"] = too_long(40)

    shipping = _validate_address(payload.get(SHIPPING_FIELD), SHIPPING_FIELD, errors, ship_to)
    # The billing address counts only when the shopper said it differs (sameAsShipping false).
    billing = None
    if payload.get("sameAsShipping", True) is False:
        billing = _validate_address(payload.get(BILLING_FIELD), BILLING_FIELD, errors)

    items = _validate_items(payload.get("items"), errors)
    subtotal = payload.get("subtotal")
    subtotal_cents = parse_cents(subtotal)
    if subtotal_cents is None and "items" not in errors:
        errors["subtotal"] = SUBTOTAL_REQUIRED if subtotal is None or subtotal == "" else PRICE_INVALID

    discount_code = payload.get(DISCOUNT_FIELD)
    if discount_code is not None and (not isinstance(discount_code, str) or len(discount_code.strip()) > 40):
        errors[DISCOUNT_FIELD] = DISCOUNT_CODE_INVALID

    if errors:
        # An empty cart is the message the shopper needs first, then a store-catalogue line (the
        # shopper has to check it out elsewhere); otherwise the first field's.
        refused = [m for k, m in errors.items() if k.startswith("items.") and k.endswith(".source")]
        if errors.get("items") == NO_ITEMS:
            message = NO_ITEMS
        elif refused:
            message = STORE_ITEMS_REFUSED if STORE_ITEMS_REFUSED in refused else refused[0]
        else:
            message = next(iter(errors.values()))
        raise ValidationError(message, errors)
    assert shipping is not None and subtotal_cents is not None
    return OrderRequest(
        customer_email=email,
        customer_name=name,
        customer_phone=phone or None,
        shipping=shipping,
        billing=billing,
        items=tuple(items),
        subtotal_cents=subtotal_cents,
        discount_code=_text(discount_code),
    )
