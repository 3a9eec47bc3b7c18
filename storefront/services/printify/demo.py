"""An in-memory, deterministic Printify stand-in that serves the demo catalogue and takes orders."""

from __future__ import annotations

import copy
import hashlib
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from storefront.collections import COLLECTIONS, HWDKN, SWDNN, Collection
from storefront.services import demo_images
from storefront.services.printify.errors import ProviderError, ProviderNotFound
from storefront.services.printify.provider import DEFAULT_PAGE_LIMIT, paginate, validation_error

DEMO_SHOP_ID = 1
DEMO_SHOP: dict[str, Any] = {"id": DEMO_SHOP_ID, "title": "Storefront Demo Shop", "sales_channel": "custom_integration"}
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
#: Shipping the demo adds to every order, in cents (Printify would quote per item and country).
DEMO_FLAT_SHIPPING_CENTS = 0
#: Order statuses advance_order() walks through, in order.
ORDER_PROGRESSION: tuple[str, ...] = ("pending", "on-hold", "in-production", "fulfilled")
OPERATION_FAILED_CODE = 8502


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
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S+00:00")


def _colour_slug(name: str) -> str:
    """A colour name as it appears in file names and SKUs ('Royal Blue' -> 'royal-blue')."""
    return name.lower().replace(" ", "-")


def _variant_id(kind: str, colour: str, size: str) -> int:
    """Catalogue-style variant id: the same for every product of one blueprint, colour and size."""
    return BLUEPRINTS[kind] * 100 + (COLOUR_IDS[colour] - 600) * len(SIZES) + SIZES.index(size)


def _default_anchor() -> datetime:
    """Midnight UTC of today, so the demo catalogue always looks recently made."""
    now = datetime.now(timezone.utc)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


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
                    "sku": f"{collection.label}-{template.slug.upper()}-{_colour_slug(colour).upper()}-{size}",
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
            stem = f"{product_id}-{view}" if colour == colours[0] else f"{product_id}-{_colour_slug(colour)}-{view}"
            file_name = f"{stem}.png"
            renders[file_name] = (template.kind, COLOURS[colour], COLOURS[trim], collection.label, view == "back")
            images.append(
                {
                    "src": f"{media_url}/{file_name}",
                    "variant_ids": ids,
                    "position": view,
                    "is_default": not images,
                    "is_selected_for_publishing": True,
                    "order": None,
                }
            )

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
        "options": [
            {
                "name": "Colors",
                "type": "color",
                "values": [{"id": COLOUR_IDS[c], "title": c, "colors": [COLOURS[c]]} for c in colours],
            },
            {"name": "Sizes", "type": "size", "values": [{"id": SIZE_IDS[s], "title": s} for s in SIZES]},
        ],
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
        "print_details": {"print_on_side": "off"},
        "sales_channel_properties": [],
        "is_printify_express_eligible": False,
        "is_printify_express_enabled": False,
        "is_economy_shipping_eligible": False,
        "is_economy_shipping_enabled": False,
    }
    return product, renders


