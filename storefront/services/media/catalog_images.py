"""Renditions for every cached product image, each source address fetched and prepared once.

A catalogue sync stores image addresses only (`catalog_image.src`). The preparer turns each address
not yet prepared into renditions (services/media/images.py), remembers the result in `image_source`, and
copies digest and size onto every `catalog_image` row of that address. It never holds a database
session while it fetches or encodes. A sync that meets an address seen before copies the known
renditions at once (`apply_known_renditions`), so nothing is fetched twice.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from storefront.models import CatalogImage, ImageSource, utcnow
from storefront.services.media.image_sources import ImageSourceLoader, ImageUnavailable
from storefront.services.media.images import ImageRejected, PreparedImage, prepare_image, renditions_exist

log = logging.getLogger(__name__)

#: A source that could not be read is tried again after this long, doubling up to the maximum.
RETRY_FIRST_SECONDS = 60.0
RETRY_MAX_SECONDS = 3600.0
#: A source that is not an image is tried again only this rarely (the provider may replace it).
REJECTED_RETRY_SECONDS = 86400.0
#: Sources prepared between two database writes.
BATCH_SIZE = 16
#: How often the background worker looks for new images when there is nothing to do.
IDLE_SECONDS = 30.0


def src_key(src: str) -> str:
    return hashlib.sha256(src.encode("utf-8")).hexdigest()


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time here is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def _prepared(source: ImageSource) -> PreparedImage | None:
    if not source.digest:
        return None
    return PreparedImage(digest=source.digest, width=source.width, height=source.height)


def known_renditions(session: Session, srcs: Iterable[str]) -> dict[str, PreparedImage]:
    """The prepared images among these addresses (one query)."""
    keys = {src_key(src): src for src in set(srcs)}
    if not keys:
        return {}
    rows = session.exec(select(ImageSource).where(col(ImageSource.src_key).in_(list(keys)))).all()
    return {row.src: prepared for row in rows if (prepared := _prepared(row)) is not None}


def apply_known_renditions(session: Session, images: Sequence[CatalogImage]) -> None:
    """Give these (new) image rows the renditions already prepared for their addresses."""
    known = known_renditions(session, (image.src for image in images))
    for image in images:
        prepared = known.get(image.src)
        if prepared is not None:
            image.digest, image.width, image.height = prepared.digest, prepared.width, prepared.height


@dataclass(frozen=True, slots=True)
class PrepareReport:
    """What one pass did: sources prepared, sources that failed, sources still waiting."""

    prepared: int = 0
    failed: int = 0
    waiting: int = 0


class CatalogImagePreparer:
    """Prepares the renditions of catalogue images whose address has none yet."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        loader: ImageSourceLoader,
        media_dir: Path,
        *,
        clock: Callable[[], datetime] = utcnow,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self.session_factory = session_factory
        self.loader = loader
        self.media_dir = Path(media_dir)
        self.clock = clock
        self.batch_size = batch_size

    # ------------------------------------------------------------------ reading what is due

    def due_sources(self) -> tuple[list[str], int]:
        """Addresses to prepare now (those whose retry time has come) and how many wait for later."""
        now = self.clock()
        with self.session_factory() as session:
            srcs = list(
                session.exec(select(CatalogImage.src).where(CatalogImage.digest == "").distinct()).all()
            )
            keyed = {src_key(src): src for src in srcs}
            sources = {
                row.src_key: row
                for start in range(0, len(keyed), 500)
                for row in session.exec(
                    select(ImageSource).where(col(ImageSource.src_key).in_(list(keyed)[start : start + 500]))
                ).all()
            }
        due, waiting = [], 0
        for key, src in sorted(keyed.items(), key=lambda item: item[1]):
            source = sources.get(key)
            retry_at = _aware(source.retry_at) if source is not None else None
            if source is not None and not source.digest and retry_at is not None and retry_at > now:
                waiting += 1
            else:
                due.append(src)
        return due, waiting

    # ------------------------------------------------------------------ preparing

    def _prepare_one(self, src: str, known: ImageSource | None) -> tuple[PreparedImage | None, str]:
        """Renditions of one address (reusing a prepared source whose files exist) or the error."""
        if (
            known is not None
            and (prepared := _prepared(known)) is not None
            and renditions_exist(prepared, self.media_dir)
        ):
            return prepared, ""
        try:
            return prepare_image(self.loader.load(src), self.media_dir), ""
        except ImageRejected as exc:
            return None, f"rejected: {exc.message}"
        except ImageUnavailable as exc:
            return None, f"unavailable: {exc}"

    def _retry_at(self, attempts: int, error: str) -> datetime:
        if error.startswith("rejected"):
            return self.clock() + timedelta(seconds=REJECTED_RETRY_SECONDS)
        return self.clock() + timedelta(seconds=min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** max(attempts - 1, 0)))

    def _record(self, results: list[tuple[str, PreparedImage | None, str]]) -> None:
        """Write a batch's outcomes: the source rows and every catalogue image of each address."""
        with self.session_factory() as session:
            for src, prepared, error in results:
                source = session.get(ImageSource, src_key(src)) or ImageSource(src_key=src_key(src), src=src)
                if prepared is not None:
                    source.digest, source.width, source.height = prepared.digest, prepared.width, prepared.height
                    source.last_error, source.retry_at, source.prepared_at = "", None, self.clock()
                    session.exec(
                        update(CatalogImage)
                        .where(col(CatalogImage.src) == src)
                        .values(digest=prepared.digest, width=prepared.width, height=prepared.height)
                    )
                else:
                    source.attempts += 1
                    source.last_error = error
                    source.retry_at = self._retry_at(source.attempts, error)
                    log.warning("Image %s not prepared (%s); next try at %s", src, error, source.retry_at)
                session.add(source)
            try:
                session.commit()
            except IntegrityError:
                # Another worker recorded the same new source first; its result stands.
                session.rollback()

    def prepare_due(self, limit: int | None = None) -> PrepareReport:
        """Prepare every address that is due (at most `limit`), writing outcomes batch by batch."""
        due, waiting = self.due_sources()
        if limit is not None:
            waiting += max(len(due) - limit, 0)
            due = due[:limit]
        prepared = failed = 0
        for start in range(0, len(due), self.batch_size):
            batch = due[start : start + self.batch_size]
            with self.session_factory() as session:
                known = {
                    row.src: row
                    for row in session.exec(
                        select(ImageSource).where(col(ImageSource.src_key).in_([src_key(s) for s in batch]))
                    ).all()
                }
                for row in known.values():
                    session.expunge(row)
            results = [(src, *self._prepare_one(src, known.get(src))) for src in batch]
            self._record(results)
            prepared += sum(1 for _, done, _ in results if done is not None)
            failed += sum(1 for _, done, _ in results if done is None)
        return PrepareReport(prepared=prepared, failed=failed, waiting=waiting)

    def forget_missing_files(self) -> int:
        """Mark sources whose rendition files are gone (a new upload folder) as not prepared."""
        with self.session_factory() as session:
            lost = [
                row for row in session.exec(select(ImageSource).where(ImageSource.digest != "")).all()
                if not renditions_exist(PreparedImage(row.digest, row.width, row.height), self.media_dir)
            ]
            for row in lost:
                session.exec(update(CatalogImage).where(col(CatalogImage.digest) == row.digest).values(digest=""))
                row.digest, row.prepared_at = "", None
                session.add(row)
            session.commit()
        return len(lost)

    def step(self) -> float:
        """One pass of the background worker; the seconds until the next."""
        report = self.prepare_due(limit=self.batch_size * 4)
        if report.prepared or report.failed:
            log.info("Images prepared: %d, failed: %d, waiting: %d", report.prepared, report.failed, report.waiting)
        return 0.0 if report.prepared + report.failed >= self.batch_size * 4 else IDLE_SECONDS
