"""The demo print provider's catalogue: blueprints, sizes, colours, costs, templates and the demo products."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from storefront.services.collections import COLLECTIONS, HWDKN, SWDNN, Collection

DEMO_SHOP_ID = 1
PRINT_PROVIDER_ID = 29
DEMO_USER_ID = 1000001
#: Printify blueprint ids of the three garment kinds.
BLUEPRINTS: dict[str, int] = {"tee": 384, "hoodie": 388, "crewneck": 400}
GARMENT_TAGS: dict[str, str] = {"tee": "T-Shirt", "hoodie": "Hoodie", "crewneck": "Crewneck"}
GARMENT_GRAMS: dict[str, int] = {"tee": 170, "hoodie": 620, "crewneck": 480}
SIZES: tuple[str, ...] = ("S", "M", "L", "XL", "2XL", "3XL")
#: Option-value ids of the sizes (shared by every blueprint, like Printify's catalogue ids).
SIZE_IDS: dict[str, int] = {size: 14 + i for i, size in enumerate(SIZES)}
#: Extra cents charged for the big sizes, per garment kind.
SIZE_UPCHARGE: dict[str, dict[str, int]] = {
    "tee": {"2XL": 200, "3XL": 300},
    "hoodie": {"2XL": 250, "3XL": 500},
    "crewneck": {"2XL": 200, "3XL": 300},
}
#: Named colours of the demo catalogue: name -> hex; option-value id is 600 + position.
COLOURS: dict[str, str] = {
    "Crimson": SWDNN.primary,
    "Cream": SWDNN.secondary,
    "Charcoal": HWDKN.primary,
    "Old Gold": HWDKN.secondary,
    "Red": "#c8102e",
    "White": "#ffffff",
    "Royal Blue": "#1f4fbf",
    "Golden Yellow": "#f2c200",
    "Deep Royal": "#1a3a8f",
    "Black": "#111111",
}
COLOUR_IDS: dict[str, int] = {name: 600 + i for i, name in enumerate(COLOURS)}
#: (primary colour name, secondary colour name) of each collection.
COLLECTION_COLOURS: dict[str, tuple[str, str]] = {
    "swdnn": ("Crimson", "Cream"),
    "hwdkn": ("Charcoal", "Old Gold"),
    "hwdrn": ("Red", "White"),
    "hwdzn": ("Royal Blue", "White"),
    "hwdpn": ("Golden Yellow", "Deep Royal"),
}


@dataclass(frozen=True)
class CatalogueBlueprint:
    """A blueprint of the demo's print catalogue: what it is, how its mockups look, what it costs."""

    id: int
    title: str
    kind: str  # the garment drawn for its mockups
    base_cost: int  # cents for sizes S-XL at print provider 1


#: The blueprints the demo prints (the spec's five product types).
CATALOGUE_BLUEPRINTS: dict[int, CatalogueBlueprint] = {
    bp.id: bp
    for bp in (
        CatalogueBlueprint(384, "Unisex Premium T-Shirt", "tee", 1150),
        CatalogueBlueprint(386, "Women's Premium T-Shirt", "tee", 1125),
        CatalogueBlueprint(387, "Men's Premium T-Shirt", "tee", 1175),
        CatalogueBlueprint(388, "Unisex Hoodie", "hoodie", 2250),
        CatalogueBlueprint(400, "Unisex Crewneck Sweatshirt", "crewneck", 1850),
    )
}
#: The print providers of the demo catalogue (the spec's four): id -> title.
CATALOGUE_PRINT_PROVIDERS: dict[int, str] = {1: "custom products provider", 2: "ArtsAdd", 3: "T-Pop", 29: "SwiftPOD"}
#: What each print provider charges above (or below) provider 1, in cents per item.
PRINT_PROVIDER_COST_ADJUSTMENT: dict[int, int] = {1: 0, 2: 60, 3: -40, 29: 25}
#: Extra production cost of the big sizes, per garment kind, in cents.
SIZE_COST_UPCHARGE: dict[str, dict[str, int]] = {
    "tee": {"2XL": 150, "3XL": 250},
    "hoodie": {"2XL": 200, "3XL": 400},
    "crewneck": {"2XL": 150, "3XL": 250},
}
#: Blank colours every catalogue blueprint comes in.
CATALOGUE_COLOURS: tuple[str, ...] = ("White", "Black")
#: Print area placeholders of every catalogue variant (pixels of the print file).
PLACEHOLDERS: tuple[dict[str, Any], ...] = (
    {"position": "front", "width": 4500, "height": 5100},
    {"position": "back", "width": 4500, "height": 5100},
)


