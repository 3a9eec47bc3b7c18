"""The demo store's events (SQLite and PostgreSQL): seeded once, with photos stored like uploads."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.services.events.demo_events import seed_events_if_empty
from storefront.services.events.events import list_events


def test_demo_events_are_seeded_once_with_photos_and_renditions(engine: Engine, tmp_path: Path) -> None:
    uploads, media = tmp_path / "uploads", tmp_path / "media"
    with Session(engine) as session:
        assert seed_events_if_empty(session, uploads, media, today=date(2026, 12, 1)) == 5
        session.commit()
        assert seed_events_if_empty(session, uploads, media) == 0
        everything = list_events(session, include_inactive=True).events
        public = list_events(session).events
        featured = list_events(session, featured=True).events
    assert len(everything) == 5 and len(public) == 4 and len(featured) == 2
    assert [e.starts_at for e in everything] == sorted(e.starts_at for e in everything)
    assert everything[0].starts_at == "2026-12-11T12:00"
    for event in everything:
        (url,) = event.images
        assert (uploads / url.removeprefix("/uploads/")).is_file()
        (shown,) = event.pictures
        assert shown.srcset and (media / Path(shown.src).name).is_file()
