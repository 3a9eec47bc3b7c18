"""/tours-and-events in a real browser: featured and upcoming events, the detail dialog, image
fallbacks, Load More, and the loading, empty and failed states."""

from __future__ import annotations

import io
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Locator, Page, expect
from sqlmodel import Session

from storefront.db import make_engine
from storefront.services.events.events import create_event, delete_event, list_events
from storefront.services.media.uploads import UploadedFile, store_uploads
from storefront.state.events import EVENTS_PAGE_SIZE
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreProcess, StoreServer, reconfigured_store

ROUTE = "/tours-and-events"
CACHE_BUSTED = re.compile(r"\?v=\d+")

FEATURED = {
    "title": "Homecoming Pop-Up Gala",
    "description": "An evening of music and the new SWDNN drop.",
    "location": "Atlanta, GA",
    "startDate": "2026-12-05T19:00",
    "endDate": "2026-12-05T23:30",
    "videos": ["https://example.com/clips/gala.mp4"],
    "links": [{"title": "Get tickets", "url": "https://tickets.example.com/gala"}],
    "featured": True,
    "capacity": "300",
    "price": "25",
}
UPCOMING = {
    "title": "Spring Campus Tour Stop",
    "description": "Meet the designers on the spring tour.",
    "location": "Houston, TX",
    "startDate": "2027-01-15T18:30",
    "featured": False,
}
INACTIVE = {
    "title": "Cancelled Winter Meetup",
    "description": "This one is off.",
    "location": "Chicago, IL",
    "startDate": "2026-12-10T12:00",
    "isActive": False,
}
BROKEN_IMAGE = {
    "title": "Broken Picture Night",
    "description": "Its picture is gone.",
    "location": "Dallas, TX",
    "startDate": "2027-02-01T20:00",
    "images": ["/uploads/events/missing-picture.webp"],
}
#: Enough later non-featured events that the upcoming list needs Load More.
BULK_UPCOMING = [
    {
        "title": f"Road Show Stop {n:02d}",
        "description": "A stop on the road show.",
        "location": "Memphis, TN",
        "startDate": f"2028-03-{1 + n:02d}T10:00",
    }
    for n in range(EVENTS_PAGE_SIZE)
]


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (800, 500), (155, 17, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def store_events(store: StoreServer) -> Iterator[dict[str, int]]:
    """The events above in the store's database (the featured one with an uploaded photo); removed afterwards."""
    engine = make_engine(store.db_url)
    upload_dir = store.data_dir / "uploads"
    ids: dict[str, int] = {}
    with Session(engine, expire_on_commit=False) as session:
        [photo] = store_uploads(
            session, [UploadedFile("gala.png", png_bytes())], upload_dir, upload_dir / "media", "events"
        )
        for data in [{**FEATURED, "images": [photo.url]}, UPCOMING, INACTIVE, BROKEN_IMAGE, *BULK_UPCOMING]:
            ids[data["title"]] = create_event(session, data).id
        session.commit()
    yield ids
    with Session(engine) as session:
        for event_id in ids.values():
            delete_event(session, event_id)
        session.commit()
    engine.dispose()


def card(page: Page, section: str, title: str) -> Locator:
    return page.get_by_test_id(f"{section}-events").get_by_test_id("event-card").filter(has_text=title)


def test_featured_and_upcoming_events_show_in_their_sections_with_their_date_forms(
    page: Page, store_events: dict[str, int]
) -> None:
    open_page(page, ROUTE)
    expect(page.get_by_role("heading", level=1, name="Tours & Events")).to_be_visible()
    expect(page.get_by_role("heading", level=2, name="Featured Events")).to_be_visible()
    expect(page.get_by_role("heading", level=2, name="Upcoming Events")).to_be_visible()

    featured = card(page, "featured", FEATURED["title"])
    expect(featured.get_by_test_id("event-date")).to_have_text("Saturday, December 5, 2026 at 7:00 PM")
    expect(featured.get_by_test_id("event-location")).to_have_text("Atlanta, GA")
    expect(featured.get_by_test_id("event-price")).to_have_text("$25.00")
    image = featured.locator("img")
    expect(image).to_have_attribute("alt", FEATURED["title"])
    expect(image).to_have_attribute("src", re.compile(r"^/media/[0-9a-f]{24}-\d+\.webp\?v=\d+$"))
    expect(image).to_have_attribute("srcset", re.compile(r"^/media/\S+\?v=\d+ \d+w, "))
    expect(image).to_have_attribute("loading", "eager")
    expect(image).to_have_attribute("width", "800")
    expect(image).to_have_attribute("height", "500")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())  # it loads

    upcoming = card(page, "upcoming", UPCOMING["title"])
    expect(upcoming.get_by_test_id("event-date")).to_have_text("Jan 15, 2027")
    expect(upcoming.get_by_test_id("event-price")).to_have_count(0)  # no price, none shown
    expect(card(page, "featured", UPCOMING["title"])).to_have_count(0)
    expect(card(page, "upcoming", FEATURED["title"])).to_have_count(0)
    expect(page.get_by_text(INACTIVE["title"])).to_have_count(0)


