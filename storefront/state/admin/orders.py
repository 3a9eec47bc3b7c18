"""The Orders tab: a page of order rows (paid orders, or checkouts awaiting payment), the stat
cards, revenue by day, the detail dialog with the order's history, refunds and cancellations, retry
and CSV export. Rows hold display strings only; the order book stays in the database."""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime, timezone
from functools import lru_cache
from typing import TypedDict

import reflex as rx
from sqlmodel import Session

from storefront import db, wiring
from storefront.config import Settings, get_settings
from storefront.db import session_scope
from storefront.models import MailMessage, Order, OrderHistory, OrderItem
from storefront.services.admin import admin_orders
from storefront.services.orders import order_emails, order_history
from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE
from storefront.services.platform.errors import ServiceError
from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.platform.money import cents_to_dollars, format_usd
from storefront.services.orders.order_cancellation import OrderCancellations, Outcome
from storefront.services.payments.gateway import PaymentGateway, TestPaymentGateway
from storefront.services.orders.statuses import WAS_PAID, OrderStatus, PaymentStatus, payment_label, status_label
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.state.admin.session import GENERIC_FAILURE, AdminState

log = logging.getLogger(__name__)

PAGE_SIZE = 20
FETCH_ORDERS_FAILED = "Failed to fetch orders"
FETCH_ORDER_FAILED = "Failed to fetch order"
# Messages the spec does not show.
RETRY_QUEUED = "Fulfillment Retried"
RETRY_FAILED = "Retry Failed"
NOT_SENT = "Not sent"
CSV_FILENAME = "orders.csv"
ORDER_REFUNDED = "Order refunded"
ORDER_CANCELLED = "Order cancelled"
CONFIRMATION_RESENT = "Confirmation queued"
CONFIRMATION_RESENT_TEXT = "The confirmation of order {number} will be emailed to {recipient} again."
RESEND_FAILED = "Resend Failed"
REVOKE_FAILED = "Revoke Failed"
LINKS_REVOKED = "Links Revoked"
LINKS_REVOKED_TEXT = "The links in order {number}'s emails no longer open it; emails sent from now on carry new ones."
REFUND_CONFIRMATION = (
    "Refund {total} to the customer's card? The print order is cancelled if the provider has not started printing it."
)
CANCEL_PAID_CONFIRMATION = (
    "Cancel this order and refund {total} to the customer's card? The print order is cancelled if the"
    " provider has not started printing it."
)
CANCEL_UNPAID_CONFIRMATION = "Cancel this order? It has not been paid, and it can no longer be paid once cancelled."
#: The confirmations the detail dialog asks for.
REFUND = "refund"
CANCEL = "cancel"
#: The order table's views, as the filter names them.
VIEWS = (admin_orders.VIEW_PAID, admin_orders.VIEW_AWAITING)
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


class ChartPoint(TypedDict):
    """One day of the revenue chart (dollars, as recharts wants numbers)."""

    day: str
    revenue: float


class ItemRow(TypedDict):
    name: str
    size: str
    color: str
    quantity: str
    price: str
    image: str


class OrderDetail(TypedDict):
    """What the detail dialog shows about one order, formatted."""

    number: str
    date: str
    customer_name: str
    customer_email: str
    customer_phone: str
    subtotal: str
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
    ship_to: str
    address1: str
    address2: str
    city_line: str
    country: str
    #: Was paid and has an email: 'Resend confirmation' is offered.
    resendable: bool
    #: A paid order (not refunded yet): 'Refund' is offered.
    refundable: bool
    #: Neither cancelled nor refunded: 'Cancel order' is offered.
    cancellable: bool


class HistoryRow(TypedDict):
    """One line of the order's history in the detail dialog."""

    at: str
    label: str
    actor: str
    detail: str


class EmailRow(TypedDict):
    """One email to the customer about the order, in the detail dialog's history."""

    at: str
    subject: str
    recipient: str
    state: str
    error: str


EMPTY_DETAIL = OrderDetail(  # type: ignore[typeddict-item]
    **{**{name: "" for name in OrderDetail.__annotations__}, "refundable": False, "cancellable": False,
       "resendable": False}
)


# --------------------------------------------------------------------------- formatting


def format_date(moment: datetime) -> str:
    """'Mar 5, 2030' (UTC; the database gives SQLite's times back without their zone, in UTC)."""
    utc = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
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


