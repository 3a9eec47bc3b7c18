"""The body and answer of the image upload route (storefront/api/uploads.py)."""

from __future__ import annotations

from storefront.api.schemas import _Open


class UploadedFile(_Open):
    url: str


class UploadAnswer(_Open):
    files: list[UploadedFile]


UPLOAD_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "images": {
                        "type": "array",
                        "items": {"type": "string", "format": "binary"},
                        "maxItems": 10,
                        "description": "1 to 10 images (JPEG, PNG, GIF, WebP, HEIC), up to 10 MB each",
                    }
                },
                "required": ["images"],
            }
        }
    },
}
