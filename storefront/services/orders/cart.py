"""Cart rules: lines merge by source, product id, colour and size; subtotal, shipping and total in cents.

A line's source says which catalogue it came from: "" for ours (printed by our provider and
checked out here), "shopify" for the store catalogue (checked out on the store itself: a cart made
there from the lines' variant gids, `store_lines.store_checkout`).

Every function is pure: it takes a sequence of lines and returns a new tuple, never mutating input.
Product ids stay strings (the real id). The spec's Quick Add rule (numeric id, else 9999) is
deliberately not followed, so two different non-numeric products never merge into one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import cents_to_dollars, parse_cents

CART_STORAGE_KEY = "cart-storage"
FREE_SHIPPING_OVER_CENTS = 10000
SHIPPING_CENTS = 999
TAX_CENTS = 0
MIN_LINE_QUANTITY = 1
# The spec shows no upper limit; 99 keeps a tampered or runaway quantity sane.
MAX_LINE_QUANTITY = 99
#: Distinct lines a cart holds: a cart is read, repriced and checked out whole on the server, so
#: one shopper's (or a tampered local storage's) cart must stay a bounded amount of work.
MAX_CART_LINES = 100
#: The stored cart text read at most: 100 lines take far less, and a longer string (a tampered
#: local storage) is read only this far, never parsed whole.
MAX_CART_STORAGE_CHARS = 200_000
#: Stored entries read at most (duplicates merge into one line, so a legitimate cart has <= 100).
MAX_STORED_ENTRIES = 4 * MAX_CART_LINES
CART_TRIMMED = f"Your cart had more than {MAX_CART_LINES} items; only the first {MAX_CART_LINES} were kept."
CART_FULL = f"Your cart can hold at most {MAX_CART_LINES} different items. Remove one to add another."
#: A line of our own catalogue (and every line of a cart stored before sources).
SOURCE_OURS = ""
#: A line of the store catalogue (Shopify), checked out on the store.
SOURCE_STORE = "shopify"
SOURCES = (SOURCE_OURS, SOURCE_STORE)


@dataclass(frozen=True, slots=True)
class CartLine:
    """One cart line; (source, product_id, color, size) is its identity. The colour is "" for a
    product that comes in one colour only (and in carts stored before colours); the source is ""
    for our catalogue and "shopify" for the store catalogue (whose size is the variant title)."""

    product_id: str
    name: str
    price_cents: int
    size: str
    image: str
    quantity: int
    variant_id: str | None = None
    color: str = ""
    source: str = SOURCE_OURS
    #: A store line's variant as the store names it (gid://shopify/ProductVariant/N); "" for ours
    #: and for store lines stored before gids (their variant_id is the gid's number).
    variant_gid: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.source, self.product_id, self.color, self.size)

    @property
    def is_ours(self) -> bool:
        return self.source == SOURCE_OURS

    @property
    def line_total_cents(self) -> int:
        return self.price_cents * self.quantity


@dataclass(frozen=True, slots=True)
class Totals:
    """What an order costs, in cents."""

    subtotal_cents: int
    shipping_cents: int
    tax_cents: int
    total_cents: int
    #: What a discount code took off the subtotal.
    discount_cents: int = 0


def parse_quantity(value: object) -> int | None:
    """A quantity as a whole number (an int, or a float without fraction such as 2.0), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def clamp_quantity(quantity: int) -> int:
    return max(MIN_LINE_QUANTITY, min(MAX_LINE_QUANTITY, quantity))


def add_line(lines: Sequence[CartLine], line: CartLine) -> tuple[CartLine, ...]:
    """Raise the quantity of the line with the same id, colour and size by line.quantity, else append;
    ValidationError(CART_FULL) when appending would make more than MAX_CART_LINES lines."""
    if line.quantity < MIN_LINE_QUANTITY:
        raise ValueError(f"quantity to add must be at least 1, got {line.quantity}")
    result: list[CartLine] = []
    merged = False
    for existing in lines:
        if not merged and existing.key == line.key:
            quantity = clamp_quantity(existing.quantity + line.quantity)
            existing = replace(existing, quantity=quantity)
            merged = True
        result.append(existing)
    if not merged:
        if len(result) >= MAX_CART_LINES:
            raise ValidationError(CART_FULL)
        result.append(replace(line, quantity=clamp_quantity(line.quantity)))
    return tuple(result)


