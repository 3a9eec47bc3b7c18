"""The Orders tab: a page of order rows (paid orders, or checkouts awaiting payment), the stat
cards, revenue by day, the detail dialog with the order's history, refunds and cancellations, retry
and CSV export. Rows hold display strings only; the order book stays in the database."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, TypedDict

import reflex as rx
from sqlmodel import Session

from storefront.models import Order
from storefront.services.admin import admin_orders
from storefront.services.orders import order_emails, order_history, refund_amounts
from storefront.services.orders.order_cancellation import Outcome
from storefront.services.orders.refund_amounts import RefundRequest
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.services.platform.money import format_usd
from storefront.services.staff.activity import Actor
from storefront.state.admin.order_rows import (
    EMPTY_DETAIL,
    ChartPoint,
    EmailRow,
    HistoryRow,
    ItemRow,
    OrderDetail,
    OrderRow,
    to_detail,
    to_email,
    to_history,
    to_item,
    to_point,
    to_row,
)
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

PAGE_SIZE = 20
FETCH_ORDERS_FAILED = "Failed to fetch orders"
FETCH_ORDER_FAILED = "Failed to fetch order"
# Messages the spec does not show.
RETRY_QUEUED = "Fulfillment Retried"
RETRY_FAILED = "Retry Failed"
RESOLVE_FAILED = "Could not mark it resolved"
ORDER_RESOLVED = "Marked resolved"
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
REFUND_REST_CONFIRMATION = (
    "Refund up to {left} (what is left of {total}) to the customer's card? Refunding all of it cancels the print"
    " order if the provider has not started printing it."
)
CANCEL_PAID_CONFIRMATION = (
    "Cancel this order and refund {total} to the customer's card? The print order is cancelled if the"
    " provider has not started printing it."
)
CANCEL_UNPAID_CONFIRMATION = "Cancel this order? It has not been paid, and it can no longer be paid once cancelled."
#: The refund form's field of each line's quantity ("line-12").
REFUND_LINE_PREFIX = "line-"
#: The confirmations the detail dialog asks for.
REFUND = "refund"
CANCEL = "cancel"
#: The order table's views, as the filter names them.
VIEWS = (admin_orders.VIEW_PAID, admin_orders.VIEW_AWAITING)


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


def _refund_or_cancel(
    action: str, number: str, admin: Actor, request: RefundRequest | None = None, click_id: str = ""
) -> Outcome:
    service = services().cancellations
    return service.refund(number, admin, request, click_id) if action == REFUND else service.cancel(number, admin)


def refund_form_request(form: dict[str, Any]) -> RefundRequest:
    """The refund form's request: the lines given a quantity, else its amount; ValidationError says
    what is wrong with it."""
    lines = []
    for name, value in form.items():
        if name.startswith(REFUND_LINE_PREFIX) and str(value).strip() not in ("", "0"):
            lines.append({"itemId": name.removeprefix(REFUND_LINE_PREFIX), "quantity": str(value).strip()})
    if lines:
        return refund_amounts.refund_request({"lines": lines})
    return refund_amounts.refund_request({"amount": str(form.get("amount", "")).strip().lstrip("$")})


def _after_action(number: str) -> AfterAction:
    with session_scope() as session:
        order, detail = _load_detail(session, number)
        return AfterAction(
            detail=detail,
            row=to_row(order),
            stats=admin_orders.order_stats(session),
            chart=[to_point(day) for day in admin_orders.revenue_by_day(session)],
        )


def _resolve(number: str, admin: Actor, note: str) -> AfterAction:
    with session_scope() as session:
        admin_orders.resolve(session, number, admin, note)
    return _after_action(number)


def _resend(number: str, click_id: str, actor: Actor) -> tuple[bool, str, Detail]:
    """Queue the confirmation again for one click; whether it was queued, to whom, the dialog after."""
    with session_scope() as session:
        queued = admin_orders.resend_confirmation(session, number, click_id, services().emails, actor)
        order, detail = _load_detail(session, number)
        return queued, order.customer_email, detail


def _revoke_links(number: str, admin: Actor) -> Detail:
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


@dataclass(frozen=True)
class OrdersPage(Page):
    """The first page of orders with the stat cards and the chart."""

    stats: admin_orders.OrderStats | None = None
    chart: list[ChartPoint] = field(default_factory=list)


class OrdersState(PagedAdminState, AdminState):
    """The Orders tab of /admin/dashboard: its rows come a page at a time, after a keyset cursor."""

    #: The table's filter: paid orders (the default) or checkouts awaiting payment.
    view: str = admin_orders.VIEW_PAID
    rows: list[OrderRow] = []

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
    #: The id the refund form's submission carries, made when it opens: a double click refunds once.
    refund_click_id: str = ""

    retrying: str = ""
    exporting: bool = False

    def _ask(self, kind: str) -> None:
        """Open the confirmation of `kind`; its words stay as they were asked while it closes."""
        total = self.detail["total"]
        if kind == REFUND and self.detail["refunded"]:
            self.confirmation = REFUND_REST_CONFIRMATION.format(left=f"${self.detail['left_to_refund']}", total=total)
        elif kind == REFUND:
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
    @admin_event
    async def set_view(self, value: str | list[str]):
        """Switch the table between paid orders and checkouts awaiting payment (from the first page)."""
        # The segmented control sends one value; a deselected control sends "" and changes nothing.
        if not isinstance(value, str) or value not in VIEWS or value == self.view:
            return None
        self.view, self.rows, self._cursor, self.has_more, self.loaded = value, [], "", False, False
        return OrdersState.load

    # ----------------------------------------------------------------------- the table (PagedAdminState)
    # `load` shows the first page, the stat cards and the chart (on showing the tab, and Refresh
    # Orders); `load_more` appends the page after the cursor.

    async def _page_params(self) -> str:
        return self.view

    async def _fetch_page(self, request: PageRequest) -> Page:
        view = request.params
        if not request.cursor:
            overview = await asyncio.to_thread(_overview, view)
            return OrdersPage(
                rows=overview["rows"],
                more=bool(overview["next_cursor"]),
                cursor=overview["next_cursor"],
                stats=overview["stats"],
                chart=overview["chart"],
            )
        rows, next_cursor = await asyncio.to_thread(_next_page, request.cursor, view)
        return Page(rows=rows, more=bool(next_cursor), cursor=next_cursor)

    def _page_failed(self) -> rx.event.EventSpec:
        return rx.toast.error(FETCH_ORDERS_FAILED)

    def _page_shown(self, page: Page, reset: bool) -> None:
        if isinstance(page, OrdersPage) and page.stats is not None:
            self._apply_stats(page.stats, page.chart)

    def _row_key(self, row: OrderRow) -> object:
        return row["number"]

    @rx.event(background=True)
    @admin_event
    async def open_detail(self, number: str):
        """Open the detail dialog for one order and load it."""
        async with self:
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
    @admin_event
    async def set_detail_open(self, value: bool):
        self.detail_open = value
        if not value and not self.acting:
            self.confirming = ""
        return None

    # ----------------------------------------------------------------------- refund and cancel

    @rx.event
    @admin_event
    async def ask_refund(self):
        """Open the refund confirmation for the order in the dialog."""
        if self.detail["refundable"] and not self.acting:
            self._ask(REFUND)
            self.refund_click_id = uuid.uuid4().hex
        return None

    @rx.event
    @admin_event
    async def ask_cancel(self):
        """Open the cancellation confirmation for the order in the dialog."""
        if self.detail["cancellable"] and not self.acting:
            self._ask(CANCEL)
        return None

    @rx.event
    @admin_event
    async def set_confirm_open(self, value: bool):
        """'Keep order' or Escape closes the confirmation (not while it runs)."""
        if not value and not self.acting:
            self.confirming = ""
        return None

    @rx.event(background=True)
    @admin_event
    async def confirm_refund(self, form: dict[str, Any]):
        """The refund form: the amount or lines it names, refunded once per opening of the form."""
        return await self._act(form if isinstance(form, dict) else {})

    @rx.event(background=True)
    @admin_event
    async def confirm(self):
        """Refund or cancel the order in the dialog as the signed-in admin; a second click while it
        runs does nothing (and the service refunds once anyway)."""
        return await self._act(None)

    async def _act(self, form: dict[str, Any] | None):
        """Refund (the refund form's `form`) or cancel the order in the dialog."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            actor = await self._actor()
        try:
            request = refund_form_request(form) if form is not None else None
        except ValidationError as error:
            return rx.toast.error(error.message)
        async with self:
            number, action, click_id = self.detail["number"], self.confirming, self.refund_click_id
            if self.acting or not action or not number:
                return None
            self.acting = True
        try:
            outcome = await asyncio.to_thread(
                _refund_or_cancel, action, number, actor, request, click_id if action == REFUND else ""
            )
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("%s of order %s failed", action, number)
            message = error.message if isinstance(error, ServiceError) else GENERIC_FAILURE
            # A refused refund (over what is left, too many of a line) keeps its form, and what was
            # typed in it, for staff to correct.
            await self._reload_after_action(number, keep_refund_form=action == REFUND)
            return rx.toast.error(message)
        await self._reload_after_action(number)
        title = ORDER_REFUNDED if action == REFUND else ORDER_CANCELLED
        if outcome.message:
            return rx.toast.success(title, description=outcome.message)
        return rx.toast.success(title)

    async def _reload_after_action(self, number: str, *, keep_refund_form: bool = False) -> None:
        """Show the order as it is now (dialog, row, stat cards, chart) and close the confirmation;
        `keep_refund_form` keeps the refund form open while the order can still be refunded."""
        try:
            after = await asyncio.to_thread(_after_action, number)
        except Exception:
            log.exception("reloading order %s failed", number)
            after = None
        async with self:
            keep = keep_refund_form and self.confirming == REFUND
            self.acting, self.confirming = False, ""
            if after is None:
                return
            if self.detail["number"] == number:
                self._show_detail(after["detail"])
                if keep and self.detail["refundable"]:
                    # A new click id: the refused one made no refund, the corrected one makes its own.
                    self._ask(REFUND)
                    self.refund_click_id = uuid.uuid4().hex
            row = after["row"]
            self.rows = [row if r["number"] == number else r for r in self.rows]
            self._apply_stats(after["stats"], after["chart"])

    @rx.var
    def resent(self) -> bool:
        """This opening of the dialog resent the confirmation already."""
        return self.resent_click_id != "" and self.resent_click_id == self.resend_click_id

    @rx.event(background=True)
    @admin_event
    async def resend_confirmation(self):
        """'Resend confirmation': queue the order's confirmation email again, once per click id."""
        async with self:
            number, click_id = self.detail["number"], self.resend_click_id
            if self.resending or not number or not click_id:
                return None
            self.resending = True
        try:
            queued, recipient, detail = await asyncio.to_thread(_resend, number, click_id, await self._actor())
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
        return rx.toast.success(
            CONFIRMATION_RESENT, description=CONFIRMATION_RESENT_TEXT.format(number=number, recipient=recipient)
        )

    @rx.event(background=True)
    @admin_event
    async def revoke_links(self):
        """'Revoke email links': no link to this order sent in an email opens it any more."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            actor, number = await self._actor(), self.detail["number"]
            if self.revoking or not number:
                return None
            self.revoking = True
        try:
            detail = await asyncio.to_thread(_revoke_links, number, actor)
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
    @admin_event
    async def retry(self, number: str):
        """Send an order the provider refused to it once more, and show its row as it is now."""
        async with self:
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
                self.detail = {**self.detail, "attention": "", "retryable": False}  # type: ignore[typeddict-item]
        return rx.toast.success(RETRY_QUEUED, description=f"Order {number} will be sent to the print provider again.")

    @rx.event(background=True)
    @admin_event
    async def resolve(self, form: dict[str, Any]):
        """'Mark resolved' with its note: the order needs attention no more; the note is in its history."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            actor, number, note = await self._actor(), self.detail["number"], str((form or {}).get("note", ""))
        try:
            after = await asyncio.to_thread(_resolve, number, actor, note)
        except ServiceError as error:
            return rx.toast.error(RESOLVE_FAILED, description=error.message)
        except Exception:
            log.exception("resolving order %s failed", number)
            return rx.toast.error(RESOLVE_FAILED, description=GENERIC_FAILURE)
        async with self:
            if self.detail["number"] == number:
                self._show_detail(after["detail"])
            self.rows = [after["row"] if r["number"] == number else r for r in self.rows]
        return rx.toast.success(ORDER_RESOLVED)

    @rx.event(background=True)
    async def export_csv(self):
        """Download every order as orders.csv."""
        return await self._download_csv(_export, CSV_FILENAME)
