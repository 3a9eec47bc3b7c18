"""The Customers tab (owner): the list, a customer's orders, and exporting or erasing a customer."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, TypedDict

import reflex as rx

from storefront.services.customers import customers, privacy
from storefront.services.mail.mailers import MAIL_DIR
from storefront.services.platform.errors import ServiceError
from storefront.services.staff.activity import Actor
from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

CUSTOMER_ERASED = "Customer erased"


class CustomerRow(TypedDict):
    email: str
    name: str
    orders: int
    spent: str
    lastOrderAt: str
    subscribed: bool


class CustomerOrder(TypedDict):
    number: str
    createdAt: str
    total: str
    paymentStatus: str
    status: str


def _rows(query: str) -> list[CustomerRow]:
    with session_scope() as session:
        rows, _total = customers.list_customers(session, query=query)
    return [
        CustomerRow(email=r.email, name=r.name, orders=r.orders, spent=r.as_dict()["spent"],
                    lastOrderAt=r.last_order_at.strftime("%Y-%m-%d") if r.last_order_at else "",
                    subscribed=r.subscribed)
        for r in rows
    ]


def _orders(email: str) -> list[CustomerOrder]:
    with session_scope() as session:
        page = customers.customer_page(session, email)
    return [CustomerOrder(number=o["number"], createdAt=o["createdAt"][:10], total=o["total"],
                          paymentStatus=o["paymentStatus"], status=o["status"]) for o in page["orders"]]


def _export(actor: Actor, email: str) -> str:
    with session_scope() as session:
        return json.dumps(privacy.export_customer(session, actor, email), indent=2)


def _erase(actor: Actor, email: str) -> int:
    with session_scope() as session:
        return privacy.erase_customer(session, actor, email, services().settings.data_dir / MAIL_DIR)


class CustomersAdminState(AdminState):
    rows: list[CustomerRow] = []
    query: str = ""
    shown_email: str = ""
    shown_orders: list[CustomerOrder] = []
    erase_email: str = ""

    @rx.event
    @admin_event
    async def load(self):
        self.rows = await asyncio.to_thread(_rows, self.query)

    @rx.event
    @admin_event
    async def search(self, form: dict[str, Any]):
        self.query = str(form.get("q") or "").strip()[:320]
        self.rows = await asyncio.to_thread(_rows, self.query)

    @rx.event
    @admin_event
    async def show(self, email: str):
        try:
            self.shown_orders = await asyncio.to_thread(_orders, email)
        except ServiceError as error:
            return rx.toast.error(error.message)
        self.shown_email = email
        return None

    @rx.event
    @admin_event
    async def close(self, _open: bool = False):
        self.shown_email, self.shown_orders = "", []

    @rx.event
    @admin_event
    async def export(self, email: str):
        """Download everything kept about the customer as JSON (logged)."""
        try:
            data = await asyncio.to_thread(_export, await self._actor(), email)
        except ServiceError as error:
            return rx.toast.error(error.message)
        return rx.download(data=data, filename="customer.json", mime_type="application/json")

    @rx.event
    @admin_event
    async def ask_erase(self, email: str):
        self.erase_email = email

    @rx.event
    @admin_event
    async def cancel_erase(self, _open: bool = False):
        self.erase_email = ""

    @rx.event
    @admin_event
    async def erase(self):
        email, self.erase_email = self.erase_email, ""
        if not email:
            return None
        try:
            await asyncio.to_thread(_erase, await self._actor(), email)
        except ServiceError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("erasing a customer failed")
            return rx.toast.error(GENERIC_FAILURE)
        self.rows = await asyncio.to_thread(_rows, self.query)
        return rx.toast.success(CUSTOMER_ERASED)
