"""Keeping the storefront's catalogue cache in step with the store's Printify shop."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlmodel import Session, col, select

from storefront.models import CatalogProduct
from storefront.services.catalog.sync import ProgressCallback, SyncResult, remove_products, sync_shop
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.job_leases import JobLeases
from storefront.services.printify.provider import PrintProvider

logger = logging.getLogger(__name__)

#: Waits between attempts of a start-up sync that failed: 1 minute doubling to 30 minutes.
FIRST_RETRY_SECONDS = 60.0
MAX_RETRY_SECONDS = 1800.0
#: The start-up sync's job: one process of the store runs it, the others take it as done.
SYNC_JOB = "catalogue-sync"
#: How long a process holds the sync (longer than a sync; a failed one is retried within it at first).
SYNC_LEASE_SECONDS = 900.0
#: How often a process waiting for another's sync looks whether it is done (one small query).
WAIT_FOR_HOLDER_SECONDS = 5.0


def sync_store_catalogue(
    session_factory: Callable[[], Session],
    provider: PrintProvider,
    shop_id: int,
    progress: ProgressCallback | None = None,
) -> SyncResult:
    """Copy every product of the store's shop into the cache and drop every other cached product.

    Products cached from another shop (the demo's, or a shop the store no longer sells from)
    could not be ordered: the provider only ships the store shop's products."""
    with session_factory() as session:
        result = sync_shop(session, provider, shop_id, progress)
        strangers = session.exec(select(CatalogProduct.id).where(col(CatalogProduct.shop_id) != shop_id)).all()
        removed = remove_products(session, strangers)
        session.commit()
    return SyncResult(synced=result.synced, removed=result.removed + removed)


def start_catalogue_sync(
    session_factory: Callable[[], Session],
    provider: PrintProvider,
    shop_id: Callable[[], int],
    leases: JobLeases | None = None,
) -> Worker:
    """Sync the store's catalogue in the background now, retrying with backoff until it succeeds once.

    With `leases` (several processes serving one store), one process syncs; the others wait while
    it holds the job and stop once it has finished, taking the job over if its holder is gone."""
    wait = FIRST_RETRY_SECONDS
    started = leases.clock() if leases is not None else None

    def step() -> float | None:
        nonlocal wait
        if leases is not None and started is not None:
            lease = leases.lease(SYNC_JOB)
            # Finished since this process started: the sync this start asked for is done.
            if lease is not None and lease.finished_at is not None and lease.finished_at >= started:
                logger.info("Catalogue synced by another process of the store (%s)", lease.holder)
                return None
            if not leases.claim(SYNC_JOB, SYNC_LEASE_SECONDS, unless_finished_since=started):
                return WAIT_FOR_HOLDER_SECONDS  # then look again: done by then, or its holder gone
        try:
            result = sync_store_catalogue(session_factory, provider, shop_id())
        except Exception as exc:  # noqa: BLE001 - logged and retried; the cached catalogue stays served
            logger.warning("Catalogue sync failed, next try in %.0f s: %s", wait, exc)
            current, wait = wait, min(wait * 2, MAX_RETRY_SECONDS)
            return current
        if leases is not None:
            leases.finish(SYNC_JOB)
        logger.info("Catalogue synced: %d products, %d removed", result.synced, result.removed)
        return None

    return start_worker("catalogue-sync", step)
