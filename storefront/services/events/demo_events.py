"""The demo store's tours & events: a few events (featured, upcoming, one inactive) with generated
photos, added once to an empty events table so a fresh `make run` shows a live page."""

from __future__ import annotations

import io
from datetime import date, timedelta
from pathlib import Path

from sqlmodel import Session, func, select

from storefront.models import Event
from storefront.services.collections import COLLECTIONS, Collection
from storefront.services.events.events import create_event
from storefront.services.media.demo_images import render_collection_tile
from storefront.services.media.uploads import UploadedFile, store_uploads

#: (title, collection key, location, days from today, start, end, featured, active, capacity, price, description)
_DEMO_EVENTS = (
    ("SWDNN Winter Pop-Up", "swdnn", "Atlanta, GA - Ponce City Market", 10, "12:00", "18:00", True, True, 200, "0",
     "Try on the whole SWDNN line, meet the designers and get your tee printed while you wait."),
    ("HWDKN Campus Tour", "hwdkn", "Houston, TX - Texas Southern University", 24, "18:30", "", True, True, 120, "15.00",
     "An evening stop of the campus tour: live DJ, first look at the new hoodies and a raffle."),
    ("HWDRN Print Workshop", "hwdrn", "New Orleans, LA - Frenchmen Street Studio", 35, "10:00", "13:00", False, True,
     20, "45.00", "A hands-on screen printing workshop: print your own HWDRN design on a tee you take home."),
    ("HWDZN Spring Showcase", "hwdzn", "Washington, DC - The Wharf", 60, "19:00", "22:00", False, True, None, "25.00",
     "The spring collection on the runway, followed by a pop-up shop with early access prices."),
    ("HWDPN Meet & Greet", "hwdpn", "Baltimore, MD - Harbor Point", 80, "15:00", "", False, False, 50, "",
     "An afternoon with the HWDPN team; details to be announced."),
)


def _photo(collection: Collection) -> UploadedFile:
    buffer = io.BytesIO()
    render_collection_tile(collection, (960, 640)).save(buffer, format="PNG", optimize=True)
    return UploadedFile(filename=f"{collection.key}-event.png", data=buffer.getvalue())


def seed_events_if_empty(session: Session, upload_dir: Path, media_dir: Path, today: date | None = None) -> int:
    """Add the demo events when there are none; returns how many were added (the caller commits)."""
    if session.exec(select(func.count()).select_from(Event)).one():
        return 0
    start = today or date.today()
    by_key = {collection.key: collection for collection in COLLECTIONS}
    photos = store_uploads(
        session, [_photo(by_key[row[1]]) for row in _DEMO_EVENTS], upload_dir, media_dir, "events"
    )
    for row, photo in zip(_DEMO_EVENTS, photos, strict=True):
        title, _, location, days, begins, ends, featured, active, capacity, price, description = row
        day = (start + timedelta(days=days)).isoformat()
        create_event(session, {
            "title": title,
            "description": description,
            "location": location,
            "startDate": f"{day}T{begins}",
            "endDate": f"{day}T{ends}" if ends else "",
            "images": [photo.url],
            "videos": [],
            "links": [
                {"title": "Directions", "url": f"https://www.openstreetmap.org/search?query={location.split(' - ')[0]}"}
            ],
            "isActive": active,
            "featured": featured,
            "capacity": capacity,
            "price": price,
        })
    return len(_DEMO_EVENTS)
