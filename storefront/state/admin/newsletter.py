"""The Orders tab's newsletter card: how many confirmed subscribers there are, and their CSV."""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.state.newsletter import newsletter

log = logging.getLogger(__name__)

CSV_FILENAME = "newsletter-subscribers.csv"
COUNT_FAILED = "Failed to count subscribers"


class NewsletterAdminState(AdminState):
    """The confirmed subscriber count and the export."""

    subscribers: int = 0
    counted: bool = False
    exporting: bool = False

    @rx.event
    @admin_event
    async def load_count(self):
        """Count the confirmed subscribers (the card mounts with the Orders tab)."""
        try:
            self.subscribers = await asyncio.to_thread(lambda: newsletter().count())
        except Exception:
            log.exception("counting newsletter subscribers failed")
            return rx.toast.error(COUNT_FAILED, description=GENERIC_FAILURE)
        self.counted = True
        return None

    @rx.event(background=True)
    async def export_csv(self):
        """Download the confirmed subscribers as CSV."""
        return await self._download_csv(lambda: newsletter().export_csv(), CSV_FILENAME)
