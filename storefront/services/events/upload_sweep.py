"""Event photos nobody uses any more: uploaded for a form that was never saved, or left behind by
an event that was edited or deleted. The folder on disk is the source of truth, so a sweep cut
short by a crash leaves nothing the next sweep cannot find."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import Session, col, select

from storefront.models import Event, ImageSource
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import rendition_name, rendition_widths
from storefront.services.media.uploads import UPLOADS_URL
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.job_leases import JobLeases, one_at_a_time

logger = logging.getLogger(__name__)

#: The folder of the event photos (the one folder of uploads that forms write to).
EVENTS_FOLDER = "events"
#: An upload younger than this is never removed: its form may still be open in a tab.
GRACE = timedelta(days=7)
#: The job one process of the store runs at a time (services/platform/job_leases.py), and how often.
SWEEP_JOB = "upload-sweep"
SWEEP_EVERY_SECONDS = 6 * 3600.0


def used_upload_urls(session: Session) -> set[str]:
    """Every image address any event (shown or hidden) holds."""
    return {url for images_json in session.exec(select(Event.images_json)) for url in json.loads(images_json)}


def sweep_uploads(
    session_factory: Callable[[], Session],
    upload_dir: Path,
    media_dir: Path,
    *,
    folder: str = EVENTS_FOLDER,
    grace: timedelta = GRACE,
    now: datetime | None = None,
) -> list[str]:
    """Remove the folder's files older than `grace` that no event holds, with their image rows and
    the renditions no other image shares; the addresses removed."""
    directory = upload_dir / folder
    if not directory.is_dir():
        return []
    cutoff = (now or datetime.now(UTC)).timestamp() - grace.total_seconds()
    old = {f"{UPLOADS_URL}/{folder}/{path.name}": path for path in directory.iterdir()
           if path.is_file() and path.stat().st_mtime < cutoff}
    if not old:
        return []
    with session_factory() as session:
        used = used_upload_urls(session)
        orphans = {url: path for url, path in old.items() if url not in used}
        rows = session.exec(
            select(ImageSource).where(col(ImageSource.src_key).in_([src_key(url) for url in orphans]))
        ).all()
        digests = {row.digest: row.width for row in rows if row.digest}
        for row in rows:
            session.delete(row)
        session.flush()
        shared = set(session.exec(select(ImageSource.digest).where(col(ImageSource.digest).in_(list(digests)))).all())
        session.commit()
    for path in orphans.values():
        path.unlink(missing_ok=True)
    for digest, width in digests.items():
        if digest not in shared:
            for rendition in rendition_widths(width):
                (media_dir / rendition_name(digest, rendition)).unlink(missing_ok=True)
    if orphans:
        logger.info("Removed %d event photo(s) no event uses: %s", len(orphans), ", ".join(sorted(orphans)))
    return sorted(orphans)



def sweep_step(
    session_factory: Callable[[], Session], upload_dir: Path, media_dir: Path, leases: JobLeases
) -> Callable[[], float | None]:
    """One sweep, run only by the process holding the job; the wait before the next."""

    def step() -> float:
        sweep_uploads(session_factory, upload_dir, media_dir)
        return SWEEP_EVERY_SECONDS

    return one_at_a_time(
        leases, SWEEP_JOB, step, lease_seconds=2 * SWEEP_EVERY_SECONDS, idle_seconds=SWEEP_EVERY_SECONDS
    )


def start_upload_sweep(
    session_factory: Callable[[], Session], upload_dir: Path, media_dir: Path, leases: JobLeases
) -> Worker:
    """Sweep the event photos now and every SWEEP_EVERY_SECONDS, in one process of the store at a time."""
    return start_worker(SWEEP_JOB, sweep_step(session_factory, upload_dir, media_dir, leases))
