"""The Orders tab: a page of order rows, the stat cards, revenue by day, the detail dialog, retry
and CSV export. Rows hold display strings only; the order book stays in the database."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import TypedDict

import reflex as rx

from storefront.db import session_scope
from storefront.models import Order, OrderItem
from storefront.services import admin_orders
from storefront.services.catalog import PLACEHOLDER_IMAGE
from storefront.services.errors import ServiceError
from storefront.services.money import cents_to_dollars, format_usd
from storefront.state.admin.session import AdminState

log = logging.getLogger(__name__)

PAGE_SIZE = 20
FETCH_ORDERS_FAILED = "Failed to fetch orders"
FETCH_ORDER_FAILED = "Failed to fetch order"
# Messages the spec does not show.
RETRY_QUEUED = "Fulfillment Retried"
RETRY_FAILED = "Retry Failed"
EXPORT_FAILED = "Export Failed"
GENERIC_FAILURE = "Something went wrong. Please try again."
NOT_SENT = "Not sent"
CSV_FILENAME = "orders.csv"
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


EMPTY_DETAIL = OrderDetail(**{name: "" for name in OrderDetail.__annotations__})  # type: ignore[typeddict-item]


# --------------------------------------------------------------------------- formatting


def format_date(moment: datetime) -> str:
    """'Mar 5, 2030' (UTC)."""
    utc = moment.astimezone(timezone.utc)
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
        status=admin_orders.status_label(order.status),
        payment=admin_orders.payment_label(order.payment_status),
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
        status=admin_orders.status_label(order.status),
        payment=admin_orders.payment_label(order.payment_status),
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
    )


def to_point(day: admin_orders.DayRevenue) -> ChartPoint:
    return ChartPoint(day=f"{day.day:%b} {day.day.day}", revenue=float(cents_to_dollars(day.revenue_cents)))


# --------------------------------------------------------------------------- database work (in a thread)


class Overview(TypedDict):
    rows: list[OrderRow]
    next_cursor: str
    stats: admin_orders.OrderStats
    chart: list[ChartPoint]


def _overview() -> Overview:
    with session_scope() as session:
        page = admin_orders.list_orders(session, limit=PAGE_SIZE)
        return Overview(
            rows=[to_row(order) for order in page.orders],
            next_cursor=page.next_cursor or "",
            stats=admin_orders.order_stats(session),
            chart=[to_point(day) for day in admin_orders.revenue_by_day(session)],
        )


def _next_page(cursor: str) -> tuple[list[OrderRow], str]:
    with session_scope() as session:
        page = admin_orders.list_orders(session, limit=PAGE_SIZE, cursor=cursor)
        return [to_row(order) for order in page.orders], page.next_cursor or ""


def _detail(number: str) -> tuple[OrderDetail, list[ItemRow]]:
    with session_scope() as session:
        order, items = admin_orders.order_with_items(session, number)
        return to_detail(order), [to_item(item) for item in items]


def _retry(number: str) -> OrderRow:
    with session_scope() as session:
        return to_row(admin_orders.retry_fulfilment(session, number))


def _export() -> str:
    with session_scope() as session:
        return admin_orders.export_csv(session)


# --------------------------------------------------------------------------- the state


class OrdersState(AdminState):
    """The Orders tab of /admin/dashboard."""

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

    retrying: str = ""
    exporting: bool = False

    #: Bumped by every refresh, so a slower older answer never overwrites a newer one.
    _generation: int = 0

    @rx.var
    def has_more(self) -> bool:
        return self.next_cursor != ""

    @rx.event(background=True)
    async def refresh(self):
        """Load the first page, the stat cards and the chart (on showing the tab, and Refresh Orders)."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            self._generation += 1
            generation, self.loading = self._generation, True
        try:
            overview = await asyncio.to_thread(_overview)
        except Exception:
            log.exception("loading the orders failed")
            async with self:
                if generation == self._generation:
                    self.loading = False
            return rx.toast.error(FETCH_ORDERS_FAILED)
        async with self:
            if generation != self._generation:
                return None
            stats = overview["stats"]
            self.rows, self.next_cursor, self.chart = overview["rows"], overview["next_cursor"], overview["chart"]
            self.total_orders, self.processing, self.fulfilled = stats.total_orders, stats.processing, stats.fulfilled
            self.revenue = format_usd(stats.revenue_cents)
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
            generation, cursor, self.loading_more = self._generation, self.next_cursor, True
        try:
            rows, next_cursor = await asyncio.to_thread(_next_page, cursor)
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
            self.detail, self.detail_items = EMPTY_DETAIL, []
            self.detail_open, self.detail_loading = True, True
        try:
            detail, items = await asyncio.to_thread(_detail, number)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("loading order %s failed", number)
            async with self:
                self.detail_open, self.detail_loading = False, False
            return rx.toast.error(FETCH_ORDER_FAILED)
        async with self:
            if self.detail_open:
                self.detail, self.detail_items, self.detail_loading = detail, items, False
        return None

    @rx.event
    async def set_detail_open(self, value: bool):
        if await self._signed_in() is None:
            return self._to_login()
        self.detail_open = value
        return None

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
        """Download every order as orders.csv (made on the server: a link could not carry the token)."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.exporting:
                return None
            self.exporting = True
        try:
            data = await asyncio.to_thread(_export)
        except Exception:
            log.exception("exporting the orders failed")
            return rx.toast.error(EXPORT_FAILED, description=GENERIC_FAILURE)
        finally:
            async with self:
                self.exporting = False
        return rx.download(data=data, filename=CSV_FILENAME, mime_type="text/csv")