@dataclass(frozen=True)
class _Template:
    """One kind of product repeated in every collection."""

    slug: str
    name: str
    kind: str
    base_price: int
    swap_colours: bool = False  # lead with the collection's secondary colour
    single_colour: bool = False
    disabled_sizes: frozenset[str] = frozenset()  # disabled in every colour
    disabled_second_colour_sizes: frozenset[str] = frozenset()  # disabled in the second colour only
    second_colour_disabled: bool = False
    blurb: str = ""


_TEMPLATES: tuple[_Template, ...] = (
    _Template("classic-tee", "Classic Tee", "tee", 2499,
              blurb="A soft ringspun cotton tee with the {label} letters printed big across the chest."),
    _Template("signature-hoodie", "Signature Hoodie", "hoodie", 4499, disabled_sizes=frozenset({"3XL"}),
              blurb="A cosy fleece pullover hoodie with a lined hood, drawstrings and a kangaroo pocket."),
    _Template("crewneck-sweatshirt", "Crewneck Sweatshirt", "crewneck", 3499, second_colour_disabled=True,
              blurb="A midweight crewneck sweatshirt with ribbed collar, cuffs and waistband."),
    _Template("vintage-tee", "Vintage Tee", "tee", 2699, swap_colours=True,
              disabled_second_colour_sizes=frozenset({"2XL", "3XL"}),
              blurb="A garment-dyed tee with a lived-in feel and the {label} letters on the chest."),
)
_FIFTH_TEMPLATES: tuple[_Template, ...] = (
    _Template("heavyweight-hoodie", "Heavyweight Hoodie", "hoodie", 4999, single_colour=True,
              disabled_sizes=frozenset({"2XL", "3XL"}),
              blurb="A thick heavyweight hoodie made for cold nights, with the {label} letters up front."),
    _Template("varsity-crewneck", "Varsity Crewneck", "crewneck", 3699, swap_colours=True,
              disabled_sizes=frozenset({"S"}),
              blurb="A varsity-style crewneck with contrast trim and the {label} letters across the chest."),
)
#: Products that exist in the shop but are neither visible nor published (to exercise filtering).
_DRAFTS: tuple[tuple[Collection, _Template], ...] = (
    (SWDNN, _Template("prototype-hoodie", "Prototype Hoodie", "hoodie", 4799,
                      blurb="A sample hoodie that is still being tested.")),
    (HWDKN, _Template("archive-tee", "Archive Tee", "tee", 2599, single_colour=True,
                      blurb="An older tee kept for the records.")),
)


def hex_id(seed: str) -> str:
    """A stable 24-hex (Mongo-style) id derived from a seed string."""
    return hashlib.sha1(f"storefront-demo:{seed}".encode()).hexdigest()[:24]


