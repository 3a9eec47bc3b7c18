"""Answer models of the print-provider routes (storefront/api/provider.py)."""

from __future__ import annotations

from typing import Any

from storefront.api.schemas import _Open


class Shop(_Open):
    id: Any
    title: str | None = None
    sales_channel: str | None = None


class ProviderStatusAnswer(_Open):
    configured: bool
    hasApiKey: bool
    apiKeyLength: int
    timestamp: str


class RefreshAnswer(_Open):
    message: str
    isConfigured: bool
