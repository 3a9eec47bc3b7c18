"""Request bodies read with a size cap while they arrive (Content-Length is never trusted)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import Request


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
