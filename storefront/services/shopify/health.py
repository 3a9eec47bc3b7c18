"""Whether the store platform answers, for the configuration banner and the store product page.

The store catalogue's `status()` asks Shopify every time (it is the configuration check), so the
pages read it through `StoreHealth`, which asks at most once per STATUS_TTL: a page view must not
cost the store a request each."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from storefront.services.shopify.catalogue import (
    STATUS_CONNECTED,
    STATUS_DEMO,
    STATUS_ERROR,
    StoreCatalogue,
    StoreStatus,
)

log = logging.getLogger(__name__)

#: How long a status is reused, in seconds.
STATUS_TTL = 60.0
#: A refresh closer than this to the last check answers the last check (Refresh Config is public).
MIN_REFRESH_INTERVAL = 10.0
UNREACHABLE = "Could not reach the store. Please try again later."

STATE_LABELS = {STATUS_CONNECTED: "Connected", STATUS_DEMO: "Demo", STATUS_ERROR: "Failed"}


def store_failed(status: StoreStatus) -> bool:
    """The spec's failed store-platform test: the store answered with an error (the demo never fails)."""
    return status.status == STATUS_ERROR


def store_state_label(status: StoreStatus) -> str:
    """What the banner's status block says of the store platform."""
    return STATE_LABELS.get(status.status, STATE_LABELS[STATUS_ERROR])


class StoreHealth:
    """The store catalogue's status, asked at most once per STATUS_TTL unless refreshed.

    Kept in process memory: a minute-old answer is all it holds, so each worker asking the store
    once a minute is the whole cost, and nothing has to agree across workers. While one check is
    under way every other caller gets the last answer (only the very first calls, with no answer
    yet, may each ask), so a burst of requests at the minute's turn still asks the store once."""

    def __init__(self, catalogue: StoreCatalogue, clock: Callable[[], float] = time.monotonic) -> None:
        self._catalogue, self._clock = catalogue, clock
        self._last: StoreStatus | None = None
        self._checked_at = 0.0
        self._checking = False

    def known(self) -> StoreStatus | None:
        """The last status asked, however old (None before the first check); asks nothing."""
        return self._last

    async def status(self, refresh: bool = False) -> StoreStatus:
        """The last status while it is fresh; `refresh` asks again unless the last check is under
        MIN_REFRESH_INTERVAL old."""
        if self._last is not None:
            age = self._clock() - self._checked_at
            if self._checking or age < (MIN_REFRESH_INTERVAL if refresh else STATUS_TTL):
                return self._last
        self._checking = True
        try:
            status = await self._catalogue.status()
        except Exception:  # status() should not raise; a health check reports, it does not crash
            log.exception("the store status check failed")
            status = StoreStatus(STATUS_ERROR, UNREACHABLE)
        finally:
            self._checking = False
        if store_failed(status) and (self._last is None or self._last.message != status.message):
            log.warning("The store platform is not usable: %s", status.message)
        self._last, self._checked_at = status, self._clock()
        return status
