"""The back office's view of orders: pages newest first, stat cards, revenue by day, CSV export,
and sending an order the provider refused to it once more."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import case, func
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select, update

from storefront.models import MailMessage, Order, OrderItem, OutboxJob, utcnow
from storefront.services.admin.product_rows import thumbnail_url
from storefront.services.orders import lifecycle, order_emails, order_history
from storefront.services.orders.checkout import order_items
from storefront.services.orders.customer_status import answer_payment_status
from storefront.services.orders.fulfilment import pending_step
from storefront.services.orders.order_access import find_order
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_views import serialize_order
from storefront.services.orders.statuses import WAS_PAID, OrderStatus, PaymentStatus
from storefront.services.platform.csv_cells import csv_safe, csv_text
from storefront.services.platform.errors import ConflictError, ValidationError
from storefront.services.platform.money import cents_to_dollars
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
REVENUE_DAYS = 30
INVALID_CURSOR = "Invalid cursor"
INVALID_LIMIT = f"Limit must be a whole number from 1 to {MAX_PAGE_SIZE}"
NOT_PAID = "Only a paid order can be sent to the print provider again."
NO_ATTENTION = "This order does not need attention: it is already sent or queued for the print provider."
NOTHING_TO_RESOLVE = "This order does not need attention: there is nothing to resolve."
NOTE_REQUIRED = "Write what was done to resolve it (at most 2,000 characters)."
MAX_NOTE_CHARS = 2000

CSV_HEADER = (
    "Order ID",
    "Date (UTC)",
    "Customer Name",
    "Email",
    "Total",
    "Status",
    "Payment Status",
    "Printify Status",
    "Printify Order ID",
    "Tracking Number",
    "Needs Attention",
    "Refunded",
    "Net",
    "Discount Code",
    "Discount",
)
_EXPORT_BATCH = 500


# --------------------------------------------------------------------------- pages


@dataclass(frozen=True, slots=True)
class OrderPage:
    """One page of orders, newest first, with the number of all orders and the next page's cursor."""

    orders: list[Order]
    total: int
    next_cursor: str | None

    @property
    def has_more(self) -> bool:
        return self.next_cursor is not None


def page_limit(value: object) -> int:
    """A page size from a request (1..MAX_PAGE_SIZE); ValidationError otherwise."""
    if value is None or value == "":
        return DEFAULT_PAGE_SIZE
    try:
        limit = int(str(value))
    except ValueError:
        raise ValidationError(INVALID_LIMIT, {"limit": INVALID_LIMIT}) from None
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise ValidationError(INVALID_LIMIT, {"limit": INVALID_LIMIT})
    return limit


def _cursor_id(cursor: str | None) -> int | None:
    """The order id a cursor points after; ValidationError for anything we did not hand out."""
    if cursor is None or cursor == "":
        return None
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 18:
        raise ValidationError(INVALID_CURSOR, {"cursor": INVALID_CURSOR})
    return int(cursor)


#: The order table's views: every order, the paid ones (what the table shows first), and the
#: checkouts nobody paid (yet), under 'Awaiting payment'.
VIEW_ALL = "all"
VIEW_PAID = "paid"
VIEW_AWAITING = "awaiting"
VIEWS = (VIEW_ALL, VIEW_PAID, VIEW_AWAITING)
INVALID_VIEW = f"View must be one of {', '.join(VIEWS)}"


def _view_filter(view: str) -> ColumnElement[bool] | None:
    if view == VIEW_PAID:
        return col(Order.payment_status).in_(WAS_PAID)
    if view == VIEW_AWAITING:
        return col(Order.payment_status).not_in(WAS_PAID)
    if view == VIEW_ALL:
        return None
    raise ValidationError(INVALID_VIEW, {"view": INVALID_VIEW})


def count_orders(session: Session, view: str = VIEW_ALL) -> int:
    query = select(func.count()).select_from(Order)
    condition = _view_filter(view)
    return session.exec(query if condition is None else query.where(condition)).one()


