"""The Sync & Pricing tab's rows (TypedDicts of display strings), made from the admin catalogue's rows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from storefront.services.admin import product_rows
from storefront.services.admin.product_margins import VariantMargin
from storefront.services.admin.product_rows import AdminProductRow, VariantRow
from storefront.services.platform.money import format_usd

#: The panel's details show this many variants, then '+N more' (spec section 9).
VARIANT_PREVIEW = 3
NO_PRICE = "—"


class ProductRow(TypedDict):
    """One product of the shop's list, formatted for display."""

    id: str
    shop_id: str
    title: str
    #: 'Published' or 'Unpublished'.
    status: str
    published: bool
    price: str
    #: The price as typed into a price input ('29.99'), '' without an enabled variant.
    price_value: str
    variant_count: str
    #: What a new price means for the sizes: 'Base price; larger sizes keep their +$2.00 / +$3.00'.
    price_note: str
    #: The product's small picture beside its title ("" for none).
    thumbnail: str


class MarginRow(TypedDict):
    """One variant's margin, formatted."""

    variant: str
    price: str
    cost: str
    margin: str
    percent: str
    #: True when the variant sells at a loss (the row is shown in red).
    loss: bool


class VariantPrice(TypedDict):
    """One variant in the pricing editor."""

    id: str
    label: str
    price: str
    enabled: bool


class ProductDetail(TypedDict):
    """The panel's selected product."""

    id: str
    shop_id: str
    title: str
    status: str
    published: bool
    price: str


EMPTY_DETAIL = ProductDetail(id="", shop_id="", title="", status="", published=False, price="")


# --------------------------------------------------------------------------- formatting


def price_text(cents: int | None) -> str:
    """'$29.99', or a dash when there is no price."""
    return NO_PRICE if cents is None else format_usd(cents)


def status_label(row: AdminProductRow) -> str:
    return row.status.capitalize()


def variant_label(variant: VariantRow) -> str:
    """'White / M': colour and size when known, else the provider's title."""
    parts = [part for part in (variant.colour, variant.size) if part]
    return " / ".join(parts) if parts else variant.title


def to_row(row: AdminProductRow) -> ProductRow:
    return ProductRow(
        id=row.id,
        shop_id=str(row.shop_id),
        title=row.title,
        status=status_label(row),
        published=row.is_published,
        price=price_text(row.price_cents),
        price_value=product_rows.dollars(row.price_cents) or "",
        variant_count=str(len(row.variants)),
        price_note=row.price_note,
        thumbnail=row.thumbnail,
    )


def to_detail(row: AdminProductRow) -> ProductDetail:
    return ProductDetail(
        id=row.id,
        shop_id=str(row.shop_id),
        title=row.title,
        status=status_label(row),
        published=row.is_published,
        price=price_text(row.price_cents),
    )


def variant_preview(row: AdminProductRow) -> tuple[list[str], int]:
    """The first variants as 'White / M — $29.99', and how many more there are."""
    shown = [f"{variant_label(v)} — {format_usd(v.price_cents)}" for v in row.variants[:VARIANT_PREVIEW]]
    return shown, max(len(row.variants) - VARIANT_PREVIEW, 0)


def to_variant_price(variant: VariantRow) -> VariantPrice:
    return VariantPrice(
        id=str(variant.id),
        label=variant_label(variant),
        price=product_rows.dollars(variant.price_cents) or "",
        enabled=variant.enabled,
    )


def percent_text(percent: float | None) -> str:
    """'42.5%', or a dash for a variant without a price."""
    return NO_PRICE if percent is None else f"{percent:.1f}%"


def to_margin_row(margin: VariantMargin) -> MarginRow:
    parts = [part for part in (margin.colour, margin.size) if part]
    return MarginRow(
        variant=" / ".join(parts) if parts else margin.title,
        price=format_usd(margin.price_cents),
        cost=format_usd(margin.cost_cents),
        margin=format_usd(margin.margin_cents),
        percent=percent_text(margin.margin_percent),
        loss=margin.margin_cents < 0,
    )


def progress_percent(done: int, total: int) -> int:
    """How far a sync is, 0 to 100 (0 while the total is unknown)."""
    if total <= 0:
        return 0
    return max(0, min(100, done * 100 // total))


#: Form field names of the pricing editor: one per variant, `price-<variant id>`.
VARIANT_PRICE_FIELD = "price-"


def variant_prices_from_form(form: Mapping[str, Any]) -> dict[int, object]:
    """The pricing editor's form as {variant id: price as typed}; other fields are ignored."""
    prices: dict[int, object] = {}
    for name, value in form.items():
        suffix = name[len(VARIANT_PRICE_FIELD) :] if name.startswith(VARIANT_PRICE_FIELD) else ""
        if suffix.isascii() and suffix.isdigit():
            prices[int(suffix)] = value
    return prices