def test_a_card_opens_the_event_details_with_its_links_opening_in_a_new_tab(
    page: Page, store_events: dict[str, int]
) -> None:
    open_page(page, ROUTE)
    card(page, "featured", FEATURED["title"]).click()
    dialog = page.get_by_role("dialog", name=FEATURED["title"])
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("event-description")).to_have_text(FEATURED["description"])
    expect(dialog.get_by_test_id("event-starts")).to_have_text("Starts: Saturday, December 5, 2026 at 7:00 PM")
    expect(dialog.get_by_test_id("event-ends")).to_have_text("Ends: Saturday, December 5, 2026 at 11:30 PM")
    expect(dialog.get_by_test_id("event-location")).to_have_text("Location: Atlanta, GA")
    expect(dialog.get_by_test_id("event-capacity")).to_have_text("Capacity: 300")
    expect(dialog.get_by_test_id("event-price")).to_have_text("Price: $25.00")
    link = dialog.get_by_role("link", name="Get tickets")
    expect(link).to_have_attribute("href", "https://tickets.example.com/gala")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(dialog.locator("img")).to_have_attribute("src", CACHE_BUSTED)


def test_an_event_link_opens_its_details_and_an_inactive_one_only_the_list(
    page: Page, store_events: dict[str, int]
) -> None:
    open_page(page, f"{ROUTE}?event={store_events[UPCOMING['title']]}")
    dialog = page.get_by_role("dialog", name=UPCOMING["title"])
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("event-location")).to_have_text("Location: Houston, TX")
    open_page(page, f"{ROUTE}?event={store_events[INACTIVE['title']]}")
    expect(card(page, "featured", FEATURED["title"])).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_a_video_plays_only_once_clicked(page: Page, store_events: dict[str, int]) -> None:
    open_page(page, ROUTE)
    card(page, "featured", FEATURED["title"]).click()
    dialog = page.get_by_role("dialog", name=FEATURED["title"])
    expect(dialog.locator("video")).to_have_count(0)
    dialog.get_by_role("button", name="Play video 1").click()
    video = dialog.locator("video")
    expect(video).to_have_attribute("src", "https://example.com/clips/gala.mp4")
    expect(video).to_have_attribute("controls", "")
    expect(dialog.get_by_role("button", name="Play video 1")).to_have_count(0)


def test_the_dialog_image_enlarges_when_clicked(page: Page, store_events: dict[str, int]) -> None:
    open_page(page, ROUTE)
    card(page, "featured", FEATURED["title"]).click()
    page.get_by_role("dialog", name=FEATURED["title"]).get_by_role("button", name="Enlarge image").click()
    enlarged = page.get_by_test_id("enlarged-image")
    expect(enlarged).to_be_visible()
    expect(enlarged.locator("img")).to_have_attribute("sizes", "100vw")
    expect(enlarged.locator("img")).to_have_attribute("src", CACHE_BUSTED)


def test_an_image_that_fails_to_load_shows_image_not_available(page: Page, store_events: dict[str, int]) -> None:
    open_page(page, ROUTE)
    broken = card(page, "upcoming", BROKEN_IMAGE["title"])
    expect(broken.locator("img")).to_have_attribute(
        "src", re.compile(r"^/uploads/events/missing-picture\.webp\?v=\d+$")
    )
    expect(broken.get_by_text("Image not available")).to_be_visible()
    expect(broken.locator("img")).to_be_hidden()
    # An event without any image shows the same box; one whose image loads does not.
    expect(card(page, "upcoming", UPCOMING["title"]).get_by_text("Image not available")).to_be_visible()
    expect(card(page, "featured", FEATURED["title"]).get_by_text("Image not available")).to_be_hidden()


def test_upcoming_events_load_a_page_at_a_time(page: Page, store: StoreServer, store_events: dict[str, int]) -> None:
    engine = make_engine(store.db_url)
    with Session(engine) as session:
        total = list_events(session, featured=False, limit=1).total
    engine.dispose()
    assert total > EVENTS_PAGE_SIZE
    open_page(page, ROUTE)
    cards = page.get_by_test_id("upcoming-events").get_by_test_id("event-card")
    expect(cards).to_have_count(EVENTS_PAGE_SIZE)
    page.get_by_test_id("upcoming-events").get_by_role("button", name="Load More").click()
    expect(cards).to_have_count(min(total, 2 * EVENTS_PAGE_SIZE))
    titles = cards.get_by_test_id("event-title").all_text_contents()
    assert len(set(titles)) == len(titles), "Load More repeated an event"


def test_the_page_starts_with_loading_events_and_six_skeleton_cards(store: StoreServer) -> None:
    html = httpx.get(store.url + ROUTE, follow_redirects=False).text
    assert "Loading events..." in html
    assert html.count('data-testid="event-skeleton"') == 6


@pytest.mark.reconfigures_store
def test_a_store_without_events_shows_no_events_yet(
    page: Page, store: StoreServer, store_process: StoreProcess, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, {}):
        with sqlite3.connect(tmp_path / "storefront.db") as db:
            db.execute("DELETE FROM event")  # the demo events the store was seeded with
        open_page(page, ROUTE)
        expect(page.get_by_role("heading", name="No Events Yet")).to_be_visible()
        expect(page.get_by_test_id("event-card")).to_have_count(0)


@pytest.mark.reconfigures_store
def test_a_failed_load_shows_failed_to_load_events(
    page: Page, store: StoreServer, store_process: StoreProcess, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, {}):
        with sqlite3.connect(tmp_path / "storefront.db") as db:
            db.execute("DROP TABLE event")  # every read of the events now raises
        open_page(page, ROUTE)
        expect(page.get_by_role("heading", name="Failed to load events")).to_be_visible()
        expect(page.get_by_text("Loading events...")).to_have_count(0)
