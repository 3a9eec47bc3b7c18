"""Checkout: order payload validation, server-side repricing and order creation.

The browser's prices are never trusted: every line is repriced from the catalogue cache, and the
browser's prices are only compared with ours to catch a stale cart (spec section 5).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.exc import IntegrityError
from email_validator import EmailNotValidError, validate_email
from sqlmodel import Session, col, delete, select, update

from storefront.models import Order, OrderItem, utcnow
from storefront.services.orders import order_access
from storefront.services.orders.cart import (
    MAX_CART_LINES,
    MAX_LINE_QUANTITY,
    MIN_LINE_QUANTITY,
    SOURCE_OURS,
    SOURCE_STORE,
    CartLine,
    Totals,
    cart_totals,
    parse_quantity,
    totals_for,
)
from storefront.services.catalog.catalog import COLOR_NOT_AVAILABLE
from storefront.services.platform.errors import ConflictError, ServiceError, ValidationError
from storefront.services.platform.money import cents_to_dollars, parse_cents
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.payments.gateway import CARD_FIELDS
from storefront.services.orders.shopping import LinePick, price_lines
from storefront.services.orders.statuses import PAYABLE, OrderStatus, PaymentStatus

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
PRODUCT_REQUIRED = "Product is required"
SIZE_REQUIRED = "Size is required"
QUANTITY_INVALID = f"Quantity must be a whole number from {MIN_LINE_QUANTITY} to {MAX_LINE_QUANTITY}"
PRICE_REQUIRED = "Price is required"
PRICE_INVALID = "Price must be a number"
SUBTOTAL_REQUIRED = "Subtotal is required"
TOO_MANY_ORDERS = "Too many orders from your address this hour. Please try again later."
TOO_MANY_ITEMS = "Too many items in cart"
KEY_REUSED = "This order request was already used for a different order."
ORDER_LOCKED = "This order has been paid and can no longer be changed."
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
ORDER_NUMBER_PREFIX = "SF-"
MAX_IDEMPOTENCY_KEY_CHARS = 255

# Deliberately simple: something@domain.tld, no spaces, no consecutive dots.


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

    def fingerprint(self) -> str:
        """SHA-256 of the request, to tell a retry from a different order under the same key."""
        canonical = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class PricedLine:
    """A cart line priced from the catalogue."""

    product_id: str
    variant_id: str
    name: str
    size: str
    quantity: int
    unit_price_cents: int
    image_url: str
    color: str = ""

    @property
    def line_total_cents(self) -> int:
        return self.unit_price_cents * self.quantity


@dataclass(frozen=True, slots=True)
class PlacedOrder:
    """An order and the access token that opens it (handed to the browser, never stored).

    No token for a replay (a request under a key that already made the order) that did not carry
    the order's current token: whoever sent the first request holds it, and it stays the one."""

    order: Order
    access_token: str | None
    replayed: bool = False


def order_limiter(
    session_factory: Callable[[], Session], per_hour: int, clock: Callable[[], datetime] = utcnow
) -> RateLimiter:
    """New orders per client address and hour: each one is a row in the admin's order book, with
    its own allowance of declined payments, so placing them must not be free."""
    return RateLimiter(session_factory, limit=per_hour, window_seconds=3600, message=TOO_MANY_ORDERS, clock=clock)


def order_limit_key(client: str) -> str:
    return f"orders:{client}"


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


def _too_long(limit: int) -> str:
    return f"Must be at most {limit} characters"


def _validate_address(raw: object, prefix: str, errors: dict[str, str]) -> Address | None:
    """An Address, or None after recording a message per bad field under "prefix.field"."""
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
            errors[key] = COUNTRY_INVALID if name == "country_code" else _too_long(maximum)
        values[name] = value
    address2 = _text(data.get("address2"))
    if len(address2) > 255:
        errors[f"{prefix}.address2"] = _too_long(255)
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
        country_code=values["country_code"].upper(),
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


def validate_order_payload(payload: Mapping[str, Any]) -> OrderRequest:
    """The spec's order payload as an OrderRequest; ValidationError with a message per bad field."""
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
        errors["customerName"] = _too_long(200)
    phone = _text(payload.get("customerPhone"))
    if len(phone) > 40:
        errors["customerPhone"] = _too_long(40)

    shipping = _validate_address(payload.get(SHIPPING_FIELD), SHIPPING_FIELD, errors)
    # The billing address counts only when the shopper said it differs (sameAsShipping false).
    billing = None
    if payload.get("sameAsShipping", True) is False:
        billing = _validate_address(payload.get(BILLING_FIELD), BILLING_FIELD, errors)

    items = _validate_items(payload.get("items"), errors)
    subtotal = payload.get("subtotal")
    subtotal_cents = parse_cents(subtotal)
    if subtotal_cents is None and "items" not in errors:
        errors["subtotal"] = SUBTOTAL_REQUIRED if subtotal is None or subtotal == "" else PRICE_INVALID

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
    )


