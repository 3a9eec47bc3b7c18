"""/tours-and-events: featured and upcoming events, a page at a time, and the event shown in the dialog."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TypedDict
from urllib.parse import parse_qs, urlsplit

import reflex as rx

from storefront.db import session_scope
# `/tours-and-events?event=<id>` opens that event's details: the address the sitemap and the
# event's link preview give it.
from storefront.page_head import EVENT_PARAM
from storefront.services.events import events
from storefront.services.platform.errors import NotFoundError

log = logging.getLogger(__name__)

EVENTS_PAGE_SIZE = 24
LOAD_FAILED = "Failed to load events"

FEATURED = "featured"
UPCOMING = "upcoming"

_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{6,20}$")
_VIMEO_ID = re.compile(r"^\d{4,15}$")


class EventVideo(TypedDict):
    """A video of an event: its address, and the player address when it is a YouTube or Vimeo
    page (`embed`, played in an iframe); empty `embed` plays `url` in a <video> element."""

    url: str
    embed: str


class EventLinkItem(TypedDict):
    title: str
    url: str


class EventCard(TypedDict):
    """What an event card and its detail dialog show; dates and price already formatted, image
    addresses already cache-busted. No registrations: only the admin sees their count."""

    id: int
    title: str
    description: str
    location: str
    date: str  # the card's date: long form for featured events, short form for the others
    starts: str  # long form, for the dialog
    ends: str  # long form, "" without an end
    price: str  # "" without a price
    capacity: str  # "" without a capacity
    image: str  # "" without an image
    srcset: str
    image_width: int
    image_height: int
    videos: list[EventVideo]
    links: list[EventLinkItem]


EMPTY_CARD = EventCard(
    id=0, title="", description="", location="", date="", starts="", ends="", price="", capacity="",
    image="", srcset="", image_width=0, image_height=0, videos=[], links=[],
)


def embed_url(url: str) -> str:
    """The player address of a YouTube or Vimeo page, "" for any other address (played as a
    video file). Only http(s) addresses reach here (the service checks them)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("m.")
    video_id = ""
    if host in ("youtube.com", "youtube-nocookie.com"):
        if parts.path == "/watch":
            video_id = (parse_qs(parts.query).get("v") or [""])[0]
        elif parts.path.startswith(("/embed/", "/shorts/", "/live/")):
            video_id = parts.path.split("/")[2]
        if _YOUTUBE_ID.match(video_id):
            return f"https://www.youtube-nocookie.com/embed/{video_id}?autoplay=1"
    elif host == "youtu.be":
        video_id = parts.path.strip("/").split("/")[0]
        if _YOUTUBE_ID.match(video_id):
            return f"https://www.youtube-nocookie.com/embed/{video_id}?autoplay=1"
    elif host in ("vimeo.com", "player.vimeo.com"):
        video_id = parts.path.strip("/").split("/")[-1]
        if _VIMEO_ID.match(video_id):
            return f"https://player.vimeo.com/video/{video_id}?autoplay=1"
    return ""


def to_event_card(view: events.EventView, *, long_card_date: bool) -> EventCard:
    """An event as its card and dialog show it."""
    first = view.pictures[0] if view.pictures else None
    starts = events.long_date(view.starts_at)
    return EventCard(
        id=view.id,
        title=view.title,
        description=view.description,
        location=view.location,
        date=starts if long_card_date else events.short_date(view.starts_at),
        starts=starts,
        ends=events.long_date(view.ends_at) if view.ends_at else "",
        price=events.price_label(view.price_cents),
        capacity="" if view.capacity is None else f"{view.capacity:,}",
        image=events.cache_busted(first.src, view.updated_at) if first else "",
        srcset=events.cache_busted_srcset(first.srcset, view.updated_at) if first and first.srcset else "",
        image_width=first.width if first else 0,
        image_height=first.height if first else 0,
        videos=[EventVideo(url=url, embed=embed_url(url)) for url in view.videos],
        links=[EventLinkItem(title=link.title, url=link.url) for link in view.links],
    )




def _linked_event(event_id: str) -> EventCard | None:
    """The active event a link names, as its dialog shows it; None for any other id."""
    with session_scope() as session:
        try:
            view = events.get_event(session, event_id)
        except NotFoundError:
            return None
        return to_event_card(view, long_card_date=view.featured)


class EventCardPage(TypedDict):
    cards: list[EventCard]
    total: int


def _event_page(featured: bool, offset: int, limit: int = EVENTS_PAGE_SIZE) -> EventCardPage:
    """One page of active featured (or other) events as cards (runs in a worker thread)."""
    with session_scope() as session:
        page = events.list_events(session, featured=featured, limit=limit, offset=offset)
        return EventCardPage(cards=[to_event_card(v, long_card_date=featured) for v in page.events], total=page.total)


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
                lambda: (_event_page(True, 0), _event_page(False, 0))
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
            page = await asyncio.to_thread(_event_page, is_featured, offset)
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
