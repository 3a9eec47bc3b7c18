"""The Orders tab's rows, detail dialog and chart as the state holds them: display strings only,
made from the order book's rows (plain Python, no Reflex)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypedDict

from storefront.models import MailMessage, Order, OrderHistory, OrderItem
from storefront.services.admin import admin_orders
from storefront.services.orders import lifecycle, order_history
from storefront.services.orders.customer_status import PRINTED_WARNING, answer_payment_status, printed
from storefront.services.orders.refund_amounts import left_to_refund
from storefront.services.orders.statuses import OrderStatus, payment_label, status_label
from storefront.services.platform.money import cents_to_dollars, format_usd

NOT_SENT = "Not sent"
CARRIER_NAMES = {"usps": "USPS", "ups": "UPS", "fedex": "FedEx", "dhl": "DHL", "dhl-express": "DHL Express"}


class OrderRow(TypedDict):
    """One row of the orders table, formatted for display."""

    number: str
    customer: str
    email: str
    total: str
    status: str
    payment: str
    provider_status: str
    date: str
    #: The provider's reason when it refused the order for good, else "".
    attention: str
    #: The service would send it to the provider once more: 'Retry' is offered.
    retryable: bool


class ChartPoint(TypedDict):
    """One day of the revenue chart (dollars, as recharts wants numbers)."""

    day: str
    revenue: float


class ItemRow(TypedDict):
    #: The line's id, as a refund of lines names it.
    item_id: str
    name: str
    size: str
    color: str
    quantity: str
    price: str
    #: The line's small picture ("" for none).
    image: str


class OrderDetail(TypedDict):
    """What the detail dialog shows about one order, formatted."""

    number: str
    date: str
    customer_name: str
    customer_email: str
    customer_phone: str
    subtotal: str
    #: "-$5.00 (SAVE5)" for an order placed with a discount code, else "".
    discount: str
    shipping: str
    tax: str
    total: str
    status: str
    payment: str
    card: str
    provider_order_id: str
    provider_status: str
    tracking_number: str
    #: The shipment's carrier ("USPS"), tracking page (http(s) only) and dates; "" until known.
    carrier: str
    tracking_url: str
    shipped: str
    delivered: str
    attention: str
    #: What was refunded so far ("" for nothing), what is left in dollars ("12.50", the refund
    #: form's amount), and the warning staff read before refunding a garment already printed.
    refunded: str
    left_to_refund: str
    printed_warning: str
    ship_to: str
    address1: str
    address2: str
    city_line: str
    country: str
    #: What the services would accept (services/orders/lifecycle.py), so only that is offered:
    #: 'Resend confirmation', 'Refund', 'Cancel order' and 'Retry'.
    resendable: bool
    refundable: bool
    cancellable: bool
    retryable: bool
    resolvable: bool


class HistoryRow(TypedDict):
    """One line of the order's history in the detail dialog."""

    at: str
    label: str
    actor: str
    #: ' by admin', ' (Stripe)' or '' (the store's own steps, what happened at the provider).
    by: str
    detail: str


class EmailRow(TypedDict):
    """One email to the customer about the order, in the detail dialog's history."""

    at: str
    subject: str
    recipient: str
    state: str
    error: str


EMPTY_DETAIL = OrderDetail(  # type: ignore[typeddict-item]
    **{
        **{name: "" for name in OrderDetail.__annotations__},
        "refundable": False,
        "cancellable": False,
        "resendable": False,
        "retryable": False,
        "resolvable": False,
    }
)


# --------------------------------------------------------------------------- formatting


def format_date(moment: datetime) -> str:
    """'Mar 5, 2030' (UTC; the database gives SQLite's times back without their zone, in UTC)."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return f"{utc:%b} {utc.day}, {utc.year}"


def carrier_name(code: str | None) -> str:
    """'USPS' for the provider's 'usps'; a code we do not know is shown as it came."""
    if not code:
        return ""
    return CARRIER_NAMES.get(code.strip().lower(), code.strip())


def web_link(url: str | None) -> str:
    """The URL when it is http(s), else "" (a provider value becomes a link staff click)."""
    return url if url and url.lower().startswith(("https://", "http://")) else ""


