"""The answer model of the Stripe webhook route (storefront/api/stripe_webhooks.py)."""

from __future__ import annotations

from storefront.api.schemas import _Open


class WebhookReceipt(_Open):
    received: bool
    result: str
