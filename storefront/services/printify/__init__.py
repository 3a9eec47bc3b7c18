"""Printify access: the PrintProvider protocol, the in-memory demo provider (`demo.py`; its catalogue,
product bodies and orders in `demo_catalogue.py`, `demo_products.py`, `demo_orders.py`), provider
errors, and whether the provider answers (`provider_status.py`, for the configuration banner).

May use: platform, collections, media.
"""

from __future__ import annotations

from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID, demo_catalogue
from storefront.services.printify.errors import (
    ProviderError,
    ProviderNotFound,
    ProviderOutcomeUnknown,
    ProviderRateLimited,
    ProviderUnauthorized,
    ProviderUnavailable,
)
from storefront.services.printify.provider import MAX_PAGE_LIMIT, PrintProvider, paginate

__all__ = [
    "DEMO_SHOP_ID",
    "MAX_PAGE_LIMIT",
    "DemoPrintProvider",
    "PrintProvider",
    "ProviderError",
    "ProviderNotFound",
    "ProviderOutcomeUnknown",
    "ProviderRateLimited",
    "ProviderUnauthorized",
    "ProviderUnavailable",
    "demo_catalogue",
    "paginate",
]
