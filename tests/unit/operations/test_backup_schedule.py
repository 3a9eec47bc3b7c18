"""Scheduled backups (BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP) on SQLite and PostgreSQL: of two
processes one takes each backup, none is taken again within the interval, the next is taken once it
is due, only the newest BACKUP_KEEP are kept, and a failed backup lets the job go."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.services.operations.backup_schedule import BACKUP_JOB, RETRY_SECONDS, backup_step
from storefront.services.operations.backups import StoreFiles, archives_in
from storefront.services.platform.job_leases import JobLeases

EVERY = timedelta(hours=6)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 28, 3, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _store(engine: Engine, tmp_path: Path) -> StoreFiles:
    return StoreFiles(
        db_url=engine.url.render_as_string(hide_password=False), data_dir=tmp_path / "data",
        upload_dir=tmp_path / "data" / "uploads",
    )


def test_of_two_processes_one_takes_each_backup_and_the_newest_are_kept(engine: Engine, tmp_path: Path) -> None:
    clock, folder = Clock(), tmp_path / "backups"
    steps = [
        backup_step(
            _store(engine, tmp_path),
            folder,
            EVERY,
            2,
            JobLeases(lambda: Session(engine), holder=name, clock=clock),
            clock,
        )
        for name in ("worker-a", "worker-b")
    ]
    steps[0]()
    assert steps[1]() == pytest.approx(600.0)
    assert len(archives_in(folder)) == 1
    for _ in range(3):
        clock.now += EVERY + timedelta(seconds=1)
        steps[1]()
        steps[0]()
    assert len(archives_in(folder)) == 2  # four taken, one per interval; the newest two kept
    assert archives_in(folder)[-1].name.startswith(f"storefront-backup-{clock.now:%Y%m%dT%H%M%S}")


def test_a_failed_backup_lets_the_job_go_and_is_tried_again_later(engine: Engine, tmp_path: Path) -> None:
    clock = Clock()
    leases = JobLeases(lambda: Session(engine), holder="worker-a", clock=clock)
    missing = StoreFiles(db_url="sqlite:///" + str(tmp_path / "nowhere.db"), data_dir=tmp_path, upload_dir=tmp_path)
    assert backup_step(missing, tmp_path / "backups", EVERY, 2, leases, clock)() == RETRY_SECONDS
    assert leases.seconds_left(BACKUP_JOB) == 0
    assert archives_in(tmp_path / "backups") == []
