"""/health for load balancers and monitors: 200 with the checks while this process reaches its
database (and Redis when configured), 503 naming what failed (services/operations/health.py)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storefront.services.operations.health import HealthReport

router = APIRouter(tags=["operations"])

HEALTH_PATH = "/health"
#: A check that takes longer than this has failed (a database that does not answer is down for shoppers too).
HEALTH_TIMEOUT_SECONDS = 5.0


@router.api_route(HEALTH_PATH, methods=["GET", "HEAD"], include_in_schema=False)
async def health(request: Request) -> JSONResponse:
    """The checks as JSON: 200 when all pass, 503 with `failed` naming the ones that did not."""
    checks = request.app.state.services.health
    try:
        report = await asyncio.wait_for(asyncio.to_thread(checks.run), HEALTH_TIMEOUT_SECONDS)
    except TimeoutError:
        report = HealthReport({"database": {"ok": False, "error": f"no answer in {HEALTH_TIMEOUT_SECONDS:g} s"}})
    return JSONResponse(
        report.as_json(), status_code=200 if report.ok else 503, headers={"Cache-Control": "no-store"}
    )
