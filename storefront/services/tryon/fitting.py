"""Trying a garment on: the shopper's photo checked and made ready, the engine run, the result
handed back as a data URL. Shared by the try-on page and `POST /api/try-on`.

Photos stay in memory: nothing here writes them to disk or the database, and the result goes back
to the shopper inside its answer (a data URL), so the server keeps nothing once it has answered.
Synchronous (CPU or network work): call from a worker thread.
"""

from __future__ import annotations

import io
import logging
import os
import threading
from collections.abc import Callable

from PIL import Image

from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.metrics import TRYONS
from storefront.services.tryon.data_urls import decode_data_url, image_data_url
from storefront.services.tryon.engine import (
    GARMENT_FIELD,
    PERSON_FIELD,
    EngineFailed,
    InputTooLarge,
    TryOnEngine,
    decode_photo,
)

logger = logging.getLogger(__name__)

#: Logged when a try-on fails (spec: 'Failed to process images' is logged); the shopper sees the error's message.
FAILED_TO_PROCESS = "Failed to process images"
#: A photo kept for the page is scaled to this long side at most (engines work at about 1024 px).
PHOTO_LONG_SIDE = 1024
_JPEG_QUALITY = 90
#: Try-ons running at once in this process (each keeps a core busy for about a second and holds
#: a few photos in memory); the others wait their turn.
_RUNNING = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))


def prepare_photo(data: bytes) -> bytes:
    """The shopper's photo checked like any upload and made ready to keep for this visit: upright,
    at most PHOTO_LONG_SIDE pixels long, JPEG, without its metadata (no location or camera data).
    InputTooLarge over 10 MB; UnsupportedImage (with the upload check's reason) when it is no image."""
    if len(data) > MAX_IMAGE_BYTES:
        raise InputTooLarge()
    person = decode_photo(data)
    person.thumbnail((PHOTO_LONG_SIDE, PHOTO_LONG_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    _flatten(person).save(out, "JPEG", quality=_JPEG_QUALITY)
    return out.getvalue()


def _flatten(image: Image.Image) -> Image.Image:
    """RGB, with any transparent parts on white (as a browser shows them on this page)."""
    if image.mode != "RGBA":
        return image.convert("RGB")
    flat = Image.new("RGB", image.size, (255, 255, 255))
    flat.paste(image, mask=image.getchannel("A"))
    return flat


def dress(engine: TryOnEngine, photo: bytes, garment: bytes) -> str:
    """The photo wearing the garment, as a data URL. The engine's own errors pass through (their
    messages are for the shopper); anything else is logged and becomes EngineFailed."""
    try:
        with _RUNNING:
            result = engine.generate(photo, garment)
        answer = image_data_url(_compact(result))
    except ServiceError as refused:
        TRYONS.labels("refused").inc()
        logger.info("%s: %s", FAILED_TO_PROCESS, refused.message)
        raise
    except Exception:
        TRYONS.labels("failed").inc()
        logger.exception(FAILED_TO_PROCESS)
        raise EngineFailed() from None
    TRYONS.labels("ok").inc()
    return answer


def _compact(result: bytes) -> bytes:
    """An opaque PNG result as JPEG (a fifth of the size to send and download); anything else as is."""
    if not result.startswith(b"\x89PNG"):
        return result
    with Image.open(io.BytesIO(result)) as image:
        if image.mode not in ("RGB", "L"):
            return result
        out = io.BytesIO()
        image.convert("RGB").save(out, "JPEG", quality=_JPEG_QUALITY)
    return out.getvalue()


def dress_data_urls(
    engine: TryOnEngine,
    user_photo: object,
    selected_item: object,
    store_garment: Callable[[bytes], bytes | None] = lambda picture: None,
) -> str:
    """`POST /api/try-on`: both images as data URLs in, the result as a data URL out. An item
    picture `store_garment` knows (one of the store's own, `items.store_garment`) is replaced by
    the garment the page would use, so both give the same result."""
    photo = decode_data_url(user_photo, PERSON_FIELD)
    garment = decode_data_url(selected_item, GARMENT_FIELD)
    return dress(engine, photo, store_garment(garment) or garment)