def list_orders(
    session: Session, *, limit: int = DEFAULT_PAGE_SIZE, cursor: str | None = None, view: str = VIEW_ALL
) -> OrderPage:
    """A page of orders newest first (by id, so a page never shifts when new orders arrive).

    The cursor is the one the previous page handed out; None starts at the newest order. `view`
    keeps the paid orders, or the ones awaiting payment, or (default) every order.
    """
    limit = page_limit(limit)
    after = _cursor_id(cursor)
    condition = _view_filter(view)
    query = select(Order).order_by(col(Order.id).desc()).limit(limit + 1)
    if condition is not None:
        query = query.where(condition)
    if after is not None:
        query = query.where(col(Order.id) < after)
    rows = list(session.exec(query).all())
    orders = rows[:limit]
    next_cursor = str(orders[-1].id) if len(rows) > limit else None
    return OrderPage(orders=orders, total=count_orders(session, view), next_cursor=next_cursor)


def items_by_order(session: Session, order_ids: Sequence[int]) -> dict[int, list[OrderItem]]:
    """The lines of several orders in one query, each order's in the order they were placed."""
    found: dict[int, list[OrderItem]] = {order_id: [] for order_id in order_ids}
    if not order_ids:
        return found
    query = select(OrderItem).where(col(OrderItem.order_id).in_(list(order_ids))).order_by(col(OrderItem.id))
    for item in session.exec(query).all():
        found[item.order_id].append(item)
    return found


def serialize_page(session: Session, page: OrderPage) -> list[dict[str, Any]]:
    """The page's orders as the spec's admin Order entities (with their items)."""
    items = items_by_order(session, [order.id for order in page.orders if order.id is not None])
    return [admin_order(order, items.get(order.id or 0, [])) for order in page.orders]


def tracking_fields(order: Order) -> dict[str, Any]:
    """The latest shipment as the provider reported it: carrier, tracking page, dates (None until known)."""
    return {
        "trackingCarrier": order.tracking_carrier,
        "trackingUrl": order.tracking_url,
        "shippedAt": order.shipped_at.isoformat() if order.shipped_at else None,
        "deliveredAt": order.delivered_at.isoformat() if order.delivered_at else None,
    }


def admin_order(order: Order, items: Sequence[OrderItem]) -> dict[str, Any]:
    """The spec's admin Order entity with the shipment's tracking."""
    return {**serialize_order(order, items), **tracking_fields(order)}


def order_with_items(session: Session, number: str) -> tuple[Order, list[OrderItem]]:
    """One order and its lines; NotFoundError for an unknown number."""
    order = find_order(session, number)
    assert order.id is not None
    return order, order_items(session, order.id)


def line_thumbnail(item: OrderItem) -> str:
    """The small picture beside an order line in the back office ("" for none)."""
    return thumbnail_url(item.image_url)


def history_view(session: Session, order: Order) -> list[dict[str, Any]]:
    """The order's history for staff, oldest first."""
    assert order.id is not None
    return [
        {
            "at": row.at.isoformat(),
            "actor": row.actor,
            "action": row.action,
            "label": order_history.label(row.action),
            "detail": row.detail,
        }
        for row in order_history.history(session, order.id)
    ]


def mail_state(mail: MailMessage) -> str:
    """'Sent', 'Queued', or 'Failed (2 attempts)' while the outbox keeps retrying it."""
    if mail.sent_at is not None:
        return "Sent"
    if mail.attempts:
        return f"Failed ({mail.attempts} attempt{'s' if mail.attempts != 1 else ''})"
    return "Queued"


def emails_view(session: Session, order: Order) -> list[dict[str, Any]]:
    """The emails queued about the order, oldest first, with where each stands."""
    assert order.id is not None
    return [
        {
            "queuedAt": mail.created_at.isoformat(),
            "sentAt": mail.sent_at.isoformat() if mail.sent_at else None,
            "kind": mail.kind,
            "subject": mail.subject,
            "recipient": mail.recipient,
            "state": mail_state(mail),
            "attempts": mail.attempts,
            "lastError": mail.last_error,
        }
        for mail in order_emails.order_mails(session, order.id)
    ]


