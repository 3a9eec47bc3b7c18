"""Who may reach an order: the browser holding its access token (kept here only as a hash).

Order numbers are sequential and meant for people to read, so they prove nothing. A shopper's
order is reached with the unguessable token handed out when it was placed; a wrong or missing
token answers exactly like an unknown order.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from sqlmodel import Session, col, select, update

from storefront.models import Order
from storefront.services.platform.errors import NotFoundError

ORDER_NOT_FOUND = "Order not found"
#: 256 random bits, URL-safe.
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 128


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh access token and the hash to store."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, hash_token(token)


def token_matches(order: Order, token: str | None) -> bool:
    """True when `token` is the order's access token (compared in constant time)."""
    if not token or len(token) > MAX_TOKEN_CHARS or not order.access_token_hash:
        return False
    return hmac.compare_digest(hash_token(token), order.access_token_hash)


def find_order(session: Session, reference: int | str) -> Order:
    """An order by database id (int) or public number (str, e.g. "SF-000123"); NotFoundError otherwise."""
    order: Order | None
    if isinstance(reference, int) and not isinstance(reference, bool):
        order = session.get(Order, reference)
    else:
        number = str(reference).strip().upper()
        order = session.exec(select(Order).where(col(Order.number) == number)).first() if number else None
    if order is None:
        raise NotFoundError(ORDER_NOT_FOUND)
    return order


def shopper_order(session: Session, number: str, token: str | None) -> Order:
    """The order if `token` opens it; otherwise the same NotFoundError as an unknown number."""
    order = find_order(session, number)
    if not token_matches(order, token):
        raise NotFoundError(ORDER_NOT_FOUND)
    return order


def reissue_token(session: Session, order: Order) -> str:
    """Replace the order's token (the earlier one stops working); returns the new one."""
    token, token_hash = new_token()
    session.execute(update(Order).where(col(Order.id) == order.id).values(access_token_hash=token_hash))
    order.access_token_hash = token_hash
    return token