def _build_catalogue(
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
    products, _ = _build_catalogue(media_url.rstrip("/"), anchor or _default_anchor())
    return products


def _tracking_number(order_id: str) -> str:
    """A USPS-looking 22-digit tracking number derived from the order id."""
    digits = str(int(hashlib.sha1(order_id.encode()).hexdigest(), 16))
    return "9400" + digits[:18].rjust(18, "0")


_REQUIRED_ADDRESS_FIELDS = ("first_name", "last_name", "country", "address1", "city", "zip")


class DemoPrintProvider:
    """PrintProvider served from memory: one shop, the demo catalogue and orders that never ship."""

    def __init__(
        self,
        media_dir: Path,
        media_url: str = "/uploads/demo",
        *,
        anchor: datetime | None = None,
        flat_shipping_cents: int = DEMO_FLAT_SHIPPING_CENTS,
        clock: Callable[[], datetime] | None = None,
        image_size: int = 800,
    ) -> None:
        self.media_dir = Path(media_dir)
        self.media_url = media_url.rstrip("/")
        self.flat_shipping_cents = flat_shipping_cents
        self.image_size = image_size
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        products, self._renders = _build_catalogue(self.media_url, anchor or _default_anchor())
        self._products: list[dict[str, Any]] = products
        self._by_id: dict[str, dict[str, Any]] = {p["id"]: p for p in products}
        self._orders: dict[str, dict[str, Any]] = {}
        self._order_ids: list[str] = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ shops and products

    def _check_shop(self, shop_id: int) -> None:
        """Raise ProviderNotFound unless `shop_id` is the demo shop."""
        if isinstance(shop_id, bool) or shop_id != DEMO_SHOP_ID:
            raise ProviderNotFound("Shop not found", details={"error": "Not found"})

    def list_shops(self) -> list[dict]:
        """The single demo shop."""
        return [dict(DEMO_SHOP)]

    def list_products(self, shop_id: int, page: int = 1, limit: int = 50) -> dict:
        """One page of every product in the shop (newest first, drafts included) in Printify's envelope."""
        self._check_shop(shop_id)
        return copy.deepcopy(paginate(self._products, page, limit))

    def get_product(self, shop_id: int, product_id: str) -> dict:
        """One product by id; ProviderNotFound when unknown."""
        self._check_shop(shop_id)
        product = self._by_id.get(product_id) if isinstance(product_id, str) else None
        if product is None:
            raise ProviderNotFound("Product not found", details={"error": "Not found"})
        return copy.deepcopy(product)

    # ------------------------------------------------------------------ images

    def ensure_images(self) -> int:
        """Render every missing product image into media_dir; returns how many files were written."""
        written = 0
        for file_name, (kind, body, trim, label, back) in self._renders.items():
            render = lambda k=kind, b=body, t=trim, lab=label, bk=back: demo_images.render_garment(  # noqa: E731
                k, b, t, lab, self.image_size, back=bk
            )
            if demo_images.ensure_png(self.media_dir / file_name, render):
                written += 1
        return written

    # ------------------------------------------------------------------ orders

    def _validate_order(self, order: object) -> tuple[list[tuple[dict, dict, int, dict]], dict]:
        """Check an order body like Printify; returns (product, variant, quantity, item) rows and address."""
        if not isinstance(order, dict):
            raise validation_error("The request body must be a JSON object.")
        external_id = order.get("external_id")
        if external_id is not None and not isinstance(external_id, str):
            raise validation_error("external_id: The external id must be a string.")
        shipping_method = order.get("shipping_method", 1)
        if isinstance(shipping_method, bool) or shipping_method not in (1, 2, 3, 4):
            raise validation_error("shipping_method: The selected shipping method is invalid.")
        items = order.get("line_items")
        if not isinstance(items, list) or not items:
            raise validation_error("line_items: The line items field is required.")
        rows: list[tuple[dict, dict, int, dict]] = []
        for i, item in enumerate(items):
            where = f"line_items.{i}"
            if not isinstance(item, dict):
                raise validation_error(f"{where}: The line item must be an object.")
            product, variant = self._resolve_line_item(where, item)
            if not variant["is_enabled"]:
                raise validation_error(f"{where}.variant_id: The selected variant is disabled.")
            if not variant["is_available"]:
                raise validation_error(f"{where}.variant_id: The selected variant is out of stock.")
            quantity = item.get("quantity")
            if isinstance(quantity, bool) or not isinstance(quantity, int):
                raise validation_error(f"{where}.quantity: The {where}.quantity must be an integer.")
            if quantity < 1:
                raise validation_error(f"{where}.quantity: The {where}.quantity must be at least 1.")
            rows.append((product, variant, quantity, item))
        address = order.get("address_to")
        if not isinstance(address, dict):
            raise validation_error("address_to: The address to field is required.")
        for field in _REQUIRED_ADDRESS_FIELDS:
            value = address.get(field)
            if not isinstance(value, str) or not value.strip():
                raise validation_error(
                    f"address_to.{field}: The address to.{field.replace('_', ' ')} field is required."
                )
        country = address["country"].strip()
        if len(country) != 2 or not country.isalpha():
            raise validation_error("address_to.country: The selected address to.country is invalid.")
        return rows, address

    def _resolve_line_item(self, where: str, item: dict) -> tuple[dict, dict]:
        """The product and variant a line item names, by product_id + variant_id or by sku."""
        if "product_id" not in item and isinstance(item.get("sku"), str):
            for product in self._products:
                for variant in product["variants"]:
                    if variant["sku"] == item["sku"]:
                        return product, variant
            raise validation_error(f"{where}.sku: The selected sku is invalid.")
        product_id = item.get("product_id")
        if not isinstance(product_id, str) or not product_id:
            raise validation_error(f"{where}.product_id: The {where}.product_id field is required.")
        product = self._by_id.get(product_id)
        if product is None:
            raise validation_error(f"{where}.product_id: The selected product does not exist.")
        variant_id = item.get("variant_id")
        if isinstance(variant_id, bool) or not isinstance(variant_id, int):
            raise validation_error(f"{where}.variant_id: The {where}.variant_id must be an integer.")
        variant = next((v for v in product["variants"] if v["id"] == variant_id), None)
        if variant is None:
            raise validation_error(f"{where}.variant_id: The selected variant does not belong to the product.")
        return product, variant

    def create_order(self, shop_id: int, order: dict) -> dict:
        """Validate and store an order with status "pending"; returns only {"id": ...}."""
        self._check_shop(shop_id)
        rows, address = self._validate_order(order)
        now = format_timestamp(self._clock())
        line_items = []
        for position, (product, variant, quantity, item) in enumerate(rows):
            line: dict[str, Any] = {
                "product_id": product["id"],
                "quantity": quantity,
                "variant_id": variant["id"],
                "print_provider_id": product["print_provider_id"],
                "cost": variant["cost"] * quantity,
                "shipping_cost": self.flat_shipping_cents if position == 0 else 0,
                "status": "pending",
                "metadata": {
                    "title": product["title"],
                    "price": variant["price"],
                    "variant_label": variant["title"],
                    "sku": variant["sku"],
                    "country": "United States",
                },
                "sent_to_production_at": None,
                "fulfilled_at": None,
            }
            if item.get("external_id") is not None:
                line["external_id"] = item["external_id"]
            line_items.append(line)
        external_id = order.get("external_id")
        with self._lock:
            order_id = secrets.token_hex(12)
            while order_id in self._orders:
                order_id = secrets.token_hex(12)
            self._orders[order_id] = {
                "id": order_id,
                "address_to": copy.deepcopy(address),
                "line_items": line_items,
                "metadata": {
                    "order_type": "api",
                    "shop_order_id": external_id,
                    "shop_order_label": order.get("label") or external_id,
                    "shop_fulfilled_at": None,
                },
                "total_price": sum(v["price"] * q for _, v, q, _ in rows),
                "total_shipping": self.flat_shipping_cents,
                "total_tax": 0,
                "status": "pending",
                "shipping_method": order.get("shipping_method", 1),
                "is_printify_express": bool(order.get("is_printify_express", False)),
                "is_economy_shipping": bool(order.get("is_economy_shipping", False)),
                "shipments": [],
                "created_at": now,
                "sent_to_production_at": None,
                "fulfilled_at": None,
            }
            self._order_ids.append(order_id)
        return {"id": order_id}

    def get_order(self, shop_id: int, order_id: str) -> dict:
        """One stored order; ProviderNotFound when unknown."""
        self._check_shop(shop_id)
        with self._lock:
            stored = self._orders.get(order_id) if isinstance(order_id, str) else None
            if stored is None:
                raise ProviderNotFound("Order not found", details={"error": "Not found"})
            return copy.deepcopy(stored)

    def list_orders(self, shop_id: int, page: int = 1, limit: int = DEFAULT_PAGE_LIMIT) -> dict:
        """One page of the shop's orders, newest first, in Printify's envelope."""
        self._check_shop(shop_id)
        with self._lock:
            orders = [copy.deepcopy(self._orders[i]) for i in reversed(self._order_ids)]
        return paginate(orders, page, limit)

    def advance_order(self, order_id: str) -> dict:
        """Move an order one step: pending -> on-hold -> in-production -> fulfilled (adds a USPS shipment)."""
        with self._lock:
            stored = self._orders.get(order_id) if isinstance(order_id, str) else None
            if stored is None:
                raise ProviderNotFound("Order not found", details={"error": "Not found"})
            status = stored["status"]
            if status not in ORDER_PROGRESSION[:-1]:
                body = {"status": "error", "code": OPERATION_FAILED_CODE, "message": "Operation failed.",
                        "errors": {"reason": f"Order in status {status!r} cannot move on.",
                                   "code": OPERATION_FAILED_CODE}}
                raise ProviderError("Operation failed.", status=400, code=OPERATION_FAILED_CODE, details=body)
            new_status = ORDER_PROGRESSION[ORDER_PROGRESSION.index(status) + 1]
            now = format_timestamp(self._clock())
            stored["status"] = new_status
            if new_status == "in-production":
                stored["sent_to_production_at"] = now
                for line in stored["line_items"]:
                    line["status"] = "in-production"
                    line["sent_to_production_at"] = now
            elif new_status == "fulfilled":
                number = _tracking_number(order_id)
                stored["fulfilled_at"] = now
                stored["shipments"].append(
                    {
                        "carrier": "usps",
                        "number": number,
                        "url": f"https://tools.usps.com/go/TrackConfirmAction?tLabels={number}",
                        "delivered_at": None,
                    }
                )
                for line in stored["line_items"]:
                    line["status"] = "fulfilled"
                    line["fulfilled_at"] = now
            return copy.deepcopy(stored)
