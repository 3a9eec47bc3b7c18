"""A guest's own order: found by number and email, or by the access token its browser kept.

Both ways answer the same shopper view: where the order stands (status labels, tracking) and
what was bought. Nothing personal is in it (no name, address, phone or card digits), and a wrong
number, a wrong email and a wrong token all answer the same NotFoundError.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

from storefront.models import Order, OrderItem, utcnow
from storefront.services.orders.checkout import order_items
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.orders.fulfilment import order_status
from storefront.services.platform.money import cents_to_dollars
from storefront.services.orders.order_access import ORDER_NOT_FOUND, find_order, shopper_order
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.orders.statuses import payment_label, status_label

NUMBER_REQUIRED = "Order number is required"
EMAIL_REQUIRED = "Email is required"
LOOKUP_INVALID = "Enter your order number and the email you used at checkout."
TOO_MANY_LOOKUPS = "Too many order lookups from your address. Please wait a minute and try again."
#: Longer input cannot match a stored order (numbers are at most 32 characters, emails 254).
MAX_NUMBER_CHARS = 32
MAX_EMAIL_CHARS = 254
#: The counter key prefix: lookups are counted apart from payments, per client address.
LOOKUP_KEY_PREFIX = "lookup:"
#: Provider tracking pages are linked only when they are plain web addresses.
_SAFE_LINK_PREFIXES = ("https://", "http://")


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def lookup_request(payload: Mapping[str, Any] | object) -> tuple[str, str]:
    """The number and email of a lookup request, trimmed; ValidationError when either is missing."""
    fields = payload if isinstance(payload, Mapping) else {}
    number, email = _text(fields.get("number")), _text(fields.get("email"))
    errors = {}
    if not number:
        errors["number"] = NUMBER_REQUIRED
    if not email:
        errors["email"] = EMAIL_REQUIRED
    if errors:
        raise ValidationError(LOOKUP_INVALID, errors)
    return number, email


def _same_email(stored: str, given: str) -> bool:
    """Emails compared trimmed and case-insensitively, in constant time."""
    return hmac.compare_digest(stored.strip().lower().encode(), given.strip().lower().encode())


def find_by_number_and_email(session: Session, number: str, email: str) -> Order:
    """The order with this number placed with this email; one NotFoundError whichever is wrong."""
    number, email = number.strip(), email.strip()
    if not number or not email or len(number) > MAX_NUMBER_CHARS or len(email) > MAX_EMAIL_CHARS:
        raise NotFoundError(ORDER_NOT_FOUND)
    order = find_order(session, number)  # trims and upper-cases the number
    if not _same_email(order.customer_email, email):
        raise NotFoundError(ORDER_NOT_FOUND)
    return order


def _dollars(cents: int) -> float:
    return float(cents_to_dollars(cents))


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def tracking_link(url: str | None) -> str | None:
    """The provider's tracking page, or None unless it is an http(s) address (never a script URL)."""
    link = (url or "").strip()
    return link if link.lower().startswith(_SAFE_LINK_PREFIXES) else None


def _line(item: OrderItem) -> dict[str, Any]:
    return {
        "name": item.name,
        "size": item.size,
        "color": item.color or None,
        "quantity": item.quantity,
        "price": _dollars(item.unit_price_cents),
        "lineTotal": _dollars(item.unit_price_cents * item.quantity),
        "imageUrl": item.image_url,
    }


def order_view(order: Order, items: Sequence[OrderItem]) -> dict[str, Any]:
    """What a guest sees of their order: progress, tracking when shipped, lines and totals."""
    return {
        **order_status(order),
        "orderNumber": order.number,
        "createdAt": _iso(order.created_at),
        "statusLabel": status_label(order.status),
        "paymentStatusLabel": payment_label(order.payment_status),
        "trackingUrl": tracking_link(order.tracking_url),
        "subtotal": _dollars(order.subtotal_cents),
        "shipping": _dollars(order.shipping_cents),
        "tax": _dollars(order.tax_cents),
        "total": _dollars(order.total_cents),
        "items": [_line(item) for item in items],
    }


def _view(session: Session, order: Order) -> dict[str, Any]:
    assert order.id is not None
    return order_view(order, order_items(session, order.id))


def lookup_order(session: Session, number: str, email: str) -> dict[str, Any]:
    """The guest view of the order with this number and email; NotFoundError otherwise."""
    return _view(session, find_by_number_and_email(session, number, email))


def order_view_by_token(session: Session, number: str, token: str | None) -> dict[str, Any]:
    """The guest view of the order `token` opens; the same NotFoundError for a wrong token or number."""
    return _view(session, shopper_order(session, number, token))


def order_view_by_link(
    session: Session, number: str, key: str, emails: OrderEmails, now: datetime | None = None
) -> dict[str, Any]:
    """The guest view of the order an email's link opens (its number signed as `key`); the same
    NotFoundError for a forged, expired or revoked key, another order's key and an unknown number."""
    number = number.strip().upper() if isinstance(number, str) else ""
    key = key.strip() if isinstance(key, str) else ""
    if not number or len(number) > MAX_NUMBER_CHARS or not key:
        raise NotFoundError(ORDER_NOT_FOUND)
    order = find_order(session, number)
    if not emails.link_opens(session, order, key, now or utcnow()):
        raise NotFoundError(ORDER_NOT_FOUND)
    return _view(session, order)


def lookup_limiter(
    session_factory: Callable[[], Session], per_minute: int, clock: Callable[[], datetime] = utcnow
) -> RateLimiter:
    """Lookups per client address and minute (guessing emails for an order number is done in bulk)."""
    return RateLimiter(session_factory, limit=per_minute, window_seconds=60, message=TOO_MANY_LOOKUPS, clock=clock)


def lookup_key(client_address: str) -> str:
    """The counter key of one client address; the page and the API count under the same key."""
    return f"{LOOKUP_KEY_PREFIX}{client_address or 'unknown'}"