def to_row(order: Order) -> OrderRow:
    return OrderRow(
        number=order.number,
        customer=order.customer_name,
        email=order.customer_email,
        total=format_usd(order.total_cents),
        status=status_label(order.status),
        payment=payment_label(order.payment_status),
        provider_status=provider_status(order),
        date=format_date(order.created_at),
        attention=order.attention_reason or "",
    )


def to_item(item: OrderItem) -> ItemRow:
    return ItemRow(
        name=item.name,
        size=item.size,
        color=item.color,
        quantity=str(item.quantity),
        price=format_usd(item.unit_price_cents),
        image=item.image_url or PLACEHOLDER_IMAGE,
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
        shipping=format_usd(order.shipping_cents),
        tax=format_usd(order.tax_cents),
        total=format_usd(order.total_cents),
        status=status_label(order.status),
        payment=payment_label(order.payment_status),
        card=card,
        provider_order_id=order.printify_order_id or "",
        provider_status=provider_status(order),
        tracking_number=order.tracking_number or "",
        carrier=carrier_name(order.tracking_carrier),
        tracking_url=web_link(order.tracking_url),
        shipped=format_date(order.shipped_at) if order.shipped_at else "",
        delivered=format_date(order.delivered_at) if order.delivered_at else "",
        attention=order.attention_reason or "",
        ship_to=f"{order.first_name} {order.last_name}",
        address1=order.address1,
        address2=order.address2 or "",
        city_line=f"{order.city}, {order.state_code} {order.zip}",
        country=order.country_code,
        resendable=order.payment_status in WAS_PAID and bool(order.customer_email.strip()),
        refundable=order.payment_status == PaymentStatus.PAID,
        cancellable=order.status != OrderStatus.CANCELLED
        and order.payment_status not in (PaymentStatus.REFUNDING, PaymentStatus.REFUNDED),
    )


def format_time(moment: datetime) -> str:
    """'Mar 5, 2030, 14:07 UTC': when something happened to an order."""
    utc = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    return f"{format_date(utc)}, {utc:%H:%M} UTC"


def to_history(row: OrderHistory) -> HistoryRow:
    return HistoryRow(at=format_time(row.at), label=order_history.label(row.action), actor=row.actor, detail=row.detail)


def to_email(mail: MailMessage) -> EmailRow:
    moment = mail.sent_at or mail.created_at
    return EmailRow(at=format_time(moment), subject=mail.subject, recipient=mail.recipient,
                    state=admin_orders.mail_state(mail), error=mail.last_error or "")


def to_point(day: admin_orders.DayRevenue) -> ChartPoint:
    return ChartPoint(day=f"{day.day:%b} {day.day.day}", revenue=float(cents_to_dollars(day.revenue_cents)))


# --------------------------------------------------------------------------- database work (in a thread)


class Overview(TypedDict):
    rows: list[OrderRow]
    next_cursor: str
    stats: admin_orders.OrderStats
    chart: list[ChartPoint]


class Detail(TypedDict):
    order: OrderDetail
    items: list[ItemRow]
    history: list[HistoryRow]
    emails: list[EmailRow]


class AfterAction(TypedDict):
    """What changed with a refund or cancellation: the dialog, the order's row and the figures."""

    detail: Detail
    row: OrderRow
    stats: admin_orders.OrderStats
    chart: list[ChartPoint]


@lru_cache(maxsize=4)
def cancellations(settings: Settings) -> OrderCancellations:
    """Refunds and cancellations of this process, each through the gateway that took the payment
    (built as the API builds its own: the test gateway always, Stripe when it is configured)."""
    gateway = wiring.shared_payment_gateway(settings)
    test_gateway = gateway if isinstance(gateway, TestPaymentGateway) else TestPaymentGateway()
    gateways: dict[str, PaymentGateway] = {test_gateway.name: test_gateway}
    session_factory = wiring.session_factory(db.get_engine())
    intents = None
    if isinstance(gateway, StripeGateway):
        gateways[gateway.name] = gateway
        intents = IntentPayments(session_factory, gateway, emails=wiring.order_emails(settings))
    return OrderCancellations(
        session_factory, gateways, wiring.shared_print_provider(settings), wiring.store_shop(settings), intents=intents,
        emails=wiring.order_emails(settings),
    )


