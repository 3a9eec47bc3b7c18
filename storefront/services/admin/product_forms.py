"""The admin's input rules and their messages: the create form, prices, ids, categories, titles, change bodies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from storefront.services.catalog.catalog import PRODUCT_NOT_FOUND
from storefront.services.collections import get_collection
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import parse_cents

# --------------------------------------------------------------------------- the spec's texts

INVALID_PRICE = "Invalid price value"
TITLE_TOO_SHORT = "Title must be at least 3 characters"
DESCRIPTION_TOO_SHORT = "Description must be at least 10 characters"

# --------------------------------------------------------------------------- our own texts

TITLE_REQUIRED = "Title is required"
TITLE_TOO_LONG = "Title must be at most 255 characters"
DESCRIPTION_NOT_TEXT = "Description must be text"
SELECT_PRODUCT_TYPE = "Please select a product type"
SELECT_PRINT_PROVIDER = "Please select a print provider"
UNKNOWN_CATEGORY = "Unknown category"
INVALID_SHOP = "Please select a shop"
INVALID_CHANGES = "Send title, description, tags or variants to change"
INVALID_TAGS = "Tags must be a list of text"
INVALID_VARIANTS = "Variants must be a list of {id, price} with whole-cent prices"

# --------------------------------------------------------------------------- constants

#: The create form's product types (blueprint id: name) and print providers (id: name).
PRODUCT_TYPES: dict[int, str] = {
    384: "Unisex Premium T-Shirt",
    386: "Women's Premium T-Shirt",
    387: "Men's Premium T-Shirt",
    388: "Unisex Hoodie",
    400: "Unisex Crewneck Sweatshirt",
}
PRINT_PROVIDERS: dict[int, str] = {1: "custom products provider", 2: "ArtsAdd", 3: "T-Pop", 29: "SwiftPOD"}
DEFAULT_CREATE_PRICE = "29.99"
MIN_TITLE_CHARS = 3
MAX_TITLE_CHARS = 255  # the cache's column
MIN_DESCRIPTION_CHARS = 10
#: Larger prices are typing mistakes (and would overflow the cache's integer column).
MAX_PRICE_CENTS = 99_999_99
_EDITABLE_FIELDS = frozenset({"title", "description", "tags", "variants"})


@dataclass(frozen=True, slots=True)
class ProductForm:
    """The create-product form as typed: values are checked by create_product."""

    title: str
    description: str
    blueprint_id: object
    print_provider_id: object
    price: object = DEFAULT_CREATE_PRICE
    #: The artwork: an image data URL (or its bytes), or the id of one uploaded to the provider before.
    design: object = None
    design_upload_id: object = None
    #: {position, x, y, scale, angle}; front, centred, as wide as the print area when not sent.
    placement: object = None
    #: The colours and sizes to sell (names from the catalogue); every one when not sent.
    colors: object = None
    sizes: object = None
    #: Size -> dollars for a size not priced by the upcharge rule.
    size_prices: object = None

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> ProductForm:
        """The form from the spec's JSON (blueprintId or blueprint_id, and so on); price defaults to 29.99."""
        price = payload.get("price")
        return cls(
            title=payload.get("title") or "",
            description=payload.get("description") or "",
            blueprint_id=payload.get("blueprintId", payload.get("blueprint_id")),
            print_provider_id=payload.get("printProviderId", payload.get("print_provider_id")),
            price=DEFAULT_CREATE_PRICE if price is None else price,
            design=payload.get("design"),
            design_upload_id=payload.get("designUploadId", payload.get("design_upload_id")),
            placement=payload.get("placement"),
            colors=payload.get("colors"),
            sizes=payload.get("sizes"),
            size_prices=payload.get("sizePrices"),
        )


# --------------------------------------------------------------------------- input rules


def parse_price(value: object) -> int:
    """A price in dollars as typed (number or numeric string) in cents; 'Invalid price value' unless
    a number from 0 to MAX_PRICE_CENTS."""
    cents = parse_cents(value)
    if cents is None or cents > MAX_PRICE_CENTS:
        raise ValidationError(INVALID_PRICE, {"price": INVALID_PRICE})
    return cents


def parse_shop_id(value: object) -> int:
    """A shop id from a form or request (an int or its digits)."""
    shop_id = whole_number(value)
    if shop_id is None:
        raise ValidationError(INVALID_SHOP, {"shopId": INVALID_SHOP})
    return shop_id


def category_key(value: object) -> str:
    """A collection key (any case) as stored; 'Unknown category' otherwise."""
    collection = get_collection(value.strip()) if isinstance(value, str) else None
    if collection is None:
        raise ValidationError(UNKNOWN_CATEGORY, {"category": UNKNOWN_CATEGORY})
    return collection.key


def choice(value: object, choices: Mapping[int, str]) -> int | None:
    """The id picked from a fixed list (an int or its digits), None when not in it."""
    picked = whole_number(value)
    return picked if picked in choices else None


def whole_number(value: object) -> int | None:
    """An int, or the digits of one; None for anything else."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def title_errors(title: object, minimum: int, too_short: str) -> str | None:
    text = title.strip() if isinstance(title, str) else ""
    if not text:
        return TITLE_REQUIRED if minimum <= 1 else too_short
    if len(text) < minimum:
        return too_short
    if len(text) > MAX_TITLE_CHARS:
        return TITLE_TOO_LONG
    return None


def raise_if(errors: dict[str, str]) -> None:
    """ValidationError with every field's message; the first is the headline."""
    if errors:
        raise ValidationError(next(iter(errors.values())), errors)


def parse_product_id(product_id: object) -> str:
    if not isinstance(product_id, str) or not product_id.strip():
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return product_id.strip()


def checked_changes(changes: object) -> dict[str, Any]:
    """A provider update body (title, description, tags, variants with prices in cents), checked."""
    if not isinstance(changes, Mapping) or not changes or not set(changes) <= _EDITABLE_FIELDS:
        raise ValidationError(INVALID_CHANGES)
    errors: dict[str, str] = {}
    if "title" in changes and (title_error := title_errors(changes["title"], 1, TITLE_REQUIRED)):
        errors["title"] = title_error
    if "description" in changes and not isinstance(changes["description"], str):
        errors["description"] = DESCRIPTION_NOT_TEXT
    tags = changes.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        errors["tags"] = INVALID_TAGS
    if "variants" in changes and not _valid_variant_changes(changes["variants"]):
        errors["variants"] = INVALID_VARIANTS
    raise_if(errors)
    checked = dict(changes)
    if "title" in checked:
        checked["title"] = checked["title"].strip()
    return checked


def _valid_variant_change(variant: object) -> bool:
    """{id, price?, is_enabled?}: an int id, a price in whole cents, a boolean flag."""

    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not isinstance(variant, dict) or not whole(variant.get("id")):
        return False
    price = variant.get("price", 0)
    return whole(price) and 0 <= price <= MAX_PRICE_CENTS and isinstance(variant.get("is_enabled", True), bool)


def _valid_variant_changes(variants: object) -> bool:
    return isinstance(variants, list) and all(_valid_variant_change(v) for v in variants)
