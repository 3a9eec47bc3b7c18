"""Turning a shopper's pick (product, colour and size) into a priced cart line from the catalogue."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from storefront.services.catalog import catalog
from storefront.services.orders.cart import CartLine, add_line
from storefront.services.platform.errors import NotFoundError, ValidationError

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


def _priced_line(
    session: Session, product: catalog.ProductDetail, size: str, quantity: int, color: str = ""
) -> CartLine:
    """The line for `size` in `color` of a loaded product, priced by catalog.line_price."""
    if not product.has_variants and not product.is_sample:
        raise _no_variants()
    price = catalog.line_price(session, product.id, size, color)
    image = next((choice.image_url for choice in product.colors if choice.name == price.color), product.image_url)
    return CartLine(
        product_id=product.id,
        name=product.name,
        price_cents=price.price_cents,
        size=size,
        image=image,
        quantity=quantity,
        variant_id=price.variant_id,
        color=price.color,
    )


def new_cart_line(session: Session, product_id: str, size: str, quantity: int = 1, color: str = "") -> CartLine:
    """A cart line priced from the catalogue; refuses a missing size or a product without variants.

    Without a colour, a product in several colours gets the first colour that comes in the size."""
    if not size:
        raise _size_required()
    return _priced_line(session, catalog.get_product(session, product_id), size, quantity, color)


def quick_add_line(session: Session, product_id: str) -> CartLine:
    """Quick Add's line: the product's only size in its only colour; several of either need a choice."""
    product = catalog.get_product(session, product_id)
    if not product.has_variants or not product.sizes:
        raise _no_variants()
    if len(product.sizes) > 1:
        raise _size_required()
    if product.colors:
        raise _color_required()
    return _priced_line(session, product, product.sizes[0], 1)


def refresh_lines(session: Session, lines: Sequence[CartLine]) -> tuple[list[CartLine], int]:
    """The cart with today's catalogue prices, names, images and colours; returns it and how many
    lines were dropped because their product, colour or size is no longer sold.

    A line stored without a colour takes the colour it resolves to, so it may merge with a line
    already in that colour."""
    fresh: tuple[CartLine, ...] = ()
    dropped = 0
    for line in lines:
        try:
            current = new_cart_line(session, line.product_id, line.size, line.quantity, line.color)
        except (NotFoundError, ValidationError):
            dropped += 1
            continue
        fresh = add_line(fresh, current)
    return list(fresh), dropped