def format_timestamp(moment: datetime) -> str:
    """A datetime in Printify's "YYYY-MM-DD HH:MM:SS+00:00" format (UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S+00:00")


def colour_slug(name: str) -> str:
    """A colour name as it appears in file names and SKUs ('Royal Blue' -> 'royal-blue')."""
    return name.lower().replace(" ", "-")


def _blueprint_variant_id(blueprint_id: int, colour: str, size: str) -> int:
    """Catalogue-style variant id: the same for every product of one blueprint, colour and size."""
    return blueprint_id * 100 + (COLOUR_IDS[colour] - 600) * len(SIZES) + SIZES.index(size)


def _variant_id(kind: str, colour: str, size: str) -> int:
    return _blueprint_variant_id(BLUEPRINTS[kind], colour, size)


def variant_cost(blueprint_id: int, print_provider_id: int, size: str) -> int:
    """What printing one catalogue variant costs the shop, in cents."""
    blueprint = CATALOGUE_BLUEPRINTS[blueprint_id]
    return (
        blueprint.base_cost
        + SIZE_COST_UPCHARGE[blueprint.kind].get(size, 0)
        + PRINT_PROVIDER_COST_ADJUSTMENT[print_provider_id]
    )


def catalogue_variants(blueprint_id: int) -> list[dict[str, Any]]:
    """The catalogue variants of a blueprint: every catalogue colour in every size."""
    return [
        {
            "id": _blueprint_variant_id(blueprint_id, colour, size),
            "title": f"{colour} / {size}",
            "options": {"color": colour, "size": size},
            "placeholders": [dict(placeholder) for placeholder in PLACEHOLDERS],
        }
        for colour in CATALOGUE_COLOURS
        for size in SIZES
    ]


def default_anchor() -> datetime:
    """Midnight UTC of today, so the demo catalogue always looks recently made."""
    now = datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def mockup_image(src: str, variant_ids: list[int], view: str, *, is_default: bool) -> dict:
    """One generated mockup as a Printify product image."""
    return {
        "src": src,
        "variant_ids": variant_ids,
        "position": view,
        "is_default": is_default,
        "is_selected_for_publishing": True,
        "order": None,
    }


def options(colours: Sequence[str], sizes: Sequence[str]) -> list[dict]:
    """A product's colour and size options, as Printify lists them."""
    return [
        {
            "name": "Colors",
            "type": "color",
            "values": [{"id": COLOUR_IDS[c], "title": c, "colors": [COLOURS[c]]} for c in colours],
        },
        {"name": "Sizes", "type": "size", "values": [{"id": SIZE_IDS[s], "title": s} for s in sizes]},
    ]


def product_flags() -> dict[str, Any]:
    """The fields every demo product carries unchanged (contract: a product's print and shipping flags)."""
    return {
        "print_details": {"print_on_side": "off"},
        "sales_channel_properties": [],
        "is_printify_express_eligible": False,
        "is_printify_express_enabled": False,
        "is_economy_shipping_eligible": False,
        "is_economy_shipping_enabled": False,
    }