def _overview(view: str) -> Overview:
    with session_scope() as session:
        page = admin_orders.list_orders(session, limit=PAGE_SIZE, view=view)
        return Overview(
            rows=[to_row(order) for order in page.orders],
            next_cursor=page.next_cursor or "",
            stats=admin_orders.order_stats(session),
            chart=[to_point(day) for day in admin_orders.revenue_by_day(session)],
        )


def _next_page(cursor: str, view: str) -> tuple[list[OrderRow], str]:
    with session_scope() as session:
        page = admin_orders.list_orders(session, limit=PAGE_SIZE, cursor=cursor, view=view)
        return [to_row(order) for order in page.orders], page.next_cursor or ""


def _load_detail(session: Session, number: str) -> tuple[Order, Detail]:
    order, items = admin_orders.order_with_items(session, number)
    assert order.id is not None
    return order, Detail(
        order=to_detail(order),
        items=[to_item(item) for item in items],
        history=[to_history(row) for row in order_history.history(session, order.id)],
        emails=[to_email(mail) for mail in order_emails.order_mails(session, order.id)],
    )


def _detail(number: str) -> Detail:
    with session_scope() as session:
        return _load_detail(session, number)[1]


def _refund_or_cancel(action: str, number: str, admin: str) -> Outcome:
    service = cancellations(get_settings())
    return service.refund(number, admin) if action == REFUND else service.cancel(number, admin)


def _after_action(number: str) -> AfterAction:
    with session_scope() as session:
        order, detail = _load_detail(session, number)
        return AfterAction(
            detail=detail,
            row=to_row(order),
            stats=admin_orders.order_stats(session),
            chart=[to_point(day) for day in admin_orders.revenue_by_day(session)],
        )


def _resend(number: str, click_id: str) -> tuple[bool, str, Detail]:
    """Queue the confirmation again for one click; whether it was queued, to whom, the dialog after."""
    with session_scope() as session:
        queued = admin_orders.resend_confirmation(session, number, click_id, wiring.order_emails(get_settings()))
        order, detail = _load_detail(session, number)
        return queued, order.customer_email, detail


def _revoke_links(number: str, admin: str) -> Detail:
    """Revoke the order's email links as `admin`; the dialog after."""
    with session_scope() as session:
        admin_orders.revoke_links(session, number, admin)
        return _load_detail(session, number)[1]


def _retry(number: str) -> OrderRow:
    with session_scope() as session:
        return to_row(admin_orders.retry_fulfilment(session, number))


def _export() -> str:
    with session_scope() as session:
        return admin_orders.export_csv(session)


# --------------------------------------------------------------------------- the state


