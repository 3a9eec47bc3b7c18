"""Images carried as data URLs: the two fields of `POST /api/try-on` and the image it answers."""

from __future__ import annotations

import base64
import binascii
import re

from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ValidationError
from storefront.services.tryon.engine import GARMENT_FIELD, PERSON_FIELD, InputTooLarge

#: `data:[<type>][;<parameter>...];base64,` (only base64 data URLs carry images).
_PREFIX = re.compile(r"^data:(?:[\w.+-]+/[\w.+-]+)?(?:;[\w.+-]+=[\w.+-]+)*;base64,", re.IGNORECASE)
#: The longest base64 text a file of MAX_IMAGE_BYTES can be (4 characters per 3 bytes).
MAX_ENCODED_LENGTH = -(-MAX_IMAGE_BYTES // 3) * 4
#: What each field is called in its messages.
LABELS = {PERSON_FIELD: "The photo", GARMENT_FIELD: "The item image"}
_MIME_BY_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
)


def decode_data_url(value: object, field: str) -> bytes:
    """The bytes of a base64 image data URL; ValidationError (422) when it is missing or not one,
    InputTooLarge (413) when it holds more than MAX_IMAGE_BYTES (refused before decoding)."""
    label = LABELS.get(field, field)
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{label} is required.", {field: f"{label} is required."})
    prefix = _PREFIX.match(value[:256])
    if prefix is None:
        message = f"{label} must be an image data URL (data:image/...;base64,...)."
        raise ValidationError(message, {field: message})
    payload = value[prefix.end():]
    if len(payload) > MAX_ENCODED_LENGTH + 4:
        raise InputTooLarge(_too_large(label), field)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        message = f"{label} is not valid base64 data."
        raise ValidationError(message, {field: message}) from None
    if len(data) > MAX_IMAGE_BYTES:
        raise InputTooLarge(_too_large(label), field)
    return data


def _too_large(label: str) -> str:
    return f"{label} is larger than 10 MB. Use a smaller one."


def image_data_url(data: bytes) -> str:
    """PNG, JPEG, GIF or WebP bytes as a data URL (the type read from the bytes, not assumed)."""
    mime = next((mime for magic, mime in _MIME_BY_MAGIC if data.startswith(magic)), "")
    if not mime:
        mime = "image/webp" if data[:4] == b"RIFF" and data[8:12] == b"WEBP" else "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
