"""Virtual try-on (spec section 7): POST /api/try-on.

The JSON body is read with a cap while it arrives (two photos of the largest size as base64 and
a little room), so an oversized request is refused with 413 before it is held whole; the engine
then runs in a worker thread. Anonymous, like the page, and throttled per client address since a
try-on costs a second of CPU; the page's uploads and try-ons count under the same key
(services/tryon/throttle.py). An item picture that is one of the store's own (an item's rendition
or the source it was prepared from) is fitted as the page fits that item (services/tryon/items.py).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storefront.api.bodies import BodyTooLarge, read_capped
from storefront.api.orders import client_address
from storefront.api.schemas import errors
from storefront.api.tryon_schemas import TRY_ON_BODY, TryOnAnswer
from storefront.services.platform.errors import ValidationError
from storefront.services.tryon import items, throttle
from storefront.services.tryon.data_urls import MAX_ENCODED_LENGTH
from storefront.services.tryon.engine import GARMENT_FIELD, PERSON_FIELD
from storefront.services.tryon.fitting import dress_data_urls

router = APIRouter(tags=["try-on"])

TRY_ON = "/api/try-on"
#: Two data URLs of the largest photo, their prefixes and the JSON around them.
MAX_BODY_BYTES = 2 * (MAX_ENCODED_LENGTH + 256) + 64 * 1024
BODY_TOO_LARGE = "The photos are too large: send images of up to 10 MB each."
INVALID_BODY = "Send a JSON object with userPhoto and selectedItem as image data URLs."


@router.post(
    TRY_ON,
    response_model=TryOnAnswer,
    openapi_extra={"requestBody": TRY_ON_BODY},
    responses=errors(413, 422, 429, 502, d502="The try-on engine failed"),
)
async def try_on(request: Request) -> Any:
    """{userPhoto, selectedItem} (image data URLs) -> {url}: the photo wearing the item, as a data
    URL. 413 over 10 MB, 422 for a photo with no person (or no visible shoulders), an item picture
    that shows no top, or an input that is no image, 429 when this address tries too often, 502
    when the engine failed."""
    services = request.app.state.services
    try:
        raw = await read_capped(request, MAX_BODY_BYTES)
    except BodyTooLarge:
        return JSONResponse({"error": BODY_TOO_LARGE, "details": {PERSON_FIELD: BODY_TOO_LARGE}}, status_code=413)
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise ValidationError(INVALID_BODY, {PERSON_FIELD: INVALID_BODY})
    await asyncio.to_thread(services.tryon_limiter.check, throttle.tryon_key(client_address(request)))

    def store_garment(picture: bytes) -> bytes | None:
        with services.session_factory() as session:
            return items.store_garment(session, picture, services.settings.upload_dir, services.settings.media_dir)

    url = await asyncio.to_thread(
        dress_data_urls, services.tryon_engine, payload.get(PERSON_FIELD), payload.get(GARMENT_FIELD), store_garment
    )
    return {"url": url}
