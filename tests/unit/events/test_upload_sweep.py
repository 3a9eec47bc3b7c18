"""The sweep of event photos nobody uses (on SQLite and PostgreSQL): unsaved and deleted events'
photos go after the grace period, with their image rows and unshared renditions; photos any event
holds, recent uploads and other folders stay."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import Event, ImageSource
from storefront.services.events.upload_sweep import GRACE, SWEEP_EVERY_SECONDS, SWEEP_JOB, sweep_step, sweep_uploads
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import rendition_name, rendition_widths
from storefront.services.media.uploads import StoredImage, UploadedFile, store_uploads
from storefront.services.platform.job_leases import JobLeases
from tests.unit.media.test_uploads import encoded

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _upload(engine: Engine, upload_dir: Path, media_dir: Path, colour: str, *, age: timedelta) -> StoredImage:
    """One photo stored the way the admin's form stores it, its file dated `age` ago."""
    with Session(engine) as session:
        (stored,) = store_uploads(
            session, [UploadedFile("p.png", encoded((300, 200), "PNG", colour))],
            upload_dir, media_dir, "events",
        )
        session.commit()
    when = (NOW - age).timestamp()
    os.utime(_file(upload_dir, stored), (when, when))
    return stored


def _file(upload_dir: Path, image: StoredImage) -> Path:
    return upload_dir / image.url.removeprefix("/uploads/")


def _renditions(media_dir: Path, image: StoredImage) -> list[Path]:
    return [media_dir / rendition_name(image.prepared.digest, w) for w in rendition_widths(image.prepared.width)]


def _event(engine: Engine, *urls: str, active: bool = True) -> int:
    with Session(engine) as session:
        event = Event(title="Show", description="d", location="Here", starts_at="2026-12-01T20:00",
                      images_json=json.dumps(list(urls)), is_active=active)
        session.add(event)
        session.commit()
        assert event.id is not None
        return event.id


def _rows(engine: Engine) -> set[str]:
    with Session(engine) as session:
        return {row.src for row in session.exec(select(ImageSource)).all()}


def test_old_photos_no_event_holds_go_with_their_rows_and_renditions(engine: Engine, tmp_path: Path) -> None:
    upload_dir, media_dir = tmp_path / "uploads", tmp_path / "media"
    week = GRACE + timedelta(hours=1)
    shown = _upload(engine, upload_dir, media_dir, "red", age=week)
    hidden = _upload(engine, upload_dir, media_dir, "green", age=week)
    unsaved = _upload(engine, upload_dir, media_dir, "blue", age=week)
    deleted = _upload(engine, upload_dir, media_dir, "yellow", age=week)
    recent = _upload(engine, upload_dir, media_dir, "purple", age=GRACE - timedelta(hours=1))
    _event(engine, shown.url)
    _event(engine, hidden.url, active=False)
    gone = _event(engine, deleted.url)
    with Session(engine) as session:
        session.delete(session.get(Event, gone))
        session.commit()
    other_folder = upload_dir / "demo" / "keep.webp"
    other_folder.parent.mkdir(parents=True)
    other_folder.write_bytes(b"x")
    os.utime(other_folder, (0, 0))

    removed = sweep_uploads(lambda: Session(engine), upload_dir, media_dir, now=NOW)

    assert removed == sorted([unsaved.url, deleted.url])
    for image in (unsaved, deleted):
        assert not _file(upload_dir, image).exists()
        assert not any(path.exists() for path in _renditions(media_dir, image))
    for image in (shown, hidden, recent):
        assert _file(upload_dir, image).is_file()
        assert all(path.is_file() for path in _renditions(media_dir, image))
    assert other_folder.is_file()
    assert _rows(engine) == {shown.url, hidden.url, recent.url}
    assert sweep_uploads(lambda: Session(engine), upload_dir, media_dir, now=NOW) == []


def test_renditions_another_image_shares_are_kept(engine: Engine, tmp_path: Path) -> None:
    upload_dir, media_dir = tmp_path / "uploads", tmp_path / "media"
    old = GRACE + timedelta(days=1)
    kept = _upload(engine, upload_dir, media_dir, "red", age=old)
    twin = _upload(engine, upload_dir, media_dir, "red", age=old)  # the same picture uploaded twice
    assert kept.prepared.digest == twin.prepared.digest and kept.url != twin.url
    _event(engine, kept.url)

    assert sweep_uploads(lambda: Session(engine), upload_dir, media_dir, now=NOW) == [twin.url]
    assert not _file(upload_dir, twin).exists()
    assert all(path.is_file() for path in _renditions(media_dir, kept))
    with Session(engine) as session:
        assert session.get(ImageSource, src_key(twin.url)) is None
        assert session.get(ImageSource, src_key(kept.url)) is not None


def test_a_file_left_without_its_row_is_still_swept(engine: Engine, tmp_path: Path) -> None:
    upload_dir, media_dir = tmp_path / "uploads", tmp_path / "media"
    stray = _upload(engine, upload_dir, media_dir, "red", age=GRACE * 2)
    with Session(engine) as session:  # a sweep cut short after its commit, before the files went
        session.delete(session.get(ImageSource, src_key(stray.url)))
        session.commit()
    assert sweep_uploads(lambda: Session(engine), upload_dir, media_dir, now=NOW) == [stray.url]
    assert not _file(upload_dir, stray).exists()


def test_no_folder_yet_is_nothing_to_sweep(engine: Engine, tmp_path: Path) -> None:
    assert sweep_uploads(lambda: Session(engine), tmp_path / "none", tmp_path / "media", now=NOW) == []


def test_of_two_processes_one_sweeps_and_both_wait_hours(engine: Engine, tmp_path: Path) -> None:
    upload_dir, media_dir = tmp_path / "uploads", tmp_path / "media"
    orphan = _upload(engine, upload_dir, media_dir, "red", age=(NOW - datetime.now(UTC)) + GRACE * 2)
    a = sweep_step(lambda: Session(engine), upload_dir, media_dir, JobLeases(lambda: Session(engine), holder="a"))
    b = sweep_step(lambda: Session(engine), upload_dir, media_dir, JobLeases(lambda: Session(engine), holder="b"))
    assert a() == SWEEP_EVERY_SECONDS
    assert not _file(upload_dir, orphan).exists()
    again = _upload(engine, upload_dir, media_dir, "blue", age=(NOW - datetime.now(UTC)) + GRACE * 2)
    assert b() == SWEEP_EVERY_SECONDS  # not the holder: asks again later, sweeps nothing
    assert _file(upload_dir, again).exists()
    lease = JobLeases(lambda: Session(engine), holder="observer").lease(SWEEP_JOB)
    assert lease is not None and lease.holder == "a"
