"""A guest's own order: found by number and email, or by the access token its browser kept.

Both ways answer the same shopper view: where the order stands (status labels, tracking) and
what was bought. Nothing personal is in it (no name, address, phone or card digits), and a wrong
number, a wrong email and a wrong token all answer the same NotFoundError.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from storefront.models import Order, OrderItem, utcnow
from storefront.services.orders.checkout import order_items
from storefront.services.orders.customer_status import CustomerStatus, customer_status
from storefront.services.orders.fulfilment import order_status
from storefront.services.orders.order_access import ORDER_NOT_FOUND, find_order, shopper_order
from storefront.services.orders.order_emails import OrderEmails, shipping_address
from storefront.services.orders.order_money import dollars, order_money
from storefront.services.orders.statuses import WAS_PAID, payment_label, status_label
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.rate_limit import RateLimiter

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
        "price": dollars(item.unit_price_cents),
        "lineTotal": dollars(item.unit_price_cents * item.quantity),
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
        **order_money(order),
        "items": [_line(item) for item in items],
    }


@dataclass(frozen=True, slots=True)
class GuestOrder:
    """A guest's order: `view` as the API answers it (dollars), and the same amounts in cents, which
    a page formats (never the view's dollars): subtotal, shipping, tax, total and each line's total.
    `customer` is its one customer status; `paid` whether it was paid. The email and shipping address
    are filled only for the holder of the order's signed link (the thank-you page), never for a lookup."""

    view: dict[str, Any]
    subtotal_cents: int
    shipping_cents: int
    tax_cents: int
    total_cents: int
    line_totals_cents: tuple[int, ...]
    customer: CustomerStatus | None = None
    paid: bool = False
    refunded_cents: int = 0
    email: str = ""
    address: tuple[str, ...] = field(default=())
    #: What the order's discount code took off the subtotal, and the code.
    discount_cents: int = 0
    discount_code: str = ""


def guest_order(session: Session, order: Order, *, contact: bool = False) -> GuestOrder:
    """The guest view of `order` with its amounts in cents (and, with `contact`, its email and
    shipping address, for the holder of its signed link)."""
    assert order.id is not None
    items = order_items(session, order.id)
    return GuestOrder(
        order_view(order, items),
        order.subtotal_cents,
        order.shipping_cents,
        order.tax_cents,
        order.total_cents,
        tuple(item.unit_price_cents * item.quantity for item in items),
        customer=customer_status(order),
        paid=order.payment_status in WAS_PAID,
        refunded_cents=order.refunded_cents,
        email=order.customer_email.strip() if contact else "",
        address=tuple(shipping_address(order)) if contact else (),
        discount_cents=order.discount_cents,
        discount_code=order.discount_code or "",
    )


def lookup_guest_order(session: Session, number: str, email: str) -> GuestOrder:
    """The order with this number and email; NotFoundError otherwise."""
    return guest_order(session, find_by_number_and_email(session, number, email))


def guest_order_by_token(session: Session, number: str, token: str | None) -> GuestOrder:
    """The order `token` opens; the same NotFoundError for a wrong token or number."""
    return guest_order(session, shopper_order(session, number, token))


def guest_order_by_link(
    session: Session, number: str, key: str, emails: OrderEmails, now: datetime | None = None
) -> GuestOrder:
    """The order an email's link opens (its number signed as `key`); the same NotFoundError for a
    forged, expired or revoked key, another order's key and an unknown number."""
    number = number.strip().upper() if isinstance(number, str) else ""
    key = key.strip() if isinstance(key, str) else ""
    if not number or len(number) > MAX_NUMBER_CHARS or not key:
        raise NotFoundError(ORDER_NOT_FOUND)
    order = find_order(session, number)
    if not emails.link_opens(session, order, key, now or utcnow()):
        raise NotFoundError(ORDER_NOT_FOUND)
    return guest_order(session, order, contact=True)


def lookup_order(session: Session, number: str, email: str) -> dict[str, Any]:
    """The guest view of the order with this number and email; NotFoundError otherwise."""
    return lookup_guest_order(session, number, email).view


def order_view_by_token(session: Session, number: str, token: str | None) -> dict[str, Any]:
    """The guest view of the order `token` opens; the same NotFoundError for a wrong token or number."""
    return guest_order_by_token(session, number, token).view


def order_view_by_link(
    session: Session, number: str, key: str, emails: OrderEmails, now: datetime | None = None
) -> dict[str, Any]:
    """The guest view of the order an email's link opens (see guest_order_by_link)."""
    return guest_order_by_link(session, number, key, emails, now).view


def lookup_limiter(
    session_factory: Callable[[], Session], per_minute: int, clock: Callable[[], datetime] = utcnow
) -> RateLimiter:
    """Lookups per client address and minute (guessing emails for an order number is done in bulk)."""
    return RateLimiter(session_factory, limit=per_minute, window_seconds=60, message=TOO_MANY_LOOKUPS, clock=clock)


def lookup_key(client_address: str) -> str:
    """The counter key of one client address; the page and the API count under the same key."""
    return f"{LOOKUP_KEY_PREFIX}{client_address or 'unknown'}"
