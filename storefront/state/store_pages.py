"""The policy pages and the contact page: their text (staff's Markdown or the default, rendered and
sanitised on the server) and the contact form."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import reflex as rx

from storefront.services.content import store_pages
from storefront.services.platform.errors import TooManyRequestsError, ValidationError
from storefront.services.platform.store_routes import SLUG_BY_ROUTE
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

SEND_FAILED = "Your message could not be sent. Please try again, or write to us by email."


def store_page_html(route: str) -> str:
    """The page's text as HTML (blocking: it reads the database)."""
    with session_scope() as session:
        return store_pages.page_html(session, SLUG_BY_ROUTE[route], services().shop_facts)


class StorePageState(rx.State):
    """The text of the store page on screen, and the route it is for."""

    html: str = ""
    route: str = ""

    @rx.event
    async def load(self):
        """on_load: read the page's text (staff's or the default)."""
        route = self.router.url.path.rstrip("/")
        if route not in SLUG_BY_ROUTE:
            return
        try:
            html = await asyncio.to_thread(store_page_html, route)
        except Exception:
            log.exception("the text of %s could not be read", route)
            return
        self.html, self.route = html, route


class ContactState(rx.State):
    """The contact form: sending, its answer, and the message at each field."""

    sending: bool = False
    sent: str = ""
    error: str = ""
    field_errors: dict[str, str] = {}

    @rx.event(background=True)
    async def send(self, form: dict[str, Any]):
        async with self:
            if self.sending:
                return
            self.sending, self.sent, self.error, self.field_errors = True, "", "", {}
            client = self.router.session.client_ip or "unknown"
        sent, error, fields = "", "", {}
        try:
            contact = services().contact_form
            sent = await asyncio.to_thread(contact.send, client, form)
        except ValidationError as refused:
            error, fields = refused.message, dict(refused.field_errors)
        except TooManyRequestsError as refused:
            error = refused.message
        except Exception:
            log.exception("a contact message could not be queued")
            error = SEND_FAILED
        async with self:
            self.sending, self.sent, self.error, self.field_errors = False, sent, error, fields
