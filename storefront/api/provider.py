"""Print provider routes (spec section 7): shops, configuration status, refresh."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storefront.services.provider_status import ProviderHealth, refresh_message

router = APIRouter()


def _health(request: Request) -> ProviderHealth:
    return request.app.state.services.provider_health


@router.get("/api/printify/shops")
async def list_shops(request: Request) -> Any:
    """The provider's shops ([{id, title, sales_channel}]); the first is the one the store uses."""
    return await asyncio.to_thread(request.app.state.services.provider.list_shops)


@router.get("/api/printify/status")
async def status(request: Request) -> dict[str, object]:
    """configured, hasApiKey, apiKeyLength, timestamp (never the key itself)."""
    return (await asyncio.to_thread(_health(request).status)).as_response()


@router.post("/api/printify/refresh-config")
async def refresh_config(request: Request) -> JSONResponse:
    """Check the provider again now; message and isConfigured."""
    checked = await asyncio.to_thread(_health(request).status, True)
    return JSONResponse({"message": refresh_message(checked), "isConfigured": checked.configured})
