"""How often one client address may try on: the page's photo uploads and try-ons and
`POST /api/try-on` count under the same key, kept in the database so it holds across workers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlmodel import Session

from storefront.models import utcnow
from storefront.services.platform.rate_limit import RateLimiter

TOO_MANY_TRY_ONS = "Too many try-ons from your address. Please wait a minute and try again."
#: A try-on costs about a second of CPU and a photo decode: this many per client address and minute.
TRY_ONS_PER_MINUTE = 20
TRYON_KEY_PREFIX = "tryon:"


def tryon_limiter(session_factory: Callable[[], Session], clock: Callable[[], datetime] = utcnow) -> RateLimiter:
    """Try-ons (and try-on photo uploads) per client address and minute."""
    return RateLimiter(
        session_factory, limit=TRY_ONS_PER_MINUTE, window_seconds=60, message=TOO_MANY_TRY_ONS, clock=clock
    )


def tryon_key(client_address: str) -> str:
    """The counter key of one client address; the page and the API count under the same key."""
    return f"{TRYON_KEY_PREFIX}{client_address or 'unknown'}"


def spent(limiter: RateLimiter, client_address: str) -> bool:
    """Whether the client address has no try-on left in this minute (counts nothing)."""
    return limiter.count(tryon_key(client_address)) >= limiter.limit