class OrdersState(AdminState):
    """The Orders tab of /admin/dashboard."""

    #: The table's filter: paid orders (the default) or checkouts awaiting payment.
    view: str = admin_orders.VIEW_PAID
    rows: list[OrderRow] = []
    next_cursor: str = ""
    loading: bool = False
    loading_more: bool = False
    loaded: bool = False

    total_orders: int = 0
    processing: int = 0
    fulfilled: int = 0
    revenue: str = format_usd(0)
    chart: list[ChartPoint] = []

    detail_open: bool = False
    detail_loading: bool = False
    detail: OrderDetail = EMPTY_DETAIL
    detail_items: list[ItemRow] = []
    detail_history: list[HistoryRow] = []
    detail_emails: list[EmailRow] = []
    #: The id a 'Resend confirmation' click carries, made when the dialog opens: a double click (or
    #: a click repeated after a lost answer) queues one email; opening the dialog again arms another.
    resend_click_id: str = ""
    resending: bool = False
    revoking: bool = False
    #: The click id of the resend done in this opening of the dialog ('' before one).
    resent_click_id: str = ""

    #: The confirmation open over the dialog (REFUND or CANCEL), and whether it is running.
    confirming: str = ""
    #: What the confirmation asks and of which kind; kept after it closes, so its fade-out shows
    #: the same words (the order it named may be refunded by then).
    confirmation: str = ""
    confirm_kind: str = ""
    acting: bool = False

    retrying: str = ""
    exporting: bool = False

    #: Bumped by every refresh, so a slower older answer never overwrites a newer one.
    _generation: int = 0

    @rx.var
    def has_more(self) -> bool:
        return self.next_cursor != ""

    def _ask(self, kind: str) -> None:
        """Open the confirmation of `kind`; its words stay as they were asked while it closes."""
        total = self.detail["total"]
        if kind == REFUND:
            self.confirmation = REFUND_CONFIRMATION.format(total=total)
        elif self.detail["refundable"]:
            self.confirmation = CANCEL_PAID_CONFIRMATION.format(total=total)
        else:
            self.confirmation = CANCEL_UNPAID_CONFIRMATION
        self.confirm_kind = self.confirming = kind

    def _apply_stats(self, stats: admin_orders.OrderStats, chart: list[ChartPoint]) -> None:
        self.total_orders, self.processing, self.fulfilled = stats.total_orders, stats.processing, stats.fulfilled
        self.revenue = format_usd(stats.revenue_cents)
        self.chart = chart

    def _show_detail(self, detail: Detail) -> None:
        self.detail, self.detail_items, self.detail_history = detail["order"], detail["items"], detail["history"]
        self.detail_emails = detail["emails"]

    @rx.event
    async def set_view(self, value: str | list[str]):
        """Switch the table between paid orders and checkouts awaiting payment (from the first page)."""
        if await self._signed_in() is None:
            return self._to_login()
        # The segmented control sends one value; a deselected control sends "" and changes nothing.
        if not isinstance(value, str) or value not in VIEWS or value == self.view:
            return None
        self.view, self.rows, self.next_cursor, self.loaded = value, [], "", False
        return OrdersState.refresh

    @rx.event(background=True)
    async def refresh(self):
        """Load the first page, the stat cards and the chart (on showing the tab, and Refresh Orders)."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            self._generation += 1
            generation, view, self.loading = self._generation, self.view, True
        try:
            overview = await asyncio.to_thread(_overview, view)
        except Exception:
            log.exception("loading the orders failed")
            async with self:
                if generation == self._generation:
                    self.loading = False
            return rx.toast.error(FETCH_ORDERS_FAILED)
        async with self:
            if generation != self._generation:
                return None
            self.rows, self.next_cursor = overview["rows"], overview["next_cursor"]
            self._apply_stats(overview["stats"], overview["chart"])
            self.loading, self.loaded = False, True
        return None

    @rx.event(background=True)
    async def load_more(self):
        """Append the next page of orders to the table."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.loading or self.loading_more or not self.next_cursor:
                return None
            generation, cursor, view, self.loading_more = self._generation, self.next_cursor, self.view, True
        try:
            rows, next_cursor = await asyncio.to_thread(_next_page, cursor, view)
        except Exception:
            log.exception("loading more orders failed")
            async with self:
                self.loading_more = False
            return rx.toast.error(FETCH_ORDERS_FAILED)
        async with self:
            self.loading_more = False
            if generation == self._generation and cursor == self.next_cursor:
                self.rows = [*self.rows, *rows]
                self.next_cursor = next_cursor
        return None

    @rx.event(background=True)
    async def open_detail(self, number: str):
        """Open the detail dialog for one order and load it."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            self.detail, self.detail_items, self.detail_history, self.detail_emails = EMPTY_DETAIL, [], [], []
            self.detail_open, self.detail_loading = True, True
            if not self.resending:
                self.resend_click_id = uuid.uuid4().hex
            if not self.acting:
                self.confirming = ""
        try:
            detail = await asyncio.to_thread(_detail, number)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("loading order %s failed", number)
            async with self:
                self.detail_open, self.detail_loading = False, False
            return rx.toast.error(FETCH_ORDER_FAILED)
        async with self:
            if self.detail_open:
                self._show_detail(detail)
                self.detail_loading = False
        return None

    @rx.event
    async def set_detail_open(self, value: bool):
        if await self._signed_in() is None:
            return self._to_login()
        self.detail_open = value
        if not value and not self.acting:
            self.confirming = ""
        return None

    # ----------------------------------------------------------------------- refund and cancel

    @rx.event
    async def ask_refund(self):
        """Open the refund confirmation for the order in the dialog."""
        if await self._signed_in() is None:
            return self._to_login()
        if self.detail["refundable"] and not self.acting:
            self._ask(REFUND)
        return None

    @rx.event
    async def ask_cancel(self):
        """Open the cancellation confirmation for the order in the dialog."""
        if await self._signed_in() is None:
            return self._to_login()
        if self.detail["cancellable"] and not self.acting:
            self._ask(CANCEL)
        return None

    @rx.event
    async def set_confirm_open(self, value: bool):
        """'Keep order' or Escape closes the confirmation (not while it runs)."""
        if await self._signed_in() is None:
            return self._to_login()
        if not value and not self.acting:
            self.confirming = ""
        return None

    @rx.event(background=True)
    async def confirm(self):
        """Refund or cancel the order in the dialog as the signed-in admin; a second click while it
        runs does nothing (and the service refunds once anyway)."""
        async with self:
            signed_in = await self._signed_in()
            if signed_in is None:
                return self._to_login()
            number, action = self.detail["number"], self.confirming
            if self.acting or not action or not number:
                return None
            self.acting = True
        try:
            outcome = await asyncio.to_thread(_refund_or_cancel, action, number, signed_in.username)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("%s of order %s failed", action, number)
            message = error.message if isinstance(error, ServiceError) else GENERIC_FAILURE
            await self._reload_after_action(number)
            return rx.toast.error(message)
        await self._reload_after_action(number)
        title = ORDER_REFUNDED if action == REFUND else ORDER_CANCELLED
        if outcome.message:
            return rx.toast.success(title, description=outcome.message)
        return rx.toast.success(title)

    async def _reload_after_action(self, number: str) -> None:
        """Show the order as it is now (dialog, row, stat cards, chart) and close the confirmation."""
        try:
            after = await asyncio.to_thread(_after_action, number)
        except Exception:
            log.exception("reloading order %s failed", number)
            after = None
        async with self:
            self.acting, self.confirming = False, ""
            if after is None:
                return
            if self.detail["number"] == number:
                self._show_detail(after["detail"])
            row = after["row"]
            self.rows = [row if r["number"] == number else r for r in self.rows]
            self._apply_stats(after["stats"], after["chart"])

    @rx.var
    def resent(self) -> bool:
        """This opening of the dialog resent the confirmation already."""
        return self.resent_click_id != "" and self.resent_click_id == self.resend_click_id

    @rx.event(background=True)
    async def resend_confirmation(self):
        """'Resend confirmation': queue the order's confirmation email again, once per click id."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            number, click_id = self.detail["number"], self.resend_click_id
            if self.resending or not number or not click_id:
                return None
            self.resending = True
        try:
            queued, recipient, detail = await asyncio.to_thread(_resend, number, click_id)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("resending the confirmation of order %s failed", number)
            async with self:
                self.resending = False
            message = error.message if isinstance(error, ServiceError) else GENERIC_FAILURE
            return rx.toast.error(RESEND_FAILED, description=message)
        async with self:
            self.resending, self.resent_click_id = False, click_id
            if self.detail["number"] == number:
                self._show_detail(detail)
        if not queued:
            return None
        return rx.toast.success(CONFIRMATION_RESENT, description=CONFIRMATION_RESENT_TEXT.format(number=number, recipient=recipient))

    @rx.event(background=True)
    async def revoke_links(self):
        """'Revoke email links': no link to this order sent in an email opens it any more."""
        async with self:
            signed_in = await self._signed_in()
            if signed_in is None:
                return self._to_login()
            number = self.detail["number"]
            if self.revoking or not number:
                return None
            self.revoking = True
        try:
            detail = await asyncio.to_thread(_revoke_links, number, signed_in.username)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("revoking the links of order %s failed", number)
            async with self:
                self.revoking = False
            message = error.message if isinstance(error, ServiceError) else GENERIC_FAILURE
            return rx.toast.error(REVOKE_FAILED, description=message)
        async with self:
            self.revoking = False
            if self.detail["number"] == number:
                self._show_detail(detail)
        return rx.toast.success(LINKS_REVOKED, description=LINKS_REVOKED_TEXT.format(number=number))

    @rx.event(background=True)
    async def retry(self, number: str):
        """Send an order the provider refused to it once more, and show its row as it is now."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.retrying:
                return None
            self.retrying = number
        try:
            row = await asyncio.to_thread(_retry, number)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("retrying order %s failed", number)
            async with self:
                self.retrying = ""
            message = error.message if isinstance(error, ServiceError) else GENERIC_FAILURE
            return rx.toast.error(RETRY_FAILED, description=message)
        async with self:
            self.retrying = ""
            self.rows = [row if r["number"] == number else r for r in self.rows]
            if self.detail["number"] == number:
                self.detail = {**self.detail, "attention": ""}  # type: ignore[typeddict-item]
        return rx.toast.success(RETRY_QUEUED, description=f"Order {number} will be sent to the print provider again.")

    @rx.event(background=True)
    async def export_csv(self):
        """Download every order as orders.csv."""
        return await self._download_csv(_export, CSV_FILENAME)
