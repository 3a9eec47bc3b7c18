"""Request bodies read with a size cap while they arrive (Content-Length is never trusted)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import Request

#: The body cap of every API route but those that need more (their caps in storefront/api/app.py):
#: an order, an event or a product form is a few kilobytes.
MAX_API_BODY_BYTES = 1024 * 1024
API_BODY_TOO_LARGE = "The request body is too large: at most 1 MB."


class BodyTooLarge(Exception):
    """More than the route's limit arrived; the route answers 413."""


async def capped(stream: AsyncIterator[bytes], limit: int) -> AsyncIterator[bytes]:
    """The request body, stopped with BodyTooLarge once more than `limit` bytes arrived."""
    received = 0
    async for chunk in stream:
        received += len(chunk)
        if received > limit:
            raise BodyTooLarge
        yield chunk


async def read_capped(request: Request, limit: int) -> bytes:
    """The whole body, or BodyTooLarge once more than `limit` bytes arrived."""
    return b"".join([chunk async for chunk in capped(request.stream(), limit)])
