"""The one rule for changing a product's price as a whole (the editor's Save, Save All Changes and
Sync Price): every variant moves by the same amount, so the upcharges of larger sizes are kept.

The base price is the price the store lists the product at: its first enabled variant's, in the
provider's order. A move that would take any variant below zero is refused; one that would sell an
enabled variant below its provider cost goes through only once staff confirmed it by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from storefront.services.admin.product_forms import INVALID_PRICE
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.services.platform.money import format_usd


@dataclass(frozen=True, slots=True)
class PricedVariant:
    """What the rule needs of a variant: its id, price and cost in cents, whether it is sold."""

    id: int
    label: str
    price_cents: int
    cost_cents: int
    enabled: bool


@dataclass(frozen=True, slots=True)
class BaseMove:
    """A product's variants moved to a new base price."""

    base_cents: int
    new_base_cents: int
    #: The provider's update: every variant with its new price and unchanged enabled flag.
    variants: list[dict[str, Any]]
    #: Labels of the enabled variants that would sell below their provider cost.
    below_cost: list[str]

    @property
    def changed(self) -> bool:
        return self.new_base_cents != self.base_cents


class BelowCostError(ServiceError):
    """The move sells variants below their provider cost and staff have not confirmed it."""

    status_code = 409

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)
        super().__init__(below_cost_text(self.labels), {"belowCost": self.labels})


def below_cost_text(labels: Sequence[str]) -> str:
    """What the confirmation says: which variants would sell below what the provider charges."""
    return f"Below provider cost at this price: {', '.join(labels)}. Confirm to save anyway."


def provider_variants(product: Mapping[str, Any]) -> list[PricedVariant]:
    """The variants of a provider product (prices and costs in cents), in the provider's order."""
    return [
        PricedVariant(
            id=int(v["id"]),
            label=str(v.get("title") or v["id"]),
            price_cents=int(v.get("price") or 0),
            cost_cents=int(v.get("cost") or 0),
            enabled=bool(v.get("is_enabled", True)),
        )
        for v in product.get("variants") or []
    ]


def base_price(prices: Iterable[tuple[int, bool]]) -> int | None:
    """The first enabled (price, enabled) pair's price, else the first price; None without any."""
    pairs = list(prices)
    enabled = [price for price, on in pairs if on]
    if enabled:
        return enabled[0]
    return pairs[0][0] if pairs else None


def upcharges(prices: Iterable[tuple[int, bool]]) -> list[int]:
    """The distinct amounts enabled variants cost above the base price, smallest first."""
    pairs = list(prices)
    base = base_price(pairs)
    if base is None:
        return []
    return sorted({price - base for price, on in pairs if on and price > base})


def upcharge_note(prices: Iterable[tuple[int, bool]]) -> str:
    """What the price field means: 'Base price; larger sizes keep their +$2.00 / +$3.00'."""
    extra = upcharges(prices)
    if not extra:
        return "Base price: every size sells at it"
    return "Base price; larger sizes keep their " + " / ".join(f"+{format_usd(cents)}" for cents in extra)


def move_base(variants: Sequence[PricedVariant], new_base_cents: int) -> BaseMove:
    """Every variant moved by (new base - base); refused with 'Invalid price value' when any would
    fall below zero."""
    base = base_price((v.price_cents, v.enabled) for v in variants)
    if base is None:  # no variant: nothing to price
        return BaseMove(base_cents=new_base_cents, new_base_cents=new_base_cents, variants=[], below_cost=[])
    delta = new_base_cents - base
    moved = [(v, v.price_cents + delta) for v in variants]
    if any(price < 0 for _, price in moved):
        raise ValidationError(INVALID_PRICE, {"price": INVALID_PRICE})
    return BaseMove(
        base_cents=base,
        new_base_cents=new_base_cents,
        variants=[{"id": v.id, "price": price, "is_enabled": v.enabled} for v, price in moved],
        below_cost=[v.label for v, price in moved if v.enabled and v.cost_cents and price < v.cost_cents],
    )


def confirmed(move: BaseMove, below_cost_confirmed: bool) -> BaseMove:
    """The move, once staff confirmed any variant it sells below cost (else BelowCostError)."""
    if move.below_cost and not below_cost_confirmed:
        raise BelowCostError(move.below_cost)
    return move
