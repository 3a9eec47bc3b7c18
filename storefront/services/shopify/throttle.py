"""How often one client address may make the store catalogue ask Shopify: the API's routes and the
store product page count under the same key, in the database, so the limit holds across workers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlmodel import Session

from storefront.models import utcnow
from storefront.services.platform.rate_limit import RateLimiter

TOO_MANY_STORE_REQUESTS = "Too many store catalogue requests from your address. Please wait a minute and try again."
#: Store-catalogue requests per client address and minute: half of Shopify's standard budget
#: (2 requests a second), so no one address can spend it all on answers the caches do not hold.
STORE_REQUESTS_PER_MINUTE = 60


def store_limiter(session_factory: Callable[[], Session], clock: Callable[[], datetime] = utcnow) -> RateLimiter:
    """Store-catalogue requests per client address and minute."""
    return RateLimiter(
        session_factory, limit=STORE_REQUESTS_PER_MINUTE, window_seconds=60, message=TOO_MANY_STORE_REQUESTS,
        clock=clock,
    )


def store_key(client_address: str) -> str:
    """The counter key of one client address; the API and the pages count under the same key."""
    return f"shopify:{client_address or 'unknown'}"