# --------------------------------------------------------------------------- pricing


def reprice_lines(session: Session, items: Sequence[OrderLineRequest]) -> list[PricedLine]:
    """Price every line from the catalogue; PRICE_MISMATCH when a browser price is off by > 0.01."""
    priced: list[PricedLine] = []
    picks = [LinePick(item.product_id, item.size, item.quantity, item.color) for item in items]
    for index, (item, line) in enumerate(zip(items, price_lines(session, picks), strict=True)):
        if isinstance(line, ValidationError):  # colour or size no longer offered: point at the line
            field = "color" if "color" in line.field_errors else "size"
            message = line.field_errors.get(field, line.message)
            raise ValidationError(message, {f"items.{index}.{field}": message}) from line
        if isinstance(line, ServiceError):
            raise line
        if abs(line.price_cents - item.price_cents) > PRICE_TOLERANCE_CENTS:
            raise ValidationError(PRICE_MISMATCH)
        priced.append(
            PricedLine(
                product_id=line.product_id,
                variant_id=line.variant_id or "",
                name=line.name,
                size=line.size,
                quantity=line.quantity,
                unit_price_cents=line.price_cents,
                image_url=line.image,
                color=line.color,
            )
        )
    return priced


def check_browser_subtotal(items: Sequence[OrderLineRequest], subtotal_cents: int) -> None:
    """PRICE_MISMATCH unless the browser's prices times quantities add up to its subtotal."""
    browser_sum = sum(item.price_cents * item.quantity for item in items)
    if abs(browser_sum - subtotal_cents) > PRICE_TOLERANCE_CENTS:
        raise ValidationError(PRICE_MISMATCH)


def order_totals(lines: Sequence[PricedLine]) -> Totals:
    """Subtotal, shipping (free over $100), tax (always 0) and total, in cents."""
    return totals_for(sum(line.line_total_cents for line in lines))


# --------------------------------------------------------------------------- orders


def format_order_number(order_id: int) -> str:
    return f"{ORDER_NUMBER_PREFIX}{order_id:06d}"


def order_items(session: Session, order_id: int) -> list[OrderItem]:
    """The lines of an order in the order they were placed."""
    return list(
        session.exec(select(OrderItem).where(col(OrderItem.order_id) == order_id).order_by(col(OrderItem.id))).all()
    )


def _order_by_key(session: Session, idempotency_key: str) -> Order | None:
    return session.exec(select(Order).where(col(Order.idempotency_key) == idempotency_key)).first()


def _billing_json(address: Address | None) -> str | None:
    return json.dumps(asdict(address), sort_keys=True) if address is not None else None


def _priced(session: Session, request: OrderRequest) -> tuple[list[PricedLine], Totals]:
    """The request's lines repriced from the catalogue, and the order's totals."""
    check_browser_subtotal(request.items, request.subtotal_cents)
    lines = reprice_lines(session, request.items)
    return lines, order_totals(lines)


def _order_fields(request: OrderRequest, totals: Totals) -> dict[str, Any]:
    """The order's columns that come from the shopper's request."""
    shipping = request.shipping
    return {
        "customer_email": request.customer_email,
        "customer_name": request.customer_name,
        "customer_phone": request.customer_phone,
        "first_name": shipping.first_name,
        "last_name": shipping.last_name,
        "address1": shipping.address1,
        "address2": shipping.address2,
        "city": shipping.city,
        "state_code": shipping.state_code,
        "zip": shipping.zip,
        "country_code": shipping.country_code,
        "billing_address_json": _billing_json(request.billing),
        "subtotal_cents": totals.subtotal_cents,
        "shipping_cents": totals.shipping_cents,
        "tax_cents": totals.tax_cents,
        "total_cents": totals.total_cents,
    }


def _add_items(session: Session, order_id: int, lines: Sequence[PricedLine]) -> None:
    for line in lines:
        session.add(
            OrderItem(
                order_id=order_id,
                product_id=line.product_id,
                variant_id=line.variant_id,
                name=line.name,
                size=line.size,
                color=line.color,
                quantity=line.quantity,
                unit_price_cents=line.unit_price_cents,
                image_url=line.image_url,
            )
        )


def _amend(session: Session, order: Order, request: OrderRequest, fingerprint: str) -> Order:
    """Replace an unpaid order's details and lines (the shopper fixed something after a decline).

    The update only applies while the order is still payable and unchanged since it was read, so
    it can never slip in under a payment that has started meanwhile.
    """
    if order.payment_status not in PAYABLE or order.status != OrderStatus.PENDING:
        raise ConflictError(ORDER_LOCKED)
    lines, totals = _priced(session, request)
    changed = session.execute(
        update(Order)
        .where(
            col(Order.id) == order.id,
            col(Order.request_fingerprint) == order.request_fingerprint,
            col(Order.payment_status).in_(PAYABLE),
        )
        .values(**_order_fields(request, totals), request_fingerprint=fingerprint, updated_at=utcnow())
    ).rowcount
    if changed != 1:
        session.rollback()
        raise ConflictError(ORDER_LOCKED)
    assert order.id is not None
    session.execute(delete(OrderItem).where(col(OrderItem.order_id) == order.id))
    _add_items(session, order.id, lines)
    session.commit()
    session.refresh(order)
    return order


