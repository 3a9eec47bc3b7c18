"""The events page's cards, a page at a time: what its state holds and what the served first view
draws (dates and prices already formatted, image addresses already cache-busted)."""

from __future__ import annotations

import re
from typing import TypedDict
from urllib.parse import parse_qs, urlsplit

from sqlmodel import Session

from storefront.services.events import events

EVENTS_PAGE_SIZE = 24

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


class EventCardPage(TypedDict):
    cards: list[EventCard]
    total: int


def event_page(session: Session, featured: bool, offset: int, limit: int = EVENTS_PAGE_SIZE) -> EventCardPage:
    """One page of active featured (or other) events as cards."""
    page = events.list_events(session, featured=featured, limit=limit, offset=offset)
    return EventCardPage(cards=[to_event_card(v, long_card_date=featured) for v in page.events], total=page.total)