def order_detail(session: Session, number: str) -> dict[str, Any]:
    """One order as the spec's admin Order entity with its history and emails; NotFoundError for an
    unknown number."""
    order, items = order_with_items(session, number)
    return {**admin_order(order, items), "history": history_view(session, order), "emails": emails_view(session, order)}


NOT_CONFIRMED = "Only a paid order has a confirmation to resend."
NO_EMAIL = "This order has no email address to send to."
CLICK_ID_REQUIRED = "A resend needs an id of the click (an Idempotency-Key of letters, digits, '-' or '_')."


def resend_confirmation(
    session: Session, number: str, click_id: object, emails: OrderEmails, actor: Actor | None = None
) -> bool:
    """Queue the order's confirmation once more for one staff click (committed here, with the
    activity log's row naming `actor`); the same click id queues it once, so a double click sends
    one. False when this click was queued before."""
    click = order_emails.clean_click_id(click_id)
    if not click:
        raise ValidationError(CLICK_ID_REQUIRED)
    order = find_order(session, number)
    if not lifecycle.can_resend(order):
        raise ConflictError(NOT_CONFIRMED if order.payment_status not in WAS_PAID else NO_EMAIL)
    queued = emails.resend_confirmation(session, order, click)
    if queued and actor is not None:
        activity.record(session, actor, activity.RESEND, f"order {order.number}")
    session.commit()
    return queued


def revoke_links(session: Session, number: str, actor: order_history.Who, now: datetime | None = None) -> None:
    """Staff revoke the links in the order's emails: none sent so far opens it any more, and the
    emails sent from now on carry new ones (committed here, with a line in the order's history)."""
    order = find_order(session, number)
    assert order.id is not None
    # One atomic step, so two clicks at once revoke twice rather than once over the other.
    session.execute(update(Order).where(col(Order.id) == order.id).values(link_generation=Order.link_generation + 1))
    order_history.record(session, order.id, actor, order_history.LINKS_REVOKED, at=now, order_number=order.number)
    session.commit()


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True, slots=True)
class OrderStats:
    """The stat cards: orders that were paid, processing, fulfilled, revenue of paid orders in cents
    (net of their partial refunds; an order refunded in full brings none).

    A checkout nobody paid is not an order to staff: it counts nowhere here ('Awaiting payment')."""

    total_orders: int
    processing: int
    fulfilled: int
    revenue_cents: int


