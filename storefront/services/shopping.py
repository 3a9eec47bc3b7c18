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


def _no_variants() -> ValidationError:
    return ValidationError(NO_VARIANTS_TEXT, {"size": NO_VARIANTS_TEXT})


def _size_required() -> ValidationError:
    return ValidationError(SIZE_REQUIRED, {"size": SIZE_REQUIRED})


def _priced_line(session: Session, product: catalog.ProductDetail, size: str, quantity: int) -> CartLine:
    """The line for `size` of a loaded product, priced by catalog.line_price."""
    if not product.has_variants and not product.is_sample:
        raise _no_variants()
    price = catalog.line_price(session, product.id, size)
    return CartLine(
        product_id=product.id,
        name=product.name,
        price_cents=price.price_cents,
        size=size,
        image=product.image_url,
        quantity=quantity,
        variant_id=price.variant_id,
    )


def new_cart_line(session: Session, product_id: str, size: str, quantity: int = 1) -> CartLine:
    """A cart line priced from the catalogue; refuses a missing size or a product without variants."""
    if not size:
        raise _size_required()
    return _priced_line(session, catalog.get_product(session, product_id), size, quantity)


def quick_add_line(session: Session, product_id: str) -> CartLine:
    """Quick Add's line: the product's only size; a product with several sizes needs a choice."""
    product = catalog.get_product(session, product_id)
    if not product.has_variants or not product.sizes:
        raise _no_variants()
    if len(product.sizes) > 1:
        raise _size_required()
    return _priced_line(session, product, product.sizes[0], 1)


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
