"""Printify webhooks: POST /api/printify/webhooks (public, but only signed deliveries are applied).

Answers 200 {"ok": true, "result": ...} for a delivery taken (applied, ignored or a redelivery),
401 for a bad or missing signature, 400 for a body that is not a webhook envelope, and 503 when
applying must wait (the delivery is not recorded, so Printify's retry applies it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from storefront.api.schemas import errors
from storefront.api.webhooks_schemas import WEBHOOK_BODY, WebhookAnswer
from storefront.services.orders.provider_events import ProviderEvents

router = APIRouter(tags=["provider webhooks"])

WEBHOOK_PATH = "/api/printify/webhooks"
SIGNATURE_HEADER = "X-Pfy-Signature"


def provider_events(request: Request) -> ProviderEvents:
    """The webhook service on the app's database and provider, for our shop."""
    events: ProviderEvents = request.app.state.services.provider_events()
    return events


@router.post(
    WEBHOOK_PATH,
    response_model=WebhookAnswer,
    openapi_extra={"requestBody": WEBHOOK_BODY},
    responses=errors(
        400,
        401,
        503,
        d400="Invalid webhook payload",
        d401="Invalid webhook signature",
        d503="Applying must wait; the delivery is not recorded, so the provider's retry applies it",
    ),
)
async def receive_webhook(request: Request) -> dict[str, Any]:
    """One Printify delivery, verified on its raw bytes (X-Pfy-Signature) and applied once."""
    body = await request.body()
    outcome = await asyncio.to_thread(provider_events(request).receive, body, request.headers.get(SIGNATURE_HEADER))
    return {"ok": True, "result": outcome.value}
