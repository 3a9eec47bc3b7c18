"""The body and answer of the Printify webhook route (storefront/api/webhooks.py)."""

from __future__ import annotations

from storefront.api.schemas import _Open


class WebhookAnswer(_Open):
    ok: bool
    result: str | None = None


WEBHOOK_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "A Printify webhook envelope, signed over its raw bytes (X-Pfy-Signature)",
                "properties": {
                    "id": {"type": "string"},
                    "type": {"type": "string", "description": "e.g. order:updated, product:publish:started"},
                    "created_at": {"type": "string"},
                    "resource": {"type": "object"},
                },
            }
        }
    },
}
