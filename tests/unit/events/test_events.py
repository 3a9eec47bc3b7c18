"""Tours & events: the form's cleaning and checks, and the lists, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from storefront.models import Event, ImageSource
from storefront.services.events import events
from storefront.services.events.events import (
    BAD_CAPACITY,
    BAD_DATE,
    BAD_IMAGE,
    BAD_LINK,
    BAD_PRICE,
    BAD_VIDEO,
    DESCRIPTION_REQUIRED,
    END_BEFORE_START,
    EVENT_NOT_FOUND,
    INVALID_EVENT,
    LOCATION_REQUIRED,
    START_REQUIRED,
    TITLE_REQUIRED,
    TITLE_TOO_LONG,
    TOO_MANY_IMAGES,
    clean_event,
    create_event,
    delete_event,
    get_event,
    list_events,
    serialize_event,
    update_event,
)
from storefront.services.media.catalog_images import src_key
from storefront.services.platform.errors import NotFoundError, ValidationError


def form(**overrides: Any) -> dict[str, Any]:
    """A complete, valid event form (API names), with `overrides` applied."""
    data: dict[str, Any] = {
        "title": "HWDKN Summer Tour",
        "description": "Three nights of music and merch.",
        "location": "Austin, TX",
        "startDate": "2026-12-05T19:00",
        "endDate": "2026-12-05T23:00",
        "images": [],
        "videos": [],
        "links": [],
        "isActive": True,
        "featured": False,
        "capacity": "",
        "price": "",
    }
    data.update(overrides)
    return data


def refusal(data: dict[str, Any]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        clean_event(data)
    return caught.value


# --------------------------------------------------------------------------- cleaning (no database)


def test_a_complete_form_is_cleaned_into_trimmed_fields() -> None:
    fields = clean_event(form(title="  HWDKN Summer Tour  ", location=" Austin, TX "))
    assert fields.title == "HWDKN Summer Tour"
    assert fields.location == "Austin, TX"
    assert (fields.starts_at, fields.ends_at) == ("2026-12-05T19:00", "2026-12-05T23:00")
    assert (fields.is_active, fields.featured) == (True, False)


def test_blank_image_and_video_entries_are_dropped() -> None:
    fields = clean_event(
        form(
            images=["", "  ", "/uploads/events/a.webp", "https://cdn.example.com/b.jpg", None],
            videos=["", "https://video.example.com/v/1", "   "],
        )
    )
    assert fields.images == ("/uploads/events/a.webp", "https://cdn.example.com/b.jpg")
    assert fields.videos == ("https://video.example.com/v/1",)


def test_links_missing_a_title_or_a_url_are_dropped() -> None:
    fields = clean_event(
        form(
            links=[
                {"title": "Tickets", "url": "https://tickets.example.com/hwdkn"},
                {"title": "", "url": "https://example.com/no-title"},
                {"title": "No url", "url": "  "},
                {"title": "Missing url"},
                "not a link",
            ]
        )
    )
    assert fields.links == (events.EventLink(title="Tickets", url="https://tickets.example.com/hwdkn"),)


@pytest.mark.parametrize(
    ("given", "expected"), [("", None), (None, None), ("  ", None), ("150", 150), (150, 150), ("12.0", 12)]
)
def test_capacity_becomes_a_whole_number_or_none(given: object, expected: int | None) -> None:
    assert clean_event(form(capacity=given)).capacity == expected


@pytest.mark.parametrize("given", ["0", "-3", "2.5", "many", True, [3]])
def test_a_capacity_that_is_not_a_whole_number_of_1_or_more_is_refused(given: object) -> None:
    error = refusal(form(capacity=given))
    assert error.field_errors == {"capacity": BAD_CAPACITY}
    assert error.message == BAD_CAPACITY


@pytest.mark.parametrize(
    ("given", "expected"), [("", None), (None, None), ("25", 2500), ("19.99", 1999), (0, 0), (12.5, 1250), ("0.10", 10)]
)
def test_price_becomes_cents_or_none(given: object, expected: int | None) -> None:
    assert clean_event(form(price=given)).price_cents == expected


@pytest.mark.parametrize("given", ["-1", "1.234", "free", "NaN", "Infinity", True, "1000000.01"])
def test_a_price_that_is_not_dollars_and_cents_of_0_or_more_is_refused(given: object) -> None:
    assert refusal(form(price=given)).field_errors == {"price": BAD_PRICE}


def test_an_infinite_capacity_is_refused_as_a_bad_capacity() -> None:
    assert refusal(form(capacity="Infinity")).field_errors == {"capacity": BAD_CAPACITY}


def test_a_capacity_beyond_the_database_integer_is_refused() -> None:
    assert refusal(form(capacity=str(2**31))).field_errors == {"capacity": BAD_CAPACITY}


def test_a_time_before_the_year_1000_is_refused() -> None:
    assert refusal(form(startDate="0999-01-01T10:00")).field_errors == {"startDate": BAD_DATE}


def test_an_end_before_the_start_is_refused() -> None:
    error = refusal(form(startDate="2026-12-05T19:00", endDate="2026-12-05T18:59"))
    assert error.field_errors == {"endDate": END_BEFORE_START}
    assert error.message == END_BEFORE_START


def test_an_end_equal_to_the_start_and_no_end_at_all_are_accepted() -> None:
    assert clean_event(form(endDate="2026-12-05T19:00")).ends_at == "2026-12-05T19:00"
    assert clean_event(form(endDate="")).ends_at is None
    assert clean_event(form(endDate=None)).ends_at is None


def test_times_keep_the_wall_clock_minute_and_drop_seconds_and_offsets() -> None:
    fields = clean_event(form(startDate="2026-12-05T19:00:59+05:00", endDate="2026-12-06T01:30:00Z"))
    assert (fields.starts_at, fields.ends_at) == ("2026-12-05T19:00", "2026-12-06T01:30")


def test_a_time_that_is_not_a_date_and_time_is_refused() -> None:
    error = refusal(form(startDate="next friday", endDate="12/05/2026"))
    assert error.field_errors == {"startDate": BAD_DATE, "endDate": BAD_DATE}
    assert error.message == INVALID_EVENT


def test_title_location_description_and_start_are_required() -> None:
    error = refusal({"title": "  ", "images": ["  "]})
    assert error.field_errors == {
        "title": TITLE_REQUIRED,
        "location": LOCATION_REQUIRED,
        "description": DESCRIPTION_REQUIRED,
        "startDate": START_REQUIRED,
    }
    assert error.message == INVALID_EVENT


def test_a_title_over_200_characters_is_refused() -> None:
    assert clean_event(form(title="x" * 200)).title == "x" * 200
    assert refusal(form(title="x" * 201)).field_errors == {"title": TITLE_TOO_LONG}


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "ftp://example.com/v.mp4", "example.com/v", "https://", "/uploads/v.mp4"]
)
def test_a_video_that_is_not_an_http_address_is_refused(url: str) -> None:
    assert refusal(form(videos=[url])).field_errors == {"videos": BAD_VIDEO}


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,<b>x</b>", "mailto:a@example.com", "//example.com"]
)
def test_a_link_that_is_not_an_http_address_is_refused(url: str) -> None:
    assert refusal(form(links=[{"title": "Tickets", "url": url}])).field_errors == {"links": BAD_LINK}


@pytest.mark.parametrize("url", ["javascript:alert(1)", "/uploads/../storefront.db", "/etc/passwd", "file:///etc/passwd"])
def test_an_image_that_is_neither_an_upload_nor_a_web_address_is_refused(url: str) -> None:
    assert refusal(form(images=[url])).field_errors == {"images": BAD_IMAGE}


def test_more_than_ten_images_are_refused() -> None:
    ten = [f"/uploads/events/{n}.webp" for n in range(10)]
    assert len(clean_event(form(images=ten)).images) == 10
    assert refusal(form(images=[*ten, "/uploads/events/x.webp"])).field_errors == {"images": TOO_MANY_IMAGES}


@pytest.mark.parametrize(
    ("given", "expected"), [(None, True), (False, False), ("false", False), ("true", True), (0, False)]
)
def test_is_active_defaults_to_true(given: object, expected: bool) -> None:
    data = form()
    data.pop("isActive")
    if given is not None:
        data["isActive"] = given
    assert clean_event(data).is_active is expected


def test_featured_defaults_to_false() -> None:
    data = form()
    data.pop("featured")
    assert clean_event(data).featured is False
    assert clean_event(form(featured="true")).featured is True


# --------------------------------------------------------------------------- the database


def _add(engine: Engine, **overrides: Any) -> int:
    with Session(engine) as session:
        view = create_event(session, form(**overrides))
        session.commit()
    return view.id


def _count(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Event)).one()


def test_a_created_event_is_stored_whole_and_read_back(engine: Engine) -> None:
    event_id = _add(
        engine,
        images=["/uploads/events/a.webp", ""],
        videos=["https://video.example.com/v/1", ""],
        links=[{"title": "Tickets", "url": "https://tickets.example.com"}, {"title": "", "url": "https://x.example"}],
        capacity="150",
        price="25.50",
        featured=True,
    )
    with Session(engine) as session:
        view = get_event(session, event_id)
    assert serialize_event(view) == {
        "id": event_id,
        "title": "HWDKN Summer Tour",
        "description": "Three nights of music and merch.",
        "location": "Austin, TX",
        "startDate": "2026-12-05T19:00",
        "endDate": "2026-12-05T23:00",
        "images": ["/uploads/events/a.webp"],
        "videos": ["https://video.example.com/v/1"],
        "links": [{"title": "Tickets", "url": "https://tickets.example.com"}],
        "isActive": True,
        "featured": True,
        "capacity": 150,
        "price": 25.5,
        "registrations": [],
        "registrationCount": 0,
    }


def test_a_refused_event_stores_nothing(engine: Engine) -> None:
    with Session(engine) as session:
        with pytest.raises(ValidationError):
            create_event(session, form(endDate="2026-12-04T00:00"))
        session.commit()
    assert _count(engine) == 0


def test_the_public_list_has_active_events_only_soonest_first(engine: Engine) -> None:
    late = _add(engine, title="Late", startDate="2027-03-01T10:00", endDate="")
    hidden = _add(engine, title="Hidden", startDate="2026-01-01T10:00", endDate="", isActive=False)
    soon = _add(engine, title="Soon", startDate="2026-06-01T10:00", endDate="")
    with Session(engine) as session:
        public = list_events(session)
        everything = list_events(session, include_inactive=True)
    assert [view.id for view in public.events] == [soon, late]
    assert public.total == 2
    assert [view.id for view in everything.events] == [hidden, soon, late]
    assert everything.total == 3


def test_featured_true_or_false_keeps_only_those(engine: Engine) -> None:
    star = _add(engine, title="Star", featured=True)
    plain = _add(engine, title="Plain", featured=False, startDate="2026-12-06T19:00", endDate="")
    _add(engine, title="Hidden star", featured=True, isActive=False)
    with Session(engine) as session:
        assert [v.id for v in list_events(session, featured=True).events] == [star]
        assert [v.id for v in list_events(session, featured=False).events] == [plain]
        assert len(list_events(session, featured=True, include_inactive=True).events) == 2


def test_the_list_is_paged_with_limit_and_offset(engine: Engine) -> None:
    ids = [_add(engine, title=f"E{day}", startDate=f"2026-12-{day:02d}T10:00", endDate="") for day in range(1, 6)]
    with Session(engine) as session:
        page = list_events(session, limit=2, offset=2)
    assert [view.id for view in page.events] == ids[2:4]
    assert page.total == 5


def test_an_uploaded_image_with_renditions_is_shown_through_them(engine: Engine) -> None:
    url = "/uploads/events/photo.webp"
    with Session(engine) as session:
        session.add(ImageSource(src_key=src_key(url), src=url, digest="d" * 24, width=800, height=600))
        session.commit()
    event_id = _add(engine, images=[url, "https://cdn.example.com/raw.jpg"])
    with Session(engine) as session:
        view = get_event(session, event_id)
    assert view.pictures[0].src == f"/media/{'d' * 24}-640.webp"
    assert (view.pictures[0].width, view.pictures[0].height) == (800, 600)
    assert view.pictures[1].src == "https://cdn.example.com/raw.jpg" and view.pictures[1].srcset == ""


def test_an_update_replaces_the_fields_and_keeps_the_registrations(engine: Engine) -> None:
    event_id = _add(engine, capacity="10")
    with Session(engine) as session:
        row = session.get(Event, event_id)
        assert row is not None
        row.registrations_json = json.dumps([{"name": "Ada"}])
        session.commit()
    with Session(engine) as session:
        view = update_event(session, event_id, form(title="Renamed", capacity="", isActive=False))
        session.commit()
    assert (view.title, view.capacity, view.is_active, view.registration_count) == ("Renamed", None, False, 1)
    with Session(engine) as session:
        with pytest.raises(NotFoundError):
            get_event(session, event_id)
        assert get_event(session, event_id, include_inactive=True).title == "Renamed"


def test_a_refused_update_changes_nothing(engine: Engine) -> None:
    event_id = _add(engine)
    with Session(engine) as session, pytest.raises(ValidationError):
        update_event(session, event_id, form(title="Renamed", videos=["javascript:alert(1)"]))
    with Session(engine) as session:
        assert get_event(session, event_id).title == "HWDKN Summer Tour"


def test_the_change_time_moves_on_update(engine: Engine) -> None:
    event_id = _add(engine)
    with Session(engine) as session:
        before = get_event(session, event_id).updated_at
        update_event(session, event_id, form(title="Again"))
        session.commit()
        after = get_event(session, event_id).updated_at
    assert isinstance(after, datetime) and after >= before


@pytest.mark.parametrize("unknown", [999_999, "abc", "", "1.5"])
def test_an_unknown_event_is_not_found(engine: Engine, unknown: object) -> None:
    with Session(engine) as session:
        for action in (
            lambda: get_event(session, unknown),
            lambda: update_event(session, unknown, form()),
            lambda: delete_event(session, unknown),
        ):
            with pytest.raises(NotFoundError) as caught:
                action()
            assert caught.value.message == EVENT_NOT_FOUND


def test_a_deleted_event_is_gone(engine: Engine) -> None:
    keep, gone = _add(engine, title="Keep"), _add(engine, title="Gone")
    with Session(engine) as session:
        delete_event(session, gone)
        session.commit()
    with Session(engine) as session:
        assert [v.id for v in list_events(session, include_inactive=True).events] == [keep]


def test_long_and_short_dates_and_cache_busting() -> None:
    assert events.long_date("2026-12-05T19:00") == "Saturday, December 5, 2026 at 7:00 PM"
    assert events.long_date("2026-12-05T00:05") == "Saturday, December 5, 2026 at 12:05 AM"
    assert events.short_date("2026-12-05T19:00") == "Dec 5, 2026"
    version = datetime(2026, 1, 1)
    stamp = int(version.timestamp())
    assert events.cache_busted("/uploads/a.webp", version) == f"/uploads/a.webp?v={stamp}"
    assert events.cache_busted("https://x.example/a.jpg?s=1", version) == f"https://x.example/a.jpg?s=1&v={stamp}"


def test_an_event_price_reads_free_at_zero_and_as_dollars_otherwise() -> None:
    assert [events.price_label(c) for c in (None, 0, 1500, 123450)] == ["", "Free", "$15.00", "$1,234.50"]


def test_a_huge_price_is_refused_as_a_price_not_a_crash() -> None:
    from storefront.services.events.events import parse_price_cents

    for huge in ("1e30", "1000000.001", 10**40):
        with pytest.raises(ValueError):
            parse_price_cents(huge)
    assert parse_price_cents("1000000") == 100_000_000
