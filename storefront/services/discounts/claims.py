"""The uses of a code that orders hold: claimed when an order is placed, given back when it is
cancelled or expires unpaid.

Each claim is a compare-and-set on a counter row (`UPDATE ... SET used_count = used_count + 1
WHERE used_count < limit`), in the transaction that saves the order: on PostgreSQL a racing
update waits for the row and re-checks the condition, on SQLite writers take turns, so a code
limited to N uses is held by at most N orders however many checkouts race. A use is given back
once: the order's own `discount_claimed` flag is cleared with a compare-and-set first.
"""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, update

from storefront.models import DiscountCode, DiscountEmailUse, Order
from storefront.services.discounts.rules import CODE_USED_BY_EMAIL, CODE_USED_UP


def email_key(email: str) -> str:
    return email.strip().lower()


def _claim_total(session: Session, discount_id: int) -> bool:
    limit_left = (col(DiscountCode.usage_limit).is_(None)) | (
        col(DiscountCode.used_count) < col(DiscountCode.usage_limit)
    )
    return (
        session.exec(
            update(DiscountCode)
            .where(col(DiscountCode.id) == discount_id, limit_left)
            .values(used_count=col(DiscountCode.used_count) + 1)
        ).rowcount
        == 1
    )


def _claim_email(session: Session, discount_id: int, email: str, limit: int) -> bool:
    key = email_key(email)
    try:
        with session.begin_nested():
            session.add(DiscountEmailUse(discount_id=discount_id, email_key=key, used_count=0))
    except IntegrityError:
        pass  # the address's counter is there already (maybe made by a racing checkout)
    return (
        session.exec(
            update(DiscountEmailUse)
            .where(
                col(DiscountEmailUse.discount_id) == discount_id,
                col(DiscountEmailUse.email_key) == key,
                col(DiscountEmailUse.used_count) < limit,
            )
            .values(used_count=col(DiscountEmailUse.used_count) + 1)
        ).rowcount
        == 1
    )


def claim(session: Session, discount_id: int, email: str, per_customer_limit: int | None) -> str:
    """Take one use of the code for an order of `email`, in the caller's transaction: '' when taken,
    else why not (the caller rolls back, which undoes a part already taken)."""
    if not _claim_total(session, discount_id):
        return CODE_USED_UP
    if per_customer_limit is not None and not _claim_email(session, discount_id, email, per_customer_limit):
        return CODE_USED_BY_EMAIL
    return ""


def release(session: Session, order_id: int, discount_id: int, email: str) -> bool:
    """Give an order's use of its code back, once, in the caller's transaction; False when it held none."""
    freed = session.exec(
        update(Order)
        .where(col(Order.id) == order_id, col(Order.discount_claimed).is_(True))
        .values(discount_claimed=False)
        .execution_options(synchronize_session=False)
    ).rowcount
    if freed != 1:
        return False
    session.exec(
        update(DiscountCode)
        .where(col(DiscountCode.id) == discount_id, col(DiscountCode.used_count) > 0)
        .values(used_count=col(DiscountCode.used_count) - 1)
    )
    session.exec(
        update(DiscountEmailUse)
        .where(
            col(DiscountEmailUse.discount_id) == discount_id,
            col(DiscountEmailUse.email_key) == email_key(email),
            col(DiscountEmailUse.used_count) > 0,
        )
        .values(used_count=col(DiscountEmailUse.used_count) - 1)
    )
    return True


def release_order(session: Session, order: Order) -> bool:
    """Give the order's use of its code back (an order cancelled, or expired unpaid)."""
    if order.id is None or order.discount_id is None:
        return False
    return release(session, order.id, order.discount_id, order.customer_email)
