"""/tours-and-events: featured and upcoming events, a page at a time, and the event shown in the dialog."""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from storefront.services.events import cards as event_cards, events
from storefront.services.events.cards import (
    EMPTY_CARD,
    EVENTS_PAGE_SIZE,
    FEATURED,
    EventCard,
    EventCardPage,
    to_event_card,
)
from storefront.services.platform.errors import NotFoundError
from storefront.web.page_texts import EVENT_PARAM
from storefront.wiring import session_scope

log = logging.getLogger(__name__)

LOAD_FAILED = "Failed to load events"

def event_page(featured: bool, offset: int, limit: int = EVENTS_PAGE_SIZE) -> EventCardPage:
    """One page of active featured (or other) events as cards (runs in a worker thread)."""
    with session_scope() as session:
        return event_cards.event_page(session, featured, offset, limit)


def _linked_event(event_id: str) -> EventCard | None:
    """The active event a link names, as its dialog shows it; None for any other id."""
    with session_scope() as session:
        try:
            view = events.get_event(session, event_id)
        except NotFoundError:
            return None
        return to_event_card(view, long_card_date=view.featured)


class EventsState(rx.State):
    """The two lists of the events page (each paged with Load More) and the open dialog."""

    featured: list[EventCard] = []
    featured_total: int = 0
    upcoming: list[EventCard] = []
    upcoming_total: int = 0
    loading: bool = True
    loading_more: bool = False
    failed: bool = False
    selected: EventCard = EMPTY_CARD  # the event in the dialog
    dialog_open: bool = False
    image_enlarged: bool = False
    playing: str = ""  # the address of the video playing in the dialog
    _generation: int = 0  # bumped by every load, so a stale answer is dropped

    @rx.var
    def has_more_featured(self) -> bool:
        return len(self.featured) < self.featured_total

    @rx.var
    def has_more_upcoming(self) -> bool:
        return len(self.upcoming) < self.upcoming_total

    @rx.var
    def empty(self) -> bool:
        return not self.featured and not self.upcoming

    @rx.event(background=True)
    async def load(self):
        async with self:
            self._generation += 1
            generation = self._generation
            self.loading, self.failed = True, False
            # A page (re)loaded in this tab starts without the dialog of an earlier visit: its event
            # may have changed or gone since.
            self.dialog_open, self.selected, self.image_enlarged, self.playing = False, EMPTY_CARD, False, ""
            linked_id = self.router.url.query_parameters.get(EVENT_PARAM, "")
        try:
            featured, upcoming = await asyncio.to_thread(
                lambda: (event_page(True, 0), event_page(False, 0))
            )
            linked = await asyncio.to_thread(_linked_event, linked_id) if linked_id else None
        except Exception:
            log.exception("Failed to fetch events")
            async with self:
                if generation == self._generation:
                    self.loading, self.failed = False, True
            return
        async with self:
            if generation != self._generation:
                return  # a newer load owns the page
            self.featured, self.featured_total = featured["cards"], featured["total"]
            self.upcoming, self.upcoming_total = upcoming["cards"], upcoming["total"]
            self.loading = False
            if linked is not None:
                self.selected, self.dialog_open = linked, True

    @rx.event(background=True)
    async def load_more(self, section: str):
        """Append the next page of one section (FEATURED or UPCOMING)."""
        is_featured = section == FEATURED
        async with self:
            if self.loading or self.loading_more:
                return
            shown = self.featured if is_featured else self.upcoming
            offset, generation = len(shown), self._generation
            self.loading_more = True
        try:
            page = await asyncio.to_thread(event_page, is_featured, offset)
        except Exception:
            log.exception("Failed to fetch more events")
            async with self:
                self.loading_more = False
            yield rx.toast.error(LOAD_FAILED)
            return
        async with self:
            self.loading_more = False
            if generation != self._generation:
                return
            if is_featured:
                if len(self.featured) == offset:
                    self.featured = self.featured + page["cards"]
                self.featured_total = page["total"]
            else:
                if len(self.upcoming) == offset:
                    self.upcoming = self.upcoming + page["cards"]
                self.upcoming_total = page["total"]

    @rx.event
    def open_event(self, section: str, index: int):
        """Show the card at `index` of a section in the dialog (the card already holds what it shows)."""
        cards = self.featured if section == FEATURED else self.upcoming
        if 0 <= index < len(cards):
            self.selected = cards[index]
            self.dialog_open, self.image_enlarged, self.playing = True, False, ""

    @rx.event
    def set_dialog_open(self, value: bool):
        self.dialog_open = value
        if not value:
            self.image_enlarged, self.playing = False, ""

    @rx.event
    def set_image_enlarged(self, value: bool):
        self.image_enlarged = value

    @rx.event
    def play(self, url: str):
        """Play one of the open event's videos (only its own addresses are played)."""
        if any(v["url"] == url for v in self.selected["videos"]):
            self.playing = url
