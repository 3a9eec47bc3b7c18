"""Turning a shopper's pick (product, colour and size) into a priced cart line from the catalogue."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from storefront.services.catalog import catalog
from storefront.services.orders.cart import CartLine, add_line
from storefront.services.platform.errors import NotFoundError, ServiceError, ValidationError

SIZE_REQUIRED = "Please select a size"
COLOR_REQUIRED = "Please select a color"
NO_VARIANTS_TITLE = "Cannot add to cart"
NO_VARIANTS_TEXT = "No variants available for this product"


def _no_variants() -> ValidationError:
    return ValidationError(NO_VARIANTS_TEXT, {"size": NO_VARIANTS_TEXT})


def _size_required() -> ValidationError:
    return ValidationError(SIZE_REQUIRED, {"size": SIZE_REQUIRED})


def _color_required() -> ValidationError:
    return ValidationError(COLOR_REQUIRED, {"color": COLOR_REQUIRED})


@dataclass(frozen=True, slots=True)
class LinePick:
    """A line to price: the product, size and colour the shopper chose, and how many."""

    product_id: str
    size: str
    quantity: int = 1
    color: str = ""


def _priced_line(product: catalog.OrderableProduct | None, pick: LinePick) -> CartLine:
    """The line for a pick of a product already read (None: not a shown product)."""
    if not pick.size:
        raise _size_required()
    if product is None:  # unknown, hidden, or a sample (samples cannot be ordered)
        raise NotFoundError(catalog.PRODUCT_NOT_FOUND)
    if not product.has_variants:
        raise _no_variants()
    price = catalog.price_in(product.variants, pick.size, pick.color)
    return CartLine(
        product_id=product.id,
        name=product.name,
        price_cents=price.price_cents,
        size=pick.size,
        image=product.line_image(price.color),
        quantity=pick.quantity,
        variant_id=price.variant_id,
        color=price.color,
    )


def price_lines(session: Session, picks: Sequence[LinePick]) -> list[CartLine | ServiceError]:
    """Each pick as a line priced from the catalogue, or the error that refuses it, in order.

    The catalogue is read once for all of them (a constant number of queries, never one per line)."""
    products = catalog.orderable_products(session, (pick.product_id for pick in picks))
    results: list[CartLine | ServiceError] = []
    for pick in picks:
        try:
            results.append(_priced_line(products.get(pick.product_id), pick))
        except (NotFoundError, ValidationError) as refusal:
            results.append(refusal)
    return results


def new_cart_line(session: Session, product_id: str, size: str, quantity: int = 1, color: str = "") -> CartLine:
    """A cart line priced from the catalogue; refuses a missing size or a product without variants.

    Without a colour, a product in several colours gets the first colour that comes in the size."""
    if not size:
        raise _size_required()
    (result,) = price_lines(session, [LinePick(product_id, size, quantity, color)])
    if isinstance(result, ServiceError):
        raise result
    return result


def quick_add_line(session: Session, product_id: str) -> CartLine:
    """Quick Add's line: the product's only size in its only colour; several of either need a choice."""
    product = catalog.get_product(session, product_id)
    if not product.has_variants or not product.sizes:
        raise _no_variants()
    if len(product.sizes) > 1:
        raise _size_required()
    if product.colors:
        raise _color_required()
    return new_cart_line(session, product.id, product.sizes[0])


def refresh_lines(session: Session, lines: Sequence[CartLine]) -> tuple[list[CartLine], int]:
    """The cart with today's catalogue prices, names, images and colours; returns it and how many
    lines were dropped because their product, colour or size is no longer sold.

    A line stored without a colour takes the colour it resolves to, so it may merge with a line
    already in that colour."""
    picks = [LinePick(line.product_id, line.size, line.quantity, line.color) for line in lines]
    fresh: tuple[CartLine, ...] = ()
    dropped = 0
    for result in price_lines(session, picks):
        if isinstance(result, ServiceError):
            dropped += 1
            continue
        fresh = add_line(fresh, result)
    return list(fresh), dropped
