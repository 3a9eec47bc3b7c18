"""The PrintProvider protocol shared by the demo provider and the real Printify HTTP client."""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

from storefront.services.printify.errors import ProviderError

#: Largest `limit` the live products endpoint accepts (contract §3).
MAX_PAGE_LIMIT = 50
#: Page size Printify uses when no `limit` is sent.
DEFAULT_PAGE_LIMIT = 10
#: Code of Printify's "Validation failed." error body (contract §9).
VALIDATION_FAILED_CODE = 8150
#: Code Printify answers while a product is locked by an unfinished publish (contract §9).
PRODUCT_LOCKED_CODE = 8252
PRODUCT_LOCKED = "Product is disabled for editing"
#: The publish.json body that publishes every part of a product (contract §4).
PUBLISH_EVERYTHING: dict[str, bool] = {
    "title": True,
    "description": True,
    "images": True,
    "variants": True,
    "tags": True,
    "keyFeatures": True,
    "shipping_template": True,
}


def validation_error(reason: str, message: str = "Validation failed.", status: int = 400) -> ProviderError:
    """A ProviderError shaped like Printify's 8150 validation body, with `reason` in `errors`."""
    body = {
        "status": "error",
        "code": VALIDATION_FAILED_CODE,
        "message": message,
        "errors": {"reason": reason, "code": VALIDATION_FAILED_CODE},
    }
    return ProviderError(message, status=status, code=VALIDATION_FAILED_CODE, details=body)


def product_locked_error() -> ProviderError:
    """The 400 Printify answers for an edit or publish of a product locked by a publish."""
    body = {
        "status": "error",
        "code": PRODUCT_LOCKED_CODE,
        "message": PRODUCT_LOCKED,
        "errors": {"reason": PRODUCT_LOCKED, "code": PRODUCT_LOCKED_CODE},
    }
    return ProviderError(PRODUCT_LOCKED, status=400, code=PRODUCT_LOCKED_CODE, details=body)


def _check_int(name: str, value: object) -> int:
    """The value as an int, or a 400 validation error naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation_error(f"{name}: The {name} must be an integer.", f"The {name} must be an integer.")
    return value


def paginate(items: list, page: int, limit: int) -> dict[str, Any]:
    """A Laravel-style pagination envelope (Printify's list format) for one page of `items`."""
    page = _check_int("page", page)
    limit = _check_int("limit", limit)
    if limit > MAX_PAGE_LIMIT:
        raise validation_error(
            f"limit: The limit may not be greater than {MAX_PAGE_LIMIT}.",
            f"The limit may not be greater than {MAX_PAGE_LIMIT}.",
        )
    if limit < 1:
        raise validation_error("limit: The limit must be at least 1.", "The limit must be at least 1.")
    if page < 1:
        raise validation_error("page: The page must be at least 1.", "The page must be at least 1.")
    total = len(items)
    last_page = max(1, math.ceil(total / limit))
    start = (page - 1) * limit
    data = list(items[start : start + limit])
    return {
        "current_page": page,
        "data": data,
        "first_page_url": "/?page=1",
        "from": start + 1 if data else None,
        "last_page": last_page,
        "last_page_url": f"/?page={last_page}",
        "next_page_url": f"/?page={page + 1}" if page < last_page else None,
        "path": "/",
        "per_page": limit,
        "prev_page_url": f"/?page={page - 1}" if page > 1 else None,
        "to": start + len(data) if data else None,
        "total": total,
    }


@runtime_checkable
class PrintProvider(Protocol):
    """What the store needs from Printify; every method returns Printify-shaped dicts."""

    def list_shops(self) -> list[dict]:
        """All shops of the account: [{id: int, title, sales_channel}]."""
        ...

    def list_products(self, shop_id: int, page: int = 1, limit: int = 50) -> dict:
        """One page of the shop's products in a Laravel pagination envelope; limit > 50 is a 400."""
        ...

    def get_product(self, shop_id: int, product_id: str) -> dict:
        """One product object; raises ProviderNotFound when it does not exist."""
        ...

    def catalog_variants(self, blueprint_id: int, print_provider_id: int) -> dict:
        """The catalogue variants of a blueprint at a print provider:
        {id, title, variants: [{id, title, options: {color, size}, placeholders}]}; ProviderNotFound
        when the provider does not print that blueprint."""
        ...

    def create_product(self, shop_id: int, body: dict) -> dict:
        """Create a product from a create body (contract §6); returns the full, unpublished product."""
        ...

    def upload_image(self, file_name: str, *, url: str | None = None, contents: str | None = None) -> dict:
        """Upload an image (a public URL or base64 `contents`) to the account's uploads: {id, file_name,
        width, height, ...}; its id goes in a create body's print_areas. One call makes one upload,
        even when an answer was lost and the request resent."""
        ...

    def update_product(self, shop_id: int, product_id: str, changes: dict) -> dict:
        """Change title, description, tags or variants (prices in cents); returns the full product.

        ProviderNotFound for an unknown product; a 400 with code 8252 while a publish locks it."""
        ...

    def publish_product(self, shop_id: int, product_id: str, body: dict | None = None) -> dict:
        """Start publishing (locks the product until publishing_succeeded/failed); returns {}."""
        ...

    def publishing_succeeded(self, shop_id: int, product_id: str, external: dict) -> dict:
        """The sales channel published the product ({id, handle}): unlocks it, now visible; {}."""
        ...

    def publishing_failed(self, shop_id: int, product_id: str, reason: str) -> dict:
        """The sales channel could not publish the product: unlocks it, unchanged; returns {}."""
        ...

    def unpublish_product(self, shop_id: int, product_id: str) -> dict:
        """Tell the provider the product was taken off the sales channel; returns {}."""
        ...

    def delete_product(self, shop_id: int, product_id: str) -> dict:
        """Delete the product at the provider; returns {}; ProviderNotFound when it is not there."""
        ...

    def create_order(self, shop_id: int, order: dict) -> dict:
        """Submit an order body (contract §7); returns only {"id": "<24-hex>"}."""
        ...

    def get_order(self, shop_id: int, order_id: str) -> dict:
        """One order object (contract §7); raises ProviderNotFound when it does not exist."""
        ...

    def find_order_by_external_id(self, shop_id: int, external_id: str) -> dict | None:
        """The recent order whose `metadata.shop_order_id` is `external_id`, or None.

        Printify does not promise to refuse a second order with the same external id, so a send
        whose outcome is unknown is looked up this way before it is repeated."""
        ...

    def send_to_production(self, shop_id: int, order_id: str) -> dict:
        """Approve an on-hold order for printing; returns the order. A 400 with code 8502 while the
        order is still pending (cost calculation)."""
        ...

    def cancel_order(self, shop_id: int, order_id: str) -> dict:
        """Cancel an order that is not in production yet (on-hold, payment-not-received); returns
        the order. A 400 (code 8502) once it is being printed."""
        ...


def product_page_url(product_id: str) -> str:
    """The provider's own page for a product (the 'View on Provider' button)."""
    return f"https://printify.com/app/editor/{product_id}"
