"""The body and answer of the try-on route (storefront/api/tryon.py)."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import _Open


class TryOnAnswer(_Open):
    url: str = Field(description="The photo wearing the item, as an image data URL")


TRY_ON_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "userPhoto": {"type": "string", "description": "The shopper's photo as an image data URL"},
                    "selectedItem": {"type": "string", "description": "The item's image as an image data URL"},
                },
                "required": ["userPhoto", "selectedItem"],
            }
        }
    },
}
