"""Scheduled backups inside the store (BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP): every process
asks, the one holding the job's lease takes the backup, and a backup finished by any process within
the interval is not taken again. A long backup keeps its lease alive from a heartbeat thread."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from storefront.models import utcnow
from storefront.services.operations.backups import StoreFiles, create_backup, prune
from storefront.services.platform.background import Step, Worker, beating, start_worker
from storefront.services.platform.job_leases import JobLeases

logger = logging.getLogger(__name__)

BACKUP_JOB = "backups"
#: The lease while a backup runs, renewed every HEARTBEAT_SECONDS: a process that dies mid-backup
#: hands the job over within this time.
LEASE_SECONDS = 300.0
HEARTBEAT_SECONDS = 60.0
#: The longest wait between two looks at the schedule (another process may have taken over).
LOOK_SECONDS = 600.0
#: After a failed backup, the next try comes this much later (the log says why it failed).
RETRY_SECONDS = 900.0


def backup_step(
    store: StoreFiles,
    directory: Path,
    every: timedelta,
    keep: int,
    leases: JobLeases,
    clock: Callable[[], datetime] = utcnow,
) -> Step:
    """One look at the schedule: take a backup when one is due and this process gets the job."""

    def step() -> float:
        now = clock()
        lease = leases.lease(BACKUP_JOB)
        if lease is not None and lease.finished_at is not None and lease.finished_at > now - every:
            return min(LOOK_SECONDS, (lease.finished_at + every - now).total_seconds())
        if not leases.claim(BACKUP_JOB, LEASE_SECONDS, unless_finished_since=now - every):
            return min(LOOK_SECONDS, LEASE_SECONDS)
        try:
            with beating(BACKUP_JOB, lambda: leases.claim(BACKUP_JOB, LEASE_SECONDS), HEARTBEAT_SECONDS):
                archive = create_backup(store, directory, now=now)
                removed = prune(directory, keep)
        except Exception:  # logged; tried again later, by any process
            logger.exception(
                "Scheduled backup into %s failed; trying again in %d minutes", directory, RETRY_SECONDS // 60
            )
            leases.release(BACKUP_JOB)
            return RETRY_SECONDS
        leases.finish(BACKUP_JOB)
        logger.info("Scheduled backup written: %s (%d older removed)", archive, len(removed))
        return min(LOOK_SECONDS, every.total_seconds())

    return step


def start_scheduled_backups(
    store: StoreFiles, directory: Path, every: timedelta, keep: int, leases: JobLeases
) -> Worker:
    """Take a backup every `every` (the first once none was finished within it), in one process at a time."""
    return start_worker(BACKUP_JOB, backup_step(store, directory, every, keep, leases))
