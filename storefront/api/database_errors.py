"""A database that cannot be reached (a lost connection, a full pool, a server restarting) answers
503 with a clear message instead of a bare 500; the work of the request was rolled back whole."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError, TimeoutError as PoolTimeoutError

logger = logging.getLogger(__name__)

DATABASE_UNAVAILABLE = "The store could not reach its database. Nothing was saved; please try again in a moment."
#: Seconds a client is asked to wait before trying again.
RETRY_AFTER_SECONDS = 5
#: Connection-level failures only: other database errors are bugs and stay 500s in the log.
UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeoutError)


async def database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    # The statement and its parameters are left out of the log: they may hold personal data.
    logger.error(
        "Database unavailable during %s %s: %s", request.method, request.url.path, type(exc.__cause__ or exc).__name__
    )
    return JSONResponse(
        {"error": DATABASE_UNAVAILABLE, "details": None},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def answer_database_outages(api: FastAPI) -> None:
    """Install the 503 answer for every connection-level database failure."""
    for error in UNAVAILABLE:
        api.add_exception_handler(error, database_unavailable)
