"""The customer list: everyone who ordered or subscribed to the newsletter, keyed by email
(lower-cased), with their orders, what they spent (paid less refunded) and their last order."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, union
from sqlmodel import Session, col, select

from storefront.models import NewsletterSubscriber, Order
from storefront.services.orders.statuses import WAS_PAID
from storefront.services.platform.errors import NotFoundError
from storefront.services.platform.money import format_usd

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
#: Erased orders keep their money under addresses of this domain (never a real one: RFC 2606).
ERASED_DOMAIN = "erased.invalid"
CUSTOMER_NOT_FOUND = "Customer not found"


@dataclass(frozen=True)
class CustomerRow:
    email: str
    name: str
    orders: int
    spent_cents: int
    last_order_at: datetime | None
    subscribed: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "email": self.email, "name": self.name, "orders": self.orders, "spentCents": self.spent_cents,
            "spent": format_usd(self.spent_cents), "lastOrderAt": self.last_order_at.isoformat() if self.last_order_at
            else None, "subscribed": self.subscribed,
        }


def normal_email(email: object) -> str:
    return str(email or "").strip().lower()[:320]


def _order_totals() -> Any:
    email = func.lower(col(Order.customer_email))
    spent = func.sum(
        case((col(Order.payment_status).in_([str(s) for s in WAS_PAID]), Order.total_cents - Order.refunded_cents),
             else_=0)
    )
    return (
        select(
            email.label("email"), func.count().label("orders"), spent.label("spent"),
            func.max(Order.created_at).label("last_order_at"),
        )
        .where(~email.like(f"%@{ERASED_DOMAIN}"))
        .group_by(email)
        .subquery()
    )


def _subscribed(subscriber: NewsletterSubscriber | None) -> bool:
    return bool(subscriber and subscriber.confirmed_at is not None and subscriber.unsubscribed_at is None)


def _latest_names(session: Session, emails: list[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    if not emails:
        return names
    rows = session.exec(
        select(func.lower(col(Order.customer_email)), Order.customer_name)
        .where(func.lower(col(Order.customer_email)).in_(emails))
        .order_by(col(Order.created_at))
    ).all()
    for email, name in rows:
        names[email] = name  # the newest order's name wins
    return names


def list_customers(
    session: Session, *, query: str = "", limit: int = PAGE_SIZE, offset: int = 0
) -> tuple[list[CustomerRow], int]:
    """A page of customers (the latest order first, then subscribers without orders) and how many there are."""
    totals = _order_totals()
    people = union(
        select(totals.c.email.label("email")), select(col(NewsletterSubscriber.email).label("email"))
    ).subquery()
    statement = (
        select(people.c.email, totals.c.orders, totals.c.spent, totals.c.last_order_at)
        .select_from(people)
        .outerjoin(totals, totals.c.email == people.c.email)
    )
    text = query.strip().lower()
    if text:
        statement = statement.where(people.c.email.like(f"%{text}%"))
    total = session.exec(select(func.count()).select_from(statement.subquery())).one()
    rows = session.exec(
        statement.order_by(
            (totals.c.last_order_at.is_(None)).asc(), totals.c.last_order_at.desc(), people.c.email
        )
        .limit(max(1, min(limit, MAX_PAGE_SIZE)))
        .offset(max(0, offset))
    ).all()
    emails = [row[0] for row in rows]
    names = _latest_names(session, emails)
    found = session.exec(select(NewsletterSubscriber).where(col(NewsletterSubscriber.email).in_(emails)))
    subscribers = {s.email: s for s in found}
    customers = [
        CustomerRow(
            email, names.get(email, ""), int(orders or 0), int(spent or 0), last, _subscribed(subscribers.get(email))
        )
        for email, orders, spent, last in rows
    ]
    return customers, int(total)


def customer_orders(session: Session, email: object) -> list[Order]:
    """The customer's orders, newest first."""
    wanted = normal_email(email)
    return list(
        session.exec(
            select(Order).where(func.lower(col(Order.customer_email)) == wanted).order_by(col(Order.created_at).desc())
        ).all()
    )


def customer_page(session: Session, email: object) -> dict[str, Any]:
    """A customer's page: their row and their orders; NotFoundError for no one."""
    wanted = normal_email(email)
    orders = customer_orders(session, wanted)
    subscriber = session.exec(select(NewsletterSubscriber).where(col(NewsletterSubscriber.email) == wanted)).first()
    if not orders and subscriber is None:
        raise NotFoundError(CUSTOMER_NOT_FOUND)
    spent = sum(o.total_cents - o.refunded_cents for o in orders if o.payment_status in WAS_PAID)
    row = CustomerRow(
        wanted, orders[0].customer_name if orders else "", len(orders), spent,
        orders[0].created_at if orders else None, _subscribed(subscriber),
    )
    return {
        "customer": row.as_dict(),
        "orders": [
            {"number": o.number, "createdAt": o.created_at.isoformat(), "total": format_usd(o.total_cents),
             "totalCents": o.total_cents, "paymentStatus": o.payment_status, "status": o.status}
            for o in orders
        ],
    }
