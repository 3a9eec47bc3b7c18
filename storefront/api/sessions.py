"""The database session of a request, and the routes that give its connection back as soon as
the endpoint is done.

FastAPI runs a sync endpoint in its thread pool, then validates the answer and closes a `yield`
dependency's session in that same pool. Under load every thread may be waiting for a pool
connection that only those later steps would free, so each waits out the pool's timeout. A route
of `SessionRoute` closes the request's session when the endpoint returns (the answer is plain data
by then), so its connection is back in the pool before the request needs another thread.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute
from sqlmodel import Session


def get_session(request: Request) -> Iterator[Session]:
    """A session on the app's database for one request."""
    with request.app.state.services.session_factory() as session:
        yield session


def _closing_sessions(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """A sync endpoint that closes the sessions it was given when it returns or raises."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint  # runs on the event loop: no thread to wait for

    @functools.wraps(endpoint)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return endpoint(*args, **kwargs)
        finally:
            for value in kwargs.values():
                if isinstance(value, Session):
                    value.close()

    return call


class SessionRoute(APIRoute):
    """An API route whose request session gives its connection back when the endpoint returns."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, _closing_sessions(endpoint), **kwargs)