def _count_where(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def order_stats(session: Session) -> OrderStats:
    """The four stat cards, counted by the database in one query (paid orders only)."""
    paid = col(Order.payment_status) == PaymentStatus.PAID
    row = session.exec(
        select(
            func.count(),
            _count_where(col(Order.status) == OrderStatus.PROCESSING),
            _count_where(col(Order.status) == OrderStatus.FULFILLED),
            func.coalesce(func.sum(case((paid, col(Order.total_cents) - col(Order.refunded_cents)), else_=0)), 0),
        )
        .select_from(Order)
        .where(col(Order.payment_status).in_(WAS_PAID))
    ).one()
    return OrderStats(*(int(value) for value in row))


@dataclass(frozen=True, slots=True)
class DayRevenue:
    """Revenue of the paid orders placed on one UTC day."""

    day: date
    revenue_cents: int


def _utc_day(session: Session) -> ColumnElement[Any]:
    """The UTC calendar day of an order's created_at, in the database's own dialect."""
    if session.get_bind().dialect.name == "postgresql":
        # timestamptz: date() would use the session's time zone, so convert to UTC first.
        return func.date(func.timezone("UTC", col(Order.created_at)))
    # SQLite keeps UTC text without an offset ("2030-01-01 12:00:00.000000").
    return func.date(col(Order.created_at))


def revenue_by_day(session: Session, *, days: int = REVENUE_DAYS, now: datetime | None = None) -> list[DayRevenue]:
    """Revenue of paid orders (net of partial refunds) per UTC day for the last `days` days, oldest
    first, days without any at 0."""
    today = (now or utcnow()).astimezone(UTC).date()
    first = today - timedelta(days=days - 1)
    start = datetime.combine(first, time.min, tzinfo=UTC)
    day = _utc_day(session)
    rows = session.exec(
        select(day, func.sum(col(Order.total_cents) - col(Order.refunded_cents)))
        .where(col(Order.payment_status) == PaymentStatus.PAID, col(Order.created_at) >= start)
        .group_by(day)
    ).all()
    # SQLite answers text, PostgreSQL a date.
    totals = {str(value)[:10]: int(cents or 0) for value, cents in rows}
    return [DayRevenue(d, totals.get(d.isoformat(), 0)) for d in (first + timedelta(days=n) for n in range(days))]


# --------------------------------------------------------------------------- CSV export


def csv_row(order: Order) -> list[str]:
    """One order as a row under CSV_HEADER; every text the shopper or provider chose is made safe."""
    return [
        csv_safe(order.number),
        order.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        csv_safe(order.customer_name),
        csv_safe(order.customer_email),
        f"{cents_to_dollars(order.total_cents):.2f}",
        csv_safe(order.status),
        csv_safe(answer_payment_status(order)),
        csv_safe(order.printify_status),
        csv_safe(order.printify_order_id),
        csv_safe(order.tracking_number),
        csv_safe(order.attention_reason),
        f"{cents_to_dollars(order.refunded_cents):.2f}",
        f"{cents_to_dollars(order.total_cents - order.refunded_cents):.2f}",
        csv_safe(order.discount_code),
        f"{cents_to_dollars(order.discount_cents):.2f}",
    ]


def _all_orders(session: Session) -> Iterator[Order]:
    """Every order newest first, read a batch at a time."""
    after: int | None = None
    while True:
        query = select(Order).order_by(col(Order.id).desc()).limit(_EXPORT_BATCH)
        if after is not None:
            query = query.where(col(Order.id) < after)
        batch = session.exec(query).all()
        yield from batch
        if len(batch) < _EXPORT_BATCH:
            return
        after = batch[-1].id


def write_csv(rows: Iterable[Sequence[str]]) -> str:
    return csv_text(CSV_HEADER, rows)


def export_csv(session: Session) -> str:
    """Every order, newest first, as CSV text: one row per order under CSV_HEADER."""
    return write_csv(csv_row(order) for order in _all_orders(session))


# --------------------------------------------------------------------------- retry


def retry_fulfilment(session: Session, order_number: str) -> Order:
    """Send a paid order the provider refused to it once more: clear the reason, re-queue its job.

    Only a paid order that needs attention qualifies (ConflictError otherwise); the clearing is
    a compare-and-set, so two staff pressing Retry together queue the order once.
    """
    order = find_order(session, order_number)
    if not lifecycle.can_retry(order):
        raise ConflictError(NOT_PAID if order.payment_status != PaymentStatus.PAID else NO_ATTENTION)
    now = utcnow()
    if not lifecycle.resolved(session, order, now=now):
        session.rollback()
        raise ConflictError(NO_ATTENTION)
    assert order.id is not None
    # The step the provider refused is tried again: the send, or the approval for production.
    kind = pending_step(order)
    requeued = session.exec(
        update(OutboxJob)
        .where(col(OutboxJob.kind) == kind, col(OutboxJob.order_id) == order.id)
        .values(done_at=None, next_attempt_at=now)
    ).rowcount
    if requeued == 0:
        session.add(OutboxJob(kind=kind, order_id=order.id, next_attempt_at=now, created_at=now))
    session.commit()
    session.refresh(order)
    return order


def resolve(session: Session, order_number: str, admin: order_history.Who, note: object) -> Order:
    """Staff mark an order that needs attention resolved, with a note of what was done (kept in its
    history); ValidationError without a note, ConflictError when nothing needs resolving."""
    text = note.strip() if isinstance(note, str) else ""
    if not text or len(text) > MAX_NOTE_CHARS:
        raise ValidationError(NOTE_REQUIRED, {"note": NOTE_REQUIRED})
    order = find_order(session, order_number)
    if not lifecycle.can_resolve(order) or not lifecycle.attention_resolved(
        session, order, actor=admin, note=text, now=utcnow()
    ):
        session.rollback()
        raise ConflictError(NOTHING_TO_RESOLVE)
    session.commit()
    session.refresh(order)
    return order
