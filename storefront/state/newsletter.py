"""The newsletter: the home page's sign-up form, and the pages its confirm and unsubscribe links open.

The form answers the same for every valid address (no way to learn who subscribed); the links'
signatures are checked on the server when their page loads.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import reflex as rx

from storefront.services.newsletter.subscriptions import Newsletter
from storefront.services.platform.errors import TooManyRequestsError, ValidationError
from storefront.wiring import services

log = logging.getLogger(__name__)

SIGN_UP_FAILED = "Something went wrong. Please try again."
LINK_FAILED = "Something went wrong. Please open the link from your email again."


def newsletter() -> Newsletter:
    """The store's newsletter on the configured database, its links signed with the store's key."""
    return services().newsletter


class NewsletterState(rx.State):
    """The home page's form: its answer, or why the address was refused."""

    notice: str = ""
    error: str = ""
    sending: bool = False

    @rx.event(background=True)
    async def subscribe(self, form: dict[str, Any]):
        """Keep the address and send its confirmation (counted per client address)."""
        async with self:
            if self.sending:
                return
            self.sending, self.notice, self.error = True, "", ""
            client = self.router.session.client_ip or "unknown"
        notice, error = "", ""
        try:
            notice = await asyncio.to_thread(newsletter().sign_up, client, form.get("email"))
        except (ValidationError, TooManyRequestsError) as refused:
            error = refused.message
        except Exception:
            log.exception("newsletter sign-up failed")
            error = SIGN_UP_FAILED
        async with self:
            self.sending, self.notice, self.error = False, notice, error


class NewsletterLinkState(rx.State):
    """The confirm and unsubscribe pages: what their link did."""

    outcome: str = ""
    refused: bool = False
    checking: bool = True

    def _link(self) -> tuple[str, str]:
        query = self.router.url.query_parameters
        return str(query.get("email", "") or ""), str(query.get("sig", "") or "")

    async def _open(self, action: str):  # type: ignore[no-untyped-def]
        self.checking, self.outcome, self.refused = True, "", False
        email, signature = self._link()
        try:
            outcome = await asyncio.to_thread(getattr(newsletter(), action), email, signature)
        except ValidationError as error:
            self.outcome, self.refused = error.message, True
        except Exception:
            log.exception("newsletter %s failed", action)
            self.outcome, self.refused = LINK_FAILED, True
        else:
            self.outcome = outcome
        self.checking = False

    @rx.event
    async def confirm(self):
        """on_load of /newsletter/confirm: check the link's signature and confirm the address."""
        await self._open("confirm")

    @rx.event
    async def unsubscribe(self):
        """on_load of /newsletter/unsubscribe: check the link's signature and unsubscribe the address."""
        await self._open("unsubscribe")