def provider_status(order: Order) -> str:
    return (order.printify_status or "") if order.printify_order_id else NOT_SENT


def payment_shown(order: Order) -> str:
    """The payment's label: 'Partially refunded' while part of a paid order is refunded."""
    return (
        "Partially refunded"
        if answer_payment_status(order) == "partially_refunded"
        else payment_label(order.payment_status)
    )


def to_row(order: Order) -> OrderRow:
    return OrderRow(
        number=order.number,
        customer=order.customer_name,
        email=order.customer_email,
        total=format_usd(order.total_cents),
        status=status_label(order.status),
        payment=payment_shown(order),
        provider_status=provider_status(order),
        date=format_date(order.created_at),
        attention=order.attention_reason or "",
        retryable=lifecycle.can_retry(order),
    )


def to_item(item: OrderItem) -> ItemRow:
    return ItemRow(
        item_id=str(item.id or ""),
        name=item.name,
        size=item.size,
        color=item.color,
        quantity=str(item.quantity),
        price=format_usd(item.unit_price_cents),
        image=admin_orders.line_thumbnail(item),
    )


def to_detail(order: Order) -> OrderDetail:
    card = f"{(order.card_brand or 'Card').title()} ending in {order.card_last4}" if order.card_last4 else ""
    return OrderDetail(
        number=order.number,
        date=format_date(order.created_at),
        customer_name=order.customer_name,
        customer_email=order.customer_email,
        customer_phone=order.customer_phone or "",
        subtotal=format_usd(order.subtotal_cents),
        discount=f"{format_usd(-order.discount_cents)} ({order.discount_code})" if order.discount_cents else "",
        shipping=format_usd(order.shipping_cents),
        tax=format_usd(order.tax_cents),
        total=format_usd(order.total_cents),
        status=status_label(order.status),
        payment=payment_shown(order),
        card=card,
        provider_order_id=order.printify_order_id or "",
        provider_status=provider_status(order),
        tracking_number=order.tracking_number or "",
        carrier=carrier_name(order.tracking_carrier),
        tracking_url=web_link(order.tracking_url),
        shipped=format_date(order.shipped_at) if order.shipped_at else "",
        delivered=format_date(order.delivered_at) if order.delivered_at else "",
        attention=order.attention_reason or "",
        refunded=format_usd(order.refunded_cents) if order.refunded_cents else "",
        left_to_refund=f"{cents_to_dollars(left_to_refund(order))}",
        printed_warning=PRINTED_WARNING if printed(order) and order.status != OrderStatus.CANCELLED else "",
        ship_to=f"{order.first_name} {order.last_name}",
        address1=order.address1,
        address2=order.address2 or "",
        city_line=f"{order.city}, {order.state_code} {order.zip}",
        country=order.country_code,
        resendable=lifecycle.can_resend(order),
        refundable=lifecycle.can_refund(order),
        cancellable=lifecycle.can_cancel(order),
        retryable=lifecycle.can_retry(order),
        resolvable=lifecycle.can_resolve(order),
    )


def format_time(moment: datetime) -> str:
    """'Mar 5, 2030, 14:07 UTC': when something happened to an order."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return f"{format_date(utc)}, {utc:%H:%M} UTC"


def to_history(row: OrderHistory) -> HistoryRow:
    return HistoryRow(
        at=format_time(row.at),
        label=order_history.label(row.action),
        actor=row.actor,
        by=order_history.byline(row.action, row.actor),
        detail=order_history.detail_sentence(row.action, row.detail),
    )


def to_email(mail: MailMessage) -> EmailRow:
    moment = mail.sent_at or mail.created_at
    return EmailRow(
        at=format_time(moment),
        subject=mail.subject,
        recipient=mail.recipient,
        state=admin_orders.mail_state(mail),
        error=mail.last_error or "",
    )


def to_point(day: admin_orders.DayRevenue) -> ChartPoint:
    return ChartPoint(day=f"{day.day:%b} {day.day.day}", revenue=float(cents_to_dollars(day.revenue_cents)))