def _build_product(
    collection: Collection,
    template: _Template,
    index: int,
    anchor: datetime,
    media_url: str,
    published: bool,
) -> tuple[dict[str, Any], dict[str, tuple[str, str, str, str, bool]]]:
    """One Printify-shaped product plus the image renders it needs (file name -> render args)."""
    slug = f"{collection.key}-{template.slug}"
    product_id = hex_id(f"product:{slug}")
    first, second = COLLECTION_COLOURS[collection.key]
    if template.swap_colours:
        first, second = second, first
    colours = [first] if template.single_colour else [first, second]
    upcharge = SIZE_UPCHARGE[template.kind]

    variants: list[dict[str, Any]] = []
    for colour in colours:
        for size in SIZES:
            enabled = size not in template.disabled_sizes
            if colour == second and colour != first:
                enabled = enabled and not template.second_colour_disabled
                enabled = enabled and size not in template.disabled_second_colour_sizes
            price = template.base_price + upcharge.get(size, 0)
            variants.append(
                {
                    "id": _variant_id(template.kind, colour, size),
                    "sku": f"{collection.label}-{template.slug.upper()}-{colour_slug(colour).upper()}-{size}",
                    "cost": round(price * 0.46),
                    "price": price,
                    "title": f"{colour} / {size}",
                    "grams": GARMENT_GRAMS[template.kind] + 20 * SIZES.index(size),
                    "is_enabled": enabled,
                    "is_default": False,
                    "is_available": True,
                    "is_printify_express_eligible": False,
                    "options": [COLOUR_IDS[colour], SIZE_IDS[size]],
                }
            )
    default = next(
        (v for v in variants if v["is_enabled"] and v["title"] == f"{colours[0]} / M"),
        next(v for v in variants if v["is_enabled"]),
    )
    default["is_default"] = True

    images: list[dict[str, Any]] = []
    renders: dict[str, tuple[str, str, str, str, bool]] = {}
    for colour in colours:
        ids = [v["id"] for v in variants if v["is_enabled"] and v["options"][0] == COLOUR_IDS[colour]]
        if not ids:
            continue
        trim = second if colour == first else first  # the collection's other colour
        views = ("front", "back") if colour == colours[0] else ("front",)
        for view in views:
            stem = f"{product_id}-{view}" if colour == colours[0] else f"{product_id}-{colour_slug(colour)}-{view}"
            file_name = f"{stem}.png"
            renders[file_name] = (template.kind, COLOURS[colour], COLOURS[trim], collection.label, view == "back")
            images.append(mockup_image(f"{media_url}/{file_name}", ids, view, is_default=not images))

    created = anchor - timedelta(hours=5 + 19 * index)
    updated = created + timedelta(hours=2 + index % 5, minutes=7 * (index % 8))
    all_ids = [v["id"] for v in variants]
    blurb = template.blurb.format(label=collection.label)
    product = {
        "id": product_id,
        "title": f"{collection.label} {template.name}",
        "description": f"<p>{blurb}</p><p>{collection.description}</p>",
        "safety_information": "<p>Keep away from fire. Wash inside out in cold water.</p>",
        "tags": [collection.label.upper(), GARMENT_TAGS[template.kind]],
        "options": options(colours, SIZES),
        "variants": variants,
        "images": images,
        "created_at": format_timestamp(created),
        "updated_at": format_timestamp(updated),
        "visible": published,
        "is_locked": False,
        "is_published": published,
        "blueprint_id": BLUEPRINTS[template.kind],
        "user_id": DEMO_USER_ID,
        "shop_id": DEMO_SHOP_ID,
        "print_provider_id": PRINT_PROVIDER_ID,
        "print_areas": [
            {
                "variant_ids": all_ids,
                "placeholders": [
                    {
                        "position": "front",
                        "images": [
                            {
                                "id": hex_id(f"upload:{collection.key}"),
                                "name": f"{collection.label.lower()}-letters.png",
                                "type": "image/png",
                                "height": 1200,
                                "width": 3000,
                                "x": 0.5,
                                "y": 0.5,
                                "scale": 1,
                                "angle": 0,
                            }
                        ],
                    }
                ],
                "background": "#ffffff",
            }
        ],
        **product_flags(),
    }
    return product, renders


def build_catalogue(
    media_url: str, anchor: datetime
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str, str, str, bool]]]:
    """Every demo product (newest first) and the image renders they reference."""
    entries: list[tuple[Collection, _Template, bool]] = []
    for template in _TEMPLATES:
        entries += [(c, template, True) for c in COLLECTIONS]
    for c_index, collection in enumerate(COLLECTIONS):
        entries.append((collection, _FIFTH_TEMPLATES[c_index % 2], True))
    entries += [(c, t, False) for c, t in _DRAFTS]
    products: list[dict[str, Any]] = []
    renders: dict[str, tuple[str, str, str, str, bool]] = {}
    for index, (collection, template, published) in enumerate(entries):
        product, product_renders = _build_product(collection, template, index, anchor, media_url, published)
        products.append(product)
        renders.update(product_renders)
    products.sort(key=lambda p: p["created_at"], reverse=True)
    return products, renders


def demo_catalogue(media_url: str = "/uploads/demo", anchor: datetime | None = None) -> list[dict]:
    """The demo products as Printify product dicts, newest first."""
    products, _ = build_catalogue(media_url.rstrip("/"), anchor or default_anchor())
    return products