def set_quantity(
    lines: Sequence[CartLine], product_id: str, size: str, quantity: int, color: str = "", source: str = SOURCE_OURS
) -> tuple[CartLine, ...]:
    """Set a line's quantity; below 1 is ignored (lines unchanged), above the maximum is capped."""
    if quantity < MIN_LINE_QUANTITY:
        return tuple(lines)
    quantity = clamp_quantity(quantity)
    key = (source, product_id, color, size)
    return tuple(replace(line, quantity=quantity) if line.key == key else line for line in lines)


def find_line(
    lines: Iterable[CartLine], product_id: str, size: str, color: str = "", source: str = SOURCE_OURS
) -> CartLine | None:
    return next((line for line in lines if line.key == (source, product_id, color, size)), None)


def increment(
    lines: Sequence[CartLine], product_id: str, size: str, color: str = "", source: str = SOURCE_OURS
) -> tuple[CartLine, ...]:
    """The plus button: one more of the line, if it exists."""
    line = find_line(lines, product_id, size, color, source)
    if line is None:
        return tuple(lines)
    return set_quantity(lines, product_id, size, line.quantity + 1, color, source)


def decrement(
    lines: Sequence[CartLine], product_id: str, size: str, color: str = "", source: str = SOURCE_OURS
) -> tuple[CartLine, ...]:
    """The minus button: one fewer of the line, never below 1."""
    line = find_line(lines, product_id, size, color, source)
    if line is None:
        return tuple(lines)
    return set_quantity(lines, product_id, size, line.quantity - 1, color, source)


def remove_line(
    lines: Sequence[CartLine], product_id: str, size: str, color: str = "", source: str = SOURCE_OURS
) -> tuple[CartLine, ...]:
    return tuple(line for line in lines if line.key != (source, product_id, color, size))


def own_lines(lines: Iterable[CartLine]) -> list[CartLine]:
    """The lines of our catalogue: what our checkout sells and our order summary counts."""
    return [line for line in lines if line.source == SOURCE_OURS]


def store_lines(lines: Iterable[CartLine]) -> list[CartLine]:
    """The lines of the store catalogue: checked out on the store, never by our checkout."""
    return [line for line in lines if line.source == SOURCE_STORE]


def split_by_source(lines: Iterable[CartLine]) -> tuple[list[CartLine], list[CartLine]]:
    """(our lines, store-catalogue lines), each in cart order."""
    lines = list(lines)
    return own_lines(lines), store_lines(lines)


def total_quantity(lines: Iterable[CartLine]) -> int:
    """What the header badge shows."""
    return sum(line.quantity for line in lines)


def subtotal_cents(lines: Iterable[CartLine]) -> int:
    return sum(line.line_total_cents for line in lines)


def shipping_cents(subtotal_cents: int) -> int:
    """Free shipping only when the subtotal is strictly over $100.00, otherwise $9.99."""
    return 0 if subtotal_cents > FREE_SHIPPING_OVER_CENTS else SHIPPING_CENTS


def totals_for(subtotal: int, discount: int = 0, free_shipping: bool = False) -> Totals:
    """The one rule for an order's totals: a discount off the subtotal, shipping free over $100 of
    the subtotal after the discount (or by a free-shipping code), tax 0, total the sum."""
    discount = min(max(discount, 0), subtotal)
    shipping = 0 if free_shipping else shipping_cents(subtotal - discount)
    return Totals(subtotal, shipping, TAX_CENTS, subtotal - discount + shipping + TAX_CENTS, discount)


def cart_totals(lines: Iterable[CartLine]) -> Totals:
    return totals_for(subtotal_cents(lines))


def total_cents(lines: Iterable[CartLine]) -> int:
    """Subtotal plus shipping plus tax (always 0)."""
    return cart_totals(lines).total_cents


# --- Browser local storage -------------------------------------------------------------------
# Everything read back from the browser is untrusted: prices are for display only and the server
# reprices every line from the catalogue before an order is created or a card is charged.


