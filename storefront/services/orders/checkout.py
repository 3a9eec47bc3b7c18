"""Placing an order: a validated, repriced request saved with its lines before anything else
happens, once per idempotency key (a retry gets the same order; a changed request amends it while
it is unpaid).

The checkout's other jobs live beside it: the payload's validation (order_request.py), repricing
from the catalogue (repricing.py), the checkout form (checkout_form.py) and what the browser and
the admin API are told about an order (order_views.py); their public names are importable from here too.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, delete, select, update

from storefront.models import Order, OrderItem, utcnow
from storefront.services.orders import order_access
from storefront.services.orders.checkout_form import (
    FORM_DEFAULTS,
    KEPT_FORM_FIELDS,
    MAX_KEPT_CHARS,
    checkout_payload,
    kept_form_fields,
)
from storefront.services.orders.order_discounts import (
    DiscountedTotals,
    DiscountRefused,
    HeldUse,
    claim_use,
    discounted_totals,
    reclaim_use,
)
from storefront.services.orders.order_request import (
    BILLING_FIELD,
    NO_ITEMS,
    PRICE_MISMATCH,
    SHIPPING_FIELD,
    STORE_ITEMS_REFUSED,
    TOO_MANY_ITEMS,
    Address,
    OrderLineRequest,
    OrderRequest,
    is_email,
    too_long,
    validate_order_payload,
)
from storefront.services.orders.order_views import serialize_order, shopper_view
from storefront.services.orders.repricing import PricedLine, check_browser_subtotal, order_totals, reprice_lines
from storefront.services.orders.ship_to import DEFAULT_SHIP_TO
from storefront.services.orders.statuses import PAYABLE, OrderStatus, PaymentStatus
from storefront.services.platform.errors import ConflictError, ValidationError
from storefront.services.platform.rate_limit import RateLimiter

__all__ = [
    "BILLING_FIELD", "FORM_DEFAULTS", "KEPT_FORM_FIELDS", "MAX_KEPT_CHARS", "NO_ITEMS", "PRICE_MISMATCH",
    "SHIPPING_FIELD", "STORE_ITEMS_REFUSED", "TOO_MANY_ITEMS", "TOO_MANY_ORDERS", "OrderLineRequest", "PlacedOrder",
    "PricedLine", "checkout_payload", "create_order", "is_email", "kept_form_fields", "order_items", "order_limiter",
    "order_limit_key", "order_totals", "place_order", "reprice_lines", "serialize_order", "shopper_view",
    "validate_order_payload", "DiscountRefused",
]

TOO_MANY_ORDERS = "Too many orders from your address this hour. Please try again later."
KEY_REUSED = "This order request was already used for a different order."
ORDER_LOCKED = "This order has been paid and can no longer be changed."
ORDER_NUMBER_PREFIX = "SF-"
MAX_IDEMPOTENCY_KEY_CHARS = 255


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


def _priced(
    session: Session, request: OrderRequest, *, holding: int | None = None
) -> tuple[list[PricedLine], DiscountedTotals]:
    """The request's lines repriced from the catalogue, and the order's totals with its discount code
    (DiscountRefused when the code does not apply; `holding`: the code the order holds a use of)."""
    check_browser_subtotal(request.items, request.subtotal_cents)
    lines = reprice_lines(session, request.items)
    return lines, discounted_totals(session, request, lines, order_totals(lines), utcnow(), holding=holding)


def _order_fields(request: OrderRequest, priced: DiscountedTotals) -> dict[str, Any]:
    """The order's columns that come from the shopper's request."""
    shipping = request.shipping
    totals = priced.totals
    return {
        **priced.order_fields(),
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
    held = HeldUse.of(order)
    lines, totals = _priced(session, request, holding=held.holding)
    changed = session.exec(
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
    reclaim_use(session, held, request.customer_email, totals)
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
    ship_to: Sequence[str] = DEFAULT_SHIP_TO,
) -> PlacedOrder:
    """Validate, reprice and save an order with its lines (committed before anything else happens).

    A request repeated with the same idempotency key returns the order made the first time; the
    same key with a different request amends the unpaid order when `access_token` opens it, and is
    a ConflictError otherwise. Without a key every call makes a new order. With a `limiter` (see
    order_limiter), a new order from `client` over its limit is a TooManyRequestsError; replays
    and amendments make no new order and are not counted. Orders ship to `ship_to` countries only.
    """
    key = (idempotency_key or "").strip() or f"auto-{uuid.uuid4().hex}"
    if len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
        raise ValidationError("Idempotency key is too long", {"idempotencyKey": too_long(MAX_IDEMPOTENCY_KEY_CHARS)})
    request = validate_order_payload(payload, ship_to)
    fingerprint = request.fingerprint()
    existing = _order_by_key(session, key)
    if existing is not None:
        return _replay(session, existing, request, fingerprint, access_token)
    if limiter is not None:
        # The lookup's connection goes back to the pool before the limiter takes one of its own: a
        # request holding two at once let a rush of checkouts take every pooled connection and wait.
        session.rollback()
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
        # The code's use is claimed with the order, in its transaction: both are saved, or neither.
        claim_use(session, order.id, request.customer_email, totals)
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
