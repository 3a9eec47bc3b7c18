"""Each variant's price, the provider's cost and the margin left, for the pricing view and the API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storefront.services.admin.product_forms import parse_product_id
from storefront.services.catalog.sync import variant_labels
from storefront.services.printify.provider import PrintProvider


@dataclass(frozen=True, slots=True)
class VariantMargin:
    """A variant's price, the provider's cost and what is left, in cents."""

    id: int
    title: str
    size: str
    colour: str
    enabled: bool
    price_cents: int
    cost_cents: int
    margin_cents: int
    #: Margin as a percentage of the price, one decimal; None for a zero price.
    margin_percent: float | None


def margins_of(product: dict[str, Any]) -> list[VariantMargin]:
    """Each variant's price, cost and margin (price minus cost) of a provider product."""
    labels = variant_labels(product)
    margins = []
    for variant in product.get("variants") or []:
        price, cost = int(variant.get("price") or 0), int(variant.get("cost") or 0)
        colour, size = labels.get(int(variant["id"]), ("", ""))
        margin = price - cost
        margins.append(
            VariantMargin(
                id=int(variant["id"]),
                title=str(variant.get("title") or ""),
                size=size,
                colour=colour,
                enabled=bool(variant.get("is_enabled", True)),
                price_cents=price,
                cost_cents=cost,
                margin_cents=margin,
                margin_percent=round(margin * 100 / price, 1) if price else None,
            )
        )
    return margins


def variant_margins(provider: PrintProvider, shop_id: int, product_id: str) -> list[VariantMargin]:
    """The product's variant margins with the provider's current costs (costs are not cached)."""
    return margins_of(provider.get_product(shop_id, parse_product_id(product_id)))


def serialize_margin(margin: VariantMargin) -> dict[str, Any]:
    return {
        "id": margin.id,
        "title": margin.title,
        "size": margin.size,
        "color": margin.colour,
        "is_enabled": margin.enabled,
        "price": margin.price_cents,
        "cost": margin.cost_cents,
        "margin": margin.margin_cents,
        "marginPercent": margin.margin_percent,
    }
