"""The demo provider's product bodies: create and update bodies checked like Printify, and the
product a create makes."""

from __future__ import annotations

import copy
from collections.abc import Collection
from datetime import datetime
from typing import Any

from storefront.services.printify.demo_catalogue import (
    CATALOGUE_BLUEPRINTS,
    CATALOGUE_PRINT_PROVIDERS,
    COLOUR_IDS,
    COLOURS,
    DEMO_SHOP_ID,
    DEMO_USER_ID,
    GARMENT_GRAMS,
    PLACEHOLDERS,
    SIZE_IDS,
    SIZES,
    CatalogueBlueprint,
    catalogue_variants,
    colour_slug,
    format_timestamp,
    mockup_image,
    options,
    product_flags,
    variant_cost,
)
from storefront.services.printify.provider import validation_error

#: A design on a mockup: (upload id, x, y, scale, angle).
DesignLayer = tuple[str, float, float, float, int]


def _mockup_label(title: str) -> str:
    """The letters drawn on a created product's mockups: the first word of its title."""
    words = title.split()
    return (words[0] if words else "").upper()[:6]


def _mockup_trim(colour: str) -> str:
    """A print colour that stands out on the garment colour."""
    return COLOURS["Black"] if colour == "White" else COLOURS["White"]


def _require_int(where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation_error(f"{where}: The {where} must be an integer.")
    return value


def _require_price(where: str, value: object) -> int:
    price = _require_int(where, value)
    if price < 0:
        raise validation_error(f"{where}: The {where} must be at least 0.")
    return price


def require_bool(where: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise validation_error(f"{where}: The {where} field must be true or false.")
    return value


def _require_title(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise validation_error("title: The title field is required.")
    return value


def _require_description(value: object) -> str:
    if not isinstance(value, str):
        raise validation_error("description: The description must be a string.")
    return value


def _require_tags(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise validation_error("tags: The tags must be a list of strings.")
    return list(value)


def _new_variants(body: dict, blueprint: CatalogueBlueprint, print_provider_id: int) -> list[dict[str, Any]]:
    """The variants of a create body as product variants, in catalogue order."""
    items = body.get("variants")
    if not isinstance(items, list) or not items:
        raise validation_error("variants: The variants field is required.")
    catalogue = {v["id"]: v for v in catalogue_variants(blueprint.id)}
    chosen: dict[int, tuple[int, bool]] = {}
    for i, item in enumerate(items):
        where = f"variants.{i}"
        if not isinstance(item, dict):
            raise validation_error(f"{where}: The variant must be an object.")
        variant_id = _require_int(f"{where}.id", item.get("id"))
        if variant_id not in catalogue or variant_id in chosen:
            raise validation_error(f"{where}.id: The selected {where}.id is invalid.")
        price = _require_price(f"{where}.price", item.get("price"))
        chosen[variant_id] = (price, require_bool(f"{where}.is_enabled", item.get("is_enabled", True)))
    if not any(enabled for _, enabled in chosen.values()):
        raise validation_error("variants: At least one variant must be enabled.")
    variants = []
    for variant_id, entry in catalogue.items():
        if variant_id not in chosen:
            continue
        price, enabled = chosen[variant_id]
        colour, size = entry["options"]["color"], entry["options"]["size"]
        variants.append(
            {
                "id": variant_id,
                "sku": "",  # filled in once the product id is known
                "cost": variant_cost(blueprint.id, print_provider_id, size),
                "price": price,
                "title": entry["title"],
                "grams": GARMENT_GRAMS[blueprint.kind] + 20 * SIZES.index(size),
                "is_enabled": enabled,
                "is_default": False,
                "is_available": True,
                "is_printify_express_eligible": False,
                "options": [COLOUR_IDS[colour], SIZE_IDS[size]],
            }
        )
    return variants


def created_product(
    product_id: str, body: dict, now: datetime, media_url: str, uploads: Collection[str] = ()
) -> tuple[dict[str, Any], dict[str, tuple[str, str, str, str, bool]], dict[str, DesignLayer]]:
    """A product made from a create body (contract §6), unpublished, plus its mockup renders and
    the design each mockup carries (`uploads`: the ids of the account's uploads)."""
    if not isinstance(body, dict):
        raise validation_error("The request body must be a JSON object.")
    title = _require_title(body.get("title"))
    description = _require_description(body.get("description", ""))
    blueprint_id = _require_int("blueprint_id", body.get("blueprint_id"))
    if blueprint_id not in CATALOGUE_BLUEPRINTS:
        raise validation_error("blueprint_id: The selected blueprint id is invalid.")
    print_provider_id = _require_int("print_provider_id", body.get("print_provider_id"))
    if print_provider_id not in CATALOGUE_PRINT_PROVIDERS:
        raise validation_error("print_provider_id: The selected print provider id is invalid.")
    tags = _require_tags(body.get("tags", []))
    blueprint = CATALOGUE_BLUEPRINTS[blueprint_id]
    variants = _new_variants(body, blueprint, print_provider_id)
    print_areas = _require_print_areas(body.get("print_areas"), {v["id"] for v in variants}, uploads)

    colour_of = {COLOUR_IDS[c]: c for c in COLOURS}
    size_of = {SIZE_IDS[s]: s for s in SIZES}
    colours = list(dict.fromkeys(colour_of[v["options"][0]] for v in variants))
    sizes = [size for size in SIZES if any(size_of[v["options"][1]] == size for v in variants)]
    for variant in variants:
        colour, size = colour_of[variant["options"][0]], size_of[variant["options"][1]]
        variant["sku"] = f"{product_id[:8].upper()}-{colour_slug(colour).upper()}-{size}"
    enabled = [v for v in variants if v["is_enabled"]]
    default = next((v for v in enabled if v["title"] == f"{colours[0]} / M"), enabled[0])
    default["is_default"] = True

    images: list[dict[str, Any]] = []
    renders: dict[str, tuple[str, str, str, str, bool]] = {}
    layers = _design_layers(print_areas)
    designs: dict[str, DesignLayer] = {}
    label = "" if layers else _mockup_label(title)
    for colour in colours:
        ids = [v["id"] for v in enabled if v["options"][0] == COLOUR_IDS[colour]]
        if not ids:
            continue
        views = ("front", "back") if not images else ("front",)
        for view in views:
            stem = f"{product_id}-{view}" if not images else f"{product_id}-{colour_slug(colour)}-{view}"
            file_name = f"{stem}.png"
            renders[file_name] = (blueprint.kind, COLOURS[colour], _mockup_trim(colour), label, view == "back")
            if view in layers:
                designs[file_name] = layers[view]
            images.append(mockup_image(f"{media_url}/{file_name}", ids, view, is_default=not images))
    stamp = format_timestamp(now)
    product = {
        "id": product_id,
        "title": title,
        "description": description,
        "safety_information": "",
        "tags": tags,
        "options": options(colours, sizes),
        "variants": variants,
        "images": images,
        "created_at": stamp,
        "updated_at": stamp,
        "visible": False,
        "is_locked": False,
        "is_published": False,
        "blueprint_id": blueprint_id,
        "user_id": DEMO_USER_ID,
        "shop_id": DEMO_SHOP_ID,
        "print_provider_id": print_provider_id,
        "print_areas": copy.deepcopy(print_areas),
        **product_flags(),
    }
    return product, renders, designs


def _require_number(where: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise validation_error(f"{where}: The {where} must be a number from {low:g} to {high:g}.")
    return float(value)


def _require_print_areas(value: object, variant_ids: set[int], uploads: Collection[str]) -> list[dict[str, Any]]:
    """The print areas of a create body, checked like Printify: a product is a design printed on a
    blank, so at least one area with an image from the account's uploads is required."""
    if not isinstance(value, list) or not value:
        raise validation_error("print_areas: The print areas field is required.")
    positions = {placeholder["position"] for placeholder in PLACEHOLDERS}
    for i, area in enumerate(value):
        where = f"print_areas.{i}"
        if not isinstance(area, dict):
            raise validation_error(f"{where}: The print area must be an object.")
        ids = area.get("variant_ids")
        if not isinstance(ids, list) or not ids:
            raise validation_error(f"{where}.variant_ids: The variant ids field is required.")
        for j, variant_id in enumerate(ids):
            if _require_int(f"{where}.variant_ids.{j}", variant_id) not in variant_ids:
                raise validation_error(f"{where}.variant_ids.{j}: The selected variant is not in the product.")
        placeholders = area.get("placeholders")
        if not isinstance(placeholders, list) or not placeholders:
            raise validation_error(f"{where}.placeholders: The placeholders field is required.")
        for j, placeholder in enumerate(placeholders):
            at = f"{where}.placeholders.{j}"
            if not isinstance(placeholder, dict) or placeholder.get("position") not in positions:
                raise validation_error(f"{at}.position: The selected position is invalid.")
            images = placeholder.get("images")
            if not isinstance(images, list) or not images:
                raise validation_error(f"{at}.images: The images field is required.")
            for k, image in enumerate(images):
                spot = f"{at}.images.{k}"
                if not isinstance(image, dict) or image.get("id") not in uploads:
                    raise validation_error(f"{spot}.id: The selected image id is invalid.")
                _require_number(f"{spot}.x", image.get("x"), -1, 2)
                _require_number(f"{spot}.y", image.get("y"), -1, 2)
                _require_number(f"{spot}.scale", image.get("scale"), 0.001, 10)
                _require_int(f"{spot}.angle", image.get("angle"))
    return copy.deepcopy(value)


def _design_layers(print_areas: list[dict[str, Any]]) -> dict[str, DesignLayer]:
    """The first image placed on each side: (upload id, x, y, scale, angle) by position."""
    layers: dict[str, DesignLayer] = {}
    for area in print_areas:
        for placeholder in area["placeholders"]:
            image = placeholder["images"][0]
            layers.setdefault(
                placeholder["position"],
                (image["id"], float(image["x"]), float(image["y"]), float(image["scale"]), int(image["angle"])),
            )
    return layers


def validated_changes(product: dict[str, Any], changes: object) -> dict[str, Any]:
    """The fields of an update body the demo applies, checked like Printify checks them."""
    if not isinstance(changes, dict):
        raise validation_error("The request body must be a JSON object.")
    checked: dict[str, Any] = {}
    if "title" in changes:
        checked["title"] = _require_title(changes["title"])
    if "description" in changes:
        checked["description"] = _require_description(changes["description"])
    if "tags" in changes:
        checked["tags"] = _require_tags(changes["tags"])
    if "variants" in changes:
        items = changes["variants"]
        if not isinstance(items, list):
            raise validation_error("variants: The variants must be a list.")
        known = {v["id"] for v in product["variants"]}
        updates: dict[int, dict[str, Any]] = {}
        for i, item in enumerate(items):
            where = f"variants.{i}"
            if not isinstance(item, dict):
                raise validation_error(f"{where}: The variant must be an object.")
            variant_id = _require_int(f"{where}.id", item.get("id"))
            if variant_id not in known:
                raise validation_error(f"{where}.id: The selected {where}.id is invalid.")
            update: dict[str, Any] = {}
            if "price" in item:
                update["price"] = _require_price(f"{where}.price", item["price"])
            if "is_enabled" in item:
                update["is_enabled"] = require_bool(f"{where}.is_enabled", item["is_enabled"])
            updates[variant_id] = update
        checked["variants"] = updates
    return checked