def _replay(
    session: Session, order: Order, request: OrderRequest, fingerprint: str, access_token: str | None
) -> PlacedOrder:
    """Answer a request under a key that already made an order.

    The same request is a retry: it gets the same order, and no token unless it carries the
    current one (handing out a new one would revoke the shopper's to anyone who replays their
    request). A changed request amends the order, but only for the holder of its token and only
    while it is unpaid.
    """
    has_token = order_access.token_matches(order, access_token)
    if order.request_fingerprint == fingerprint:
        return PlacedOrder(order, access_token if has_token else None, replayed=True)
    if not has_token:
        raise ConflictError(KEY_REUSED)
    assert access_token is not None
    return PlacedOrder(_amend(session, order, request, fingerprint), access_token, replayed=True)


def place_order(
    session: Session,
    payload: Mapping[str, Any],
    idempotency_key: str | None = None,
    access_token: str | None = None,
    *,
    limiter: RateLimiter | None = None,
    client: str = "",
) -> PlacedOrder:
    """Validate, reprice and save an order with its lines (committed before anything else happens).

    A request repeated with the same idempotency key returns the order made the first time; the
    same key with a different request amends the unpaid order when `access_token` opens it, and is
    a ConflictError otherwise. Without a key every call makes a new order. With a `limiter` (see
    order_limiter), a new order from `client` over its limit is a TooManyRequestsError; replays
    and amendments make no new order and are not counted.
    """
    key = (idempotency_key or "").strip() or f"auto-{uuid.uuid4().hex}"
    if len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
        raise ValidationError("Idempotency key is too long", {"idempotencyKey": _too_long(MAX_IDEMPOTENCY_KEY_CHARS)})
    request = validate_order_payload(payload)
    fingerprint = request.fingerprint()
    existing = _order_by_key(session, key)
    if existing is not None:
        return _replay(session, existing, request, fingerprint, access_token)
    if limiter is not None:
        limiter.check(order_limit_key(client))

    lines, totals = _priced(session, request)
    token, token_hash = order_access.new_token()
    now = utcnow()
    order = Order(
        # A unique placeholder until the id is known; replaced below in the same transaction.
        number=f"tmp-{uuid.uuid4().hex[:24]}",
        idempotency_key=key,
        request_fingerprint=fingerprint,
        access_token_hash=token_hash,
        **_order_fields(request, totals),
        status=OrderStatus.PENDING,
        payment_status=PaymentStatus.PENDING,
        created_at=now,
        updated_at=now,
    )
    try:
        session.add(order)
        session.flush()
        assert order.id is not None
        order.number = format_order_number(order.id)
        _add_items(session, order.id, lines)
        session.commit()
    except IntegrityError:
        # A parallel request with the same key won the race: answer as a retry of it.
        session.rollback()
        existing = _order_by_key(session, key)
        if existing is None:
            raise
        return _replay(session, existing, request, fingerprint, access_token)
    session.refresh(order)
    return PlacedOrder(order, token)


def create_order(session: Session, payload: Mapping[str, Any], idempotency_key: str | None = None) -> Order:
    """place_order without the token, for callers that reach the order some other way."""
    return place_order(session, payload, idempotency_key).order


# --------------------------------------------------------------------------- the checkout form


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
        subtotal=float(cents_to_dollars(totals.subtotal_cents)),
        shipping=float(cents_to_dollars(totals.shipping_cents)),
        tax=float(cents_to_dollars(totals.tax_cents)),
        total=float(cents_to_dollars(totals.total_cents)),
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
        "price": float(cents_to_dollars(line.price_cents)),
        "quantity": line.quantity,
        "imageUrl": line.image,
    }
    if line.color:
        item["color"] = line.color
    if line.source:
        item["source"] = line.source
    return item


# --------------------------------------------------------------------------- serialisation


def _dollars(cents: int) -> float:
    """Cents as a JSON number of dollars with two decimals (2499 -> 24.99)."""
    return float(cents_to_dollars(cents).quantize(Decimal("0.01")))


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
        "price": _dollars(item.unit_price_cents),
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
        "subtotal": _dollars(order.subtotal_cents),
        "shipping": _dollars(order.shipping_cents),
        "tax": _dollars(order.tax_cents),
        "total": _dollars(order.total_cents),
        "status": order.status,
        "paymentStatus": order.payment_status,
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
        "subtotal": _dollars(order.subtotal_cents),
        "shipping": _dollars(order.shipping_cents),
        "tax": _dollars(order.tax_cents),
        "total": _dollars(order.total_cents),
        "status": order.status,
        "paymentStatus": order.payment_status,
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
