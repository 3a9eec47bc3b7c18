"""/metrics in Prometheus' text format (services/operations/metrics.py), for the store's monitoring
only: answered to a client address in METRICS_ALLOWED_NETWORKS or a request carrying
METRICS_TOKEN as a bearer token; anyone else gets 403 and learns nothing."""

from __future__ import annotations

import asyncio
import hmac
import ipaddress

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from storefront.config import Settings
from storefront.services.operations.metrics import CONTENT_TYPE_LATEST, render_metrics

router = APIRouter(tags=["operations"])

METRICS_PATH = "/metrics"
METRICS_REFUSED = "Metrics are answered to the store's monitoring only."


def metrics_allowed(settings: Settings, client: str | None, authorization: str | None) -> bool:
    """Whether a scrape from `client` with this Authorization header may read the metrics."""
    scheme, _, token = (authorization or "").partition(" ")
    if settings.metrics_token and scheme.lower() == "bearer":
        return hmac.compare_digest(token.strip().encode(), settings.metrics_token.encode())
    if not client or not settings.metrics_allowed_networks:
        return False
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    return any(
        address in ipaddress.ip_network(network, strict=False)
        for network in settings.metrics_allowed_networks.split(",")
    )


@router.get(METRICS_PATH, include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Every figure of the store, read now."""
    services = request.app.state.services
    client = request.client.host if request.client else None
    if not metrics_allowed(services.settings, client, request.headers.get("authorization")):
        return JSONResponse({"error": METRICS_REFUSED, "details": None}, status_code=403)
    body = await asyncio.to_thread(render_metrics, services.metrics)
    return Response(body, media_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
