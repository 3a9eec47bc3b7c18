"""Print provider routes (spec section 7): shops, configuration status, refresh.

None of them lets an anonymous caller spend the provider's request budget: the shops and the
status come from the cached check, and a forced re-check is throttled per address (an admin
session re-checks at once)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse

from storefront.api.orders import client_address
from storefront.api.provider_schemas import ProviderStatusAnswer, RefreshAnswer, Shop
from storefront.api.schemas import ProviderErrorBody, errors
from storefront.services.printify.provider_status import ProviderHealth, refresh_message

router = APIRouter()


def _health(request: Request) -> ProviderHealth:
    return request.app.state.services.provider_health


@router.get(
    "/api/printify/shops",
    response_model=list[Shop],
    responses=errors(404, 502, model=ProviderErrorBody, d502="The provider could not be reached or refused the key"),
)
async def list_shops(request: Request) -> Any:
    """The provider's shops ([{id, title, sales_channel}]) from the cached check; its failure as an error."""
    return (await asyncio.to_thread(_health(request).status)).shop_list()


@router.get("/api/printify/status", response_model=ProviderStatusAnswer)
async def status(request: Request) -> dict[str, object]:
    """configured, hasApiKey, apiKeyLength, timestamp (never the key itself)."""
    return (await asyncio.to_thread(_health(request).status)).as_response()


@router.post("/api/printify/refresh-config", response_model=RefreshAnswer, responses=errors(401, 429))
async def refresh_config(
    request: Request, admin_token: str | None = Header(None, alias="x-admin-token")
) -> JSONResponse:
    """Check the provider again now; message and isConfigured."""
    services = request.app.state.services
    if admin_token:
        services.auth.verify(admin_token)  # 401 for a wrong or expired session
    else:
        await asyncio.to_thread(services.refresh_limiter.check, f"refresh:{client_address(request)}")
    checked = await asyncio.to_thread(lambda: _health(request).status(refresh=True, force=bool(admin_token)))
    return JSONResponse({"message": refresh_message(checked), "isConfigured": checked.configured})