def dump_cart(lines: Iterable[CartLine]) -> str:
    """JSON for local storage, using the spec's cart item fields (price in dollars, as a number)
    plus the colour when the product comes in several and the source of a store-catalogue line."""
    items: list[dict[str, object]] = []
    for line in lines:
        item: dict[str, object] = {
            "id": line.product_id,
            "name": line.name,
            "price": float(cents_to_dollars(line.price_cents)),
            "size": line.size,
            "image": line.image,
            "quantity": line.quantity,
        }
        if line.variant_id is not None:
            item["variantId"] = line.variant_id
        if line.color:
            item["color"] = line.color
        if line.source:
            item["source"] = line.source
        if line.variant_gid:
            item["variantGid"] = line.variant_gid
        items.append(item)
    return json.dumps(items, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class StoredCart:
    """A cart read from local storage: its lines, and whether some were left out (over the cap)."""

    lines: list[CartLine]
    trimmed: bool = False


def load_cart(raw: str | None) -> list[CartLine]:
    """Cart lines from whatever local storage holds (read_cart's lines); this never raises."""
    return read_cart(raw).lines


def read_cart(raw: str | None) -> StoredCart:
    """The first MAX_CART_LINES distinct lines of whatever local storage holds; never raises.

    Bad entries are skipped. Quantities are clamped to 1..99 and duplicate id+colour+size entries
    merged; an entry without a colour (stored before colours) loads with colour "", one without a
    source (stored before sources) as a line of ours; an entry of an unknown source is skipped.
    Prices are display-only. The work is bounded whatever the size of `raw`: a bare array is read
    one entry at a time and only up to MAX_CART_STORAGE_CHARS; `trimmed` says lines were left out.
    """
    if not isinstance(raw, str) or not raw.strip():
        return StoredCart([])
    text = raw.lstrip()
    cut = len(text) > MAX_CART_STORAGE_CHARS
    if cut:
        text = text[:MAX_CART_STORAGE_CHARS]
    entries = _array_entries(text) if text.startswith("[") else iter(_stored_items(_whole_json(text)))
    merged: dict[tuple[str, str, str, str], CartLine] = {}
    trimmed = cut
    for index, entry in enumerate(entries):
        if index >= MAX_STORED_ENTRIES:
            trimmed = True
            break
        line = _parse_item(entry)
        if line is None:
            continue
        earlier = merged.get(line.key)
        if earlier is None and len(merged) >= MAX_CART_LINES:
            trimmed = True
            break
        if earlier is not None:
            line = replace(earlier, quantity=clamp_quantity(earlier.quantity + line.quantity))
        merged[line.key] = line
    return StoredCart(list(merged.values()), trimmed and bool(merged))


_DECODER = json.JSONDecoder()
_BLANK = re.compile(r"[ \t\n\r]*")


def _array_entries(text: str) -> Iterator[object]:
    """The entries of the JSON array `text` starts with, decoded one at a time as they are asked
    for, so a caller that stops early parses no further; ends quietly at the first entry that does
    not decode (a cut-off or broken tail keeps the entries before it)."""
    position = _BLANK.match(text, 1).end()  # type: ignore[union-attr]
    if text.startswith("]", position):
        return
    while True:
        try:
            entry, position = _DECODER.raw_decode(text, position)
        except (ValueError, RecursionError):
            return
        yield entry
        position = _BLANK.match(text, position).end()  # type: ignore[union-attr]
        if not text.startswith(",", position):
            return
        position = _BLANK.match(text, position + 1).end()  # type: ignore[union-attr]


def _whole_json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _stored_items(data: object) -> list[object]:
    """Items from a bare JSON array or the {"state": {"items": [...]}} shape of older builds."""
    if isinstance(data, dict):
        state = data.get("state")
        data = state.get("items") if isinstance(state, dict) else data.get("items")
    return data if isinstance(data, list) else []


def _parse_item(entry: object) -> CartLine | None:
    if not isinstance(entry, dict):
        return None
    product_id = _parse_id(entry.get("id"))
    name = entry.get("name")
    size = entry.get("size")
    price_cents = parse_cents(entry.get("price"))
    quantity = parse_quantity(entry.get("quantity"))
    if (
        product_id is None
        or not isinstance(name, str)
        or not isinstance(size, str)
        or not size.strip()
        or price_cents is None
        or quantity is None
    ):
        return None
    source = entry.get("source", SOURCE_OURS)
    if source is None:
        source = SOURCE_OURS
    if not isinstance(source, str) or source.strip().lower() not in SOURCES:
        return None
    image = entry.get("image")
    color = entry.get("color")
    return CartLine(
        product_id=product_id,
        name=name,
        price_cents=price_cents,
        size=size,
        image=image if isinstance(image, str) else "",
        quantity=clamp_quantity(quantity),
        variant_id=_parse_id(entry.get("variantId")),
        color=color.strip() if isinstance(color, str) else "",
        source=source.strip().lower(),
        variant_gid=_parse_variant_gid(entry.get("variantGid")),
    )


_VARIANT_GID = re.compile(r"gid://shopify/ProductVariant/[1-9][0-9]{0,18}")


def _parse_variant_gid(value: object) -> str:
    """A stored variant gid, "" for anything that is not one (the browser's storage is untrusted)."""
    return value.strip() if isinstance(value, str) and _VARIANT_GID.fullmatch(value.strip()) else ""


def _parse_id(value: object) -> str | None:
    """A non-empty string, or an integer (stored by older builds as a number)."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return None
