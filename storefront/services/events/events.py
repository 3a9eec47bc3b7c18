"""Tours & events: the form's cleaning and checks, the public and admin lists, create/update/delete.

An event is saved whole or refused with a message per field (nothing half-saved). Times are the
wall-clock times of the place as typed ('yyyy-mm-ddThh:mm'); the price is kept in cents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import Session, col, func, select

from storefront.models import DB_INT_MAX, Event, ImageSource, utcnow
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import Picture, PreparedImage, picture
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import format_usd

MAX_EVENT_IMAGES = 10
MAX_PAGE_SIZE = 100
TITLE_MAX = 200
LOCATION_MAX = 200

EVENT_NOT_FOUND = "Event not found"
INVALID_EVENT = "Please correct the highlighted fields."
TITLE_REQUIRED = "Title is required"
TITLE_TOO_LONG = f"Title must be at most {TITLE_MAX} characters"
LOCATION_REQUIRED = "Location is required"
LOCATION_TOO_LONG = f"Location must be at most {LOCATION_MAX} characters"
DESCRIPTION_REQUIRED = "Description is required"
START_REQUIRED = "Start date and time is required"
BAD_DATE = "Enter a date and time as yyyy-mm-ddThh:mm"
END_BEFORE_START = "The end cannot be before the start"
MAX_CAPACITY = 1_000_000
BAD_CAPACITY = f"Capacity must be a whole number from 1 to {MAX_CAPACITY:,}"
BAD_PRICE = "Price must be a number of 0 or more, with at most two decimals"
BAD_VIDEO = "Each video must be a web address starting with http:// or https://"
BAD_LINK = "Each link must be a web address starting with http:// or https://"
BAD_IMAGE = "Each image must be an uploaded image or a web address starting with http:// or https://"
TOO_MANY_IMAGES = f"An event can have at most {MAX_EVENT_IMAGES} images"

_FORM_TIME = "%Y-%m-%dT%H:%M"


@dataclass(frozen=True, slots=True)
class EventLink:
    title: str
    url: str


@dataclass(frozen=True, slots=True)
class EventFields:
    """A cleaned, checked event form."""

    title: str
    description: str
    location: str
    starts_at: str
    ends_at: str | None
    images: tuple[str, ...]
    videos: tuple[str, ...]
    links: tuple[EventLink, ...]
    is_active: bool
    featured: bool
    capacity: int | None
    price_cents: int | None


@dataclass(frozen=True, slots=True)
class EventView:
    """An event as pages and the API show it; `pictures` are its images' renditions (the
    uploaded file itself when it has none), in the order of `images`."""

    id: int
    title: str
    description: str
    location: str
    starts_at: str
    ends_at: str | None
    images: tuple[str, ...]
    pictures: tuple[Picture, ...]
    videos: tuple[str, ...]
    links: tuple[EventLink, ...]
    registrations: tuple[Any, ...]
    is_active: bool
    featured: bool
    capacity: int | None
    price_cents: int | None
    updated_at: datetime

    @property
    def registration_count(self) -> int:
        return len(self.registrations)


# --------------------------------------------------------------------------- cleaning and checks


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _flag(value: object, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def parse_time(value: object) -> str | None:
    """'yyyy-mm-ddThh:mm' (seconds and an ISO offset are accepted and dropped); None when blank;
    ValueError when it is not a date and time."""
    text = _text(value)
    if not text:
        return None
    moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    if moment.year < 1000:  # the stored form must keep four-digit years to sort in time order
        raise ValueError("year before 1000")
    return moment.replace(tzinfo=None).strftime(_FORM_TIME)


def parse_capacity(value: object) -> int | None:
    """A whole number from 1 to MAX_CAPACITY, None when blank; ValueError otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError("not a number")
    number = Decimal(str(value).strip()) if not isinstance(value, int) else Decimal(value)
    if not number.is_finite() or number != number.to_integral_value() or not 1 <= number <= MAX_CAPACITY:
        raise ValueError("not a whole number in range")
    return int(number)


