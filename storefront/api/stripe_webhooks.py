"""Stripe webhooks: POST /api/stripe/webhooks (public; only events Stripe signed are applied).

Answers 200 once an event is applied, ignored or recognised as a redelivery; 400 for a bad or
missing signature, a timestamp older than 300 s or a body that is not an event (logged); 404
when the store does not take payments through Stripe; 503 when applying must wait (nothing is
recorded, so Stripe's retry applies it).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storefront.api.bodies import BodyTooLarge, read_capped
from storefront.api.schemas import errors
from storefront.api.stripe_webhooks_schemas import WebhookReceipt
from storefront.services.platform.errors import NotFoundError, ServiceError

router = APIRouter(tags=["payment webhooks"])
logger = logging.getLogger(__name__)

WEBHOOK_PATH = "/api/stripe/webhooks"
SIGNATURE_HEADER = "Stripe-Signature"
NOT_STRIPE = "Payments are not taken through Stripe"
BAD_SIGNATURE = "Invalid Stripe webhook"
#: Stripe's events are a few kilobytes; anything near this is not one of them.
MAX_BODY_BYTES = 512 * 1024
BODY_TOO_LARGE = "The webhook body is too large"
STRIPE_EVENT_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "A Stripe event, signed over its raw bytes (Stripe-Signature: t=...,v1=...)",
                "properties": {"id": {"type": "string"}, "type": {"type": "string"}, "data": {"type": "object"}},
            }
        }
    },
}


@router.post(
    WEBHOOK_PATH,
    response_model=WebhookReceipt,
    openapi_extra={"requestBody": STRIPE_EVENT_BODY},
    responses=errors(
        400, 404, 413, 503, d400=BAD_SIGNATURE, d404=NOT_STRIPE, d503="Applying must wait; Stripe retries"
    ),
)
async def receive_stripe_event(request: Request) -> Any:
    """One Stripe event, verified on the raw body's bytes with the SDK's verifier, applied once."""
    intents = request.app.state.services.intents
    if intents is None:
        raise NotFoundError(NOT_STRIPE)
    try:
        body = await read_capped(request, MAX_BODY_BYTES)
    except BodyTooLarge:
        return JSONResponse({"error": BODY_TOO_LARGE, "details": None}, status_code=413)
    try:
        outcome = await asyncio.to_thread(intents.receive, body, request.headers.get(SIGNATURE_HEADER))
    except ValueError as exc:
        client = request.client.host if request.client else "unknown"
        logger.warning("Refused a Stripe webhook from %s: %s", client, exc)
        raise ServiceError(BAD_SIGNATURE) from None  # 400
    return {"received": True, "result": outcome.value}
