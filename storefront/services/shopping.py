"""Turning a shopper's pick (product and size) into a priced cart line from the catalogue."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from storefront.services import catalog
from storefront.services.cart import CartLine
from storefront.services.errors import NotFoundError, ValidationError

SIZE_REQUIRED = "Please select a size"
NO_VARIANTS_TITLE = "Cannot add to cart"
NO_VARIANTS_TEXT = "No variants available for this product"


def new_cart_line(session: Session, product_id: str, size: str, quantity: int = 1) -> CartLine:
    """A cart line priced from the catalogue; refuses a missing size or a product without variants."""
    if not size:
        raise ValidationError(SIZE_REQUIRED, {"size": SIZE_REQUIRED})
    product = catalog.get_product(session, product_id)
    if not product.has_variants and not product.is_sample:
        raise ValidationError(NO_VARIANTS_TEXT, {"size": NO_VARIANTS_TEXT})
    price = catalog.line_price(session, product_id, size)
    return CartLine(
        product_id=product.id,
        name=product.name,
        price_cents=price.price_cents,
        size=size,
        image=product.image_url,
        quantity=quantity,
        variant_id=price.variant_id,
    )


def refresh_lines(session: Session, lines: Sequence[CartLine]) -> tuple[list[CartLine], int]:
    """The cart with today's catalogue prices, names and images; returns it and how many lines
    were dropped because their product or size is no longer sold."""
    fresh: list[CartLine] = []
    for line in lines:
        try:
            current = new_cart_line(session, line.product_id, line.size, line.quantity)
        except (NotFoundError, ValidationError):
            continue
        fresh.append(current)
    return fresh, len(lines) - len(fresh)