def parse_price_cents(value: object) -> int | None:
    """Dollars (0 or more, at most two decimals) as cents, None when blank; ValueError otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError("not a number")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError("not a number") from None
    # The size is checked first: quantize cannot round a huge amount ('1e30') and would raise.
    if not amount.is_finite() or amount < 0 or amount > 1_000_000 or amount != amount.quantize(Decimal("0.01")):
        raise ValueError("not a price")
    return int(amount * 100)


def is_web_address(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _is_image_address(url: str) -> bool:
    return (url.startswith("/uploads/") and ".." not in url) or is_web_address(url)


def _strings(value: object) -> list[str]:
    """The non-blank strings of a list (blank rows of the form are dropped)."""
    if not isinstance(value, (list, tuple)):
        return []
    return [item.strip() for item in value if isinstance(item, str) and item.strip()]


def _links(value: object) -> list[EventLink]:
    """Links with both a title and a url (a row missing either is dropped)."""
    if not isinstance(value, (list, tuple)):
        return []
    links = []
    for item in value:
        if isinstance(item, Mapping):
            title, url = _text(item.get("title")), _text(item.get("url"))
            if title and url:
                links.append(EventLink(title=title, url=url))
    return links


def clean_event(data: Mapping[str, Any]) -> EventFields:
    """The form (API names: startDate, endDate, isActive...) cleaned and checked; ValidationError
    with a message per field when anything is wrong."""
    errors: dict[str, str] = {}
    title, location, description = _text(data.get("title")), _text(data.get("location")), _text(data.get("description"))
    if not title:
        errors["title"] = TITLE_REQUIRED
    elif len(title) > TITLE_MAX:
        errors["title"] = TITLE_TOO_LONG
    if not location:
        errors["location"] = LOCATION_REQUIRED
    elif len(location) > LOCATION_MAX:
        errors["location"] = LOCATION_TOO_LONG
    if not description:
        errors["description"] = DESCRIPTION_REQUIRED
    starts_at = ends_at = None
    try:
        starts_at = parse_time(data.get("startDate"))
        if starts_at is None:
            errors["startDate"] = START_REQUIRED
    except (ValueError, TypeError):
        errors["startDate"] = BAD_DATE
    try:
        ends_at = parse_time(data.get("endDate"))
    except (ValueError, TypeError):
        errors["endDate"] = BAD_DATE
    if starts_at and ends_at and ends_at < starts_at:
        errors["endDate"] = END_BEFORE_START
    capacity = price_cents = None
    try:
        capacity = parse_capacity(data.get("capacity"))
    except (ValueError, TypeError, InvalidOperation):
        errors["capacity"] = BAD_CAPACITY
    try:
        price_cents = parse_price_cents(data.get("price"))
    except (ValueError, TypeError):
        errors["price"] = BAD_PRICE
    images, videos, links = _strings(data.get("images")), _strings(data.get("videos")), _links(data.get("links"))
    if len(images) > MAX_EVENT_IMAGES:
        errors["images"] = TOO_MANY_IMAGES
    elif not all(_is_image_address(url) for url in images):
        errors["images"] = BAD_IMAGE
    if not all(is_web_address(url) for url in videos):
        errors["videos"] = BAD_VIDEO
    if not all(is_web_address(link.url) for link in links):
        errors["links"] = BAD_LINK
    if errors:
        first = next(iter(errors.values()))
        raise ValidationError(first if len(errors) == 1 else INVALID_EVENT, errors)
    assert starts_at is not None
    return EventFields(
        title=title,
        description=description,
        location=location,
        starts_at=starts_at,
        ends_at=ends_at,
        images=tuple(images),
        videos=tuple(videos),
        links=tuple(links),
        is_active=_flag(data.get("isActive"), True),
        featured=_flag(data.get("featured"), False),
        capacity=capacity,
        price_cents=price_cents,
    )


# --------------------------------------------------------------------------- reads


def _pictures(session: Session, events: Sequence[Event]) -> dict[str, Picture]:
    """The renditions of every image of these events that has them (one query)."""
    urls = {url for event in events for url in json.loads(event.images_json)}
    if not urls:
        return {}
    rows = session.exec(
        select(ImageSource).where(col(ImageSource.src_key).in_([src_key(u) for u in urls]), ImageSource.digest != "")
    ).all()
    return {row.src: picture(PreparedImage(row.digest, row.width, row.height)) for row in rows}


def _view(event: Event, pictures: Mapping[str, Picture]) -> EventView:
    images = tuple(json.loads(event.images_json))
    assert event.id is not None
    return EventView(
        id=event.id,
        title=event.title,
        description=event.description,
        location=event.location,
        starts_at=event.starts_at,
        ends_at=event.ends_at,
        images=images,
        pictures=tuple(pictures.get(url) or Picture(src=url, srcset="", width=0, height=0) for url in images),
        videos=tuple(json.loads(event.videos_json)),
        links=tuple(EventLink(**link) for link in json.loads(event.links_json)),
        registrations=tuple(json.loads(event.registrations_json)),
        is_active=event.is_active,
        featured=event.featured,
        capacity=event.capacity,
        price_cents=event.price_cents,
        updated_at=event.updated_at,
    )


def _views(session: Session, events: Sequence[Event]) -> list[EventView]:
    pictures = _pictures(session, events)
    return [_view(event, pictures) for event in events]


@dataclass(frozen=True, slots=True)
class EventPage:
    events: tuple[EventView, ...]
    total: int


def list_events(
    session: Session,
    *,
    include_inactive: bool = False,
    featured: bool | None = None,
    limit: int = MAX_PAGE_SIZE,
    offset: int = 0,
) -> EventPage:
    """Events soonest first (active only unless `include_inactive`), a page at a time;
    `featured` True or False keeps only featured or only the others."""
    conditions = []
    if not include_inactive:
        conditions.append(col(Event.is_active).is_(True))
    if featured is not None:
        conditions.append(col(Event.featured).is_(featured))
    total = session.exec(select(func.count()).select_from(Event).where(*conditions)).one()
    rows = session.exec(
        select(Event)
        .where(*conditions)
        .order_by(col(Event.starts_at), col(Event.id))
        .offset(max(offset, 0))
        .limit(min(max(limit, 1), MAX_PAGE_SIZE))
    ).all()
    return EventPage(events=tuple(_views(session, rows)), total=int(total))


def active_event_stamps(session: Session, limit: int = 50_000) -> list[tuple[int, datetime]]:
    """The id and last change of every active event, soonest first (for the sitemap)."""
    rows = session.exec(
        select(Event.id, Event.updated_at)
        .where(col(Event.is_active).is_(True))
        .order_by(col(Event.starts_at), col(Event.id))
        .limit(limit)
    ).all()
    return [(event_id, updated) for event_id, updated in rows if event_id is not None]


def _event(session: Session, event_id: object) -> Event:
    try:
        key = int(str(event_id))
    except ValueError:
        raise NotFoundError(EVENT_NOT_FOUND) from None
    if not 0 < key <= DB_INT_MAX:  # the database driver would refuse it with an error of its own
        raise NotFoundError(EVENT_NOT_FOUND)
    row = session.get(Event, key)
    if row is None:
        raise NotFoundError(EVENT_NOT_FOUND)
    return row


def get_event(session: Session, event_id: object, *, include_inactive: bool = False) -> EventView:
    row = _event(session, event_id)
    if not row.is_active and not include_inactive:
        raise NotFoundError(EVENT_NOT_FOUND)
    return _views(session, [row])[0]


# --------------------------------------------------------------------------- writes


def _apply(row: Event, fields: EventFields) -> None:
    row.title, row.description, row.location = fields.title, fields.description, fields.location
    row.starts_at, row.ends_at = fields.starts_at, fields.ends_at
    row.images_json = json.dumps(list(fields.images))
    row.videos_json = json.dumps(list(fields.videos))
    row.links_json = json.dumps([{"title": link.title, "url": link.url} for link in fields.links])
    row.is_active, row.featured = fields.is_active, fields.featured
    row.capacity, row.price_cents = fields.capacity, fields.price_cents
    row.updated_at = utcnow()


def create_event(session: Session, data: Mapping[str, Any]) -> EventView:
    """A new event from the form; the caller commits."""
    row = Event(title="", description="", location="", starts_at="")
    _apply(row, clean_event(data))
    session.add(row)
    session.flush()
    return _views(session, [row])[0]


def update_event(session: Session, event_id: object, data: Mapping[str, Any]) -> EventView:
    """The event replaced by the form (registrations are kept); the caller commits."""
    row = _event(session, event_id)
    _apply(row, clean_event(data))
    session.add(row)
    session.flush()
    return _views(session, [row])[0]


def delete_event(session: Session, event_id: object) -> None:
    session.delete(_event(session, event_id))
    session.flush()


# --------------------------------------------------------------------------- presentation


def long_date(moment: str) -> str:
    """'Saturday, December 5, 2026 at 7:00 PM' (featured cards and the detail dialog)."""
    value = datetime.strptime(moment, _FORM_TIME)
    return f"{value:%A, %B} {value.day}, {value.year} at {_clock(value)}"


def short_date(moment: str) -> str:
    """'Dec 5, 2026' (upcoming cards)."""
    value = datetime.strptime(moment, _FORM_TIME)
    return f"{value:%b} {value.day}, {value.year}"


def _clock(value: datetime) -> str:
    hour = value.hour % 12 or 12
    return f"{hour}:{value:%M} {'AM' if value.hour < 12 else 'PM'}"


def serialize_event(view: EventView) -> dict[str, Any]:
    """The API's JSON of an event (spec section 6 names)."""
    return {
        "id": view.id,
        "title": view.title,
        "description": view.description,
        "location": view.location,
        "startDate": view.starts_at,
        "endDate": view.ends_at,
        "images": list(view.images),
        "videos": list(view.videos),
        "links": [{"title": link.title, "url": link.url} for link in view.links],
        "isActive": view.is_active,
        "featured": view.featured,
        "capacity": view.capacity,
        "price": None if view.price_cents is None else float(Decimal(view.price_cents) / 100),
        "registrations": list(view.registrations),
        "registrationCount": view.registration_count,
    }


def price_label(price_cents: int | None) -> str:
    """How an event's price reads: 'Free' at 0, '$1,234.50' otherwise, "" when none is set."""
    if price_cents is None:
        return ""
    return "Free" if price_cents == 0 else format_usd(price_cents)


def cache_busted(url: str, version: datetime) -> str:
    """The URL with the event's change time as a query, so a replaced image is fetched anew."""
    return f"{url}{'&' if '?' in url else '?'}v={int(version.timestamp())}"


def cache_busted_srcset(srcset: str, version: datetime) -> str:
    return ", ".join(
        f"{cache_busted(url, version)} {width}"
        for url, width in (entry.strip().rsplit(" ", 1) for entry in srcset.split(",") if entry.strip())
    )

