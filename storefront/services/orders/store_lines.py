"""Cart lines of the store catalogue (Shopify): priced, named and pictured by the store on the
server, never by the browser. Our own lines are priced from the catalogue cache (services/orders/shopping.py)."""

from __future__ import annotations

from storefront.services.orders import cart
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify import ids
from storefront.services.shopify.catalogue import (
    PRODUCT_FAILED,
    STATUS_DEMO,
    CheckoutLine,
    StoreCatalogue,
    StoreCheckout,
    StoreProduct,
    StoreStatus,
)

STORE_PRODUCT_ERROR = PRODUCT_FAILED
#: The demo catalogue has no store behind it to check out on, so its items are never put in a cart.
DEMO_NOT_FOR_SALE = "Demo catalogue: this item cannot be bought here"
NOTHING_TO_CHECK_OUT = "There is nothing from the store in your cart to check out."


def purchase_refusal(status: StoreStatus) -> str:
    """Why the store catalogue's items cannot be added to a cart ("" when they can)."""
    return DEMO_NOT_FOR_SALE if status.status == STATUS_DEMO else ""


def store_line(product: StoreProduct, variant_id: str, quantity: int) -> cart.CartLine:
    """A store-catalogue cart line priced from the store: the variant title is its size.
    NotFoundError when the product has no such variant or the variant has no price."""
    variant = next((v for v in product.variants if str(v.id) == str(variant_id).strip()), None)
    if variant is None or variant.price_cents is None:
        raise NotFoundError(STORE_PRODUCT_ERROR)
    image = product.image
    return cart.CartLine(
        product_id=str(product.id),
        name=product.title,
        price_cents=variant.price_cents,
        size=variant.title or "Default Title",
        image=image.src if image is not None else "",
        quantity=cart.clamp_quantity(quantity),
        variant_id=str(variant.id),
        source=cart.SOURCE_STORE,
        variant_gid=variant.gid,
    )


async def priced_store_line(
    catalogue: StoreCatalogue,
    product_id: object,
    variant_id: object,
    quantity: object,
    *,
    status: StoreStatus | None = None,
) -> cart.CartLine:
    """The cart line for a pick on the store catalogue's product page, priced by the store.
    ValidationError(DEMO_NOT_FOR_SALE) for the demo catalogue (judged from `status`, else from
    the catalogue's own status), NotFoundError for an unknown product or variant (or an unreadable
    id), StoreUnavailable when the store cannot answer; a quantity that is not a whole number counts as 1."""
    refusal = purchase_refusal(status if status is not None else await catalogue.status())
    if refusal:
        raise ValidationError(refusal)
    count = cart.parse_quantity(quantity)
    if count is None and isinstance(quantity, str) and quantity.strip().isascii() and quantity.strip().isdigit():
        count = int(quantity.strip())
    try:
        store_id = int(str(product_id).strip())
    except ValueError:
        raise NotFoundError(STORE_PRODUCT_ERROR) from None
    product = await catalogue.product(store_id)
    return store_line(product, str(variant_id), count if count is not None else 1)


async def repriced_store_lines(
    catalogue: StoreCatalogue, lines: list[cart.CartLine]
) -> tuple[list[cart.CartLine], int]:
    """The store lines with today's store prices, names and images, their products read together
    (one request to the store for up to 250 of them); lines whose product or variant is gone are
    dropped and counted. StoreUnavailable when the store cannot answer, so the caller leaves the
    lines as they are."""
    ids = [int(pid) for pid in dict.fromkeys(line.product_id for line in lines) if _is_id(pid)]
    products = await catalogue.products_by_id(ids) if ids else {}
    fresh: tuple[cart.CartLine, ...] = ()
    dropped = 0
    for line in lines:
        product = products.get(int(line.product_id)) if _is_id(line.product_id) else None
        try:
            if product is None:
                raise NotFoundError(STORE_PRODUCT_ERROR)
            current = store_line(product, line.variant_id or "", line.quantity)
        except NotFoundError:
            dropped += 1
            continue
        fresh = cart.add_line(fresh, current)
    return list(fresh), dropped


def _is_id(product_id: str) -> bool:
    """Whether a stored id can be a store product's (a positive 64-bit integer)."""
    return product_id.isascii() and product_id.isdigit() and 0 < int(product_id) < 2**63


def checkout_line(line: cart.CartLine) -> CheckoutLine | None:
    """A store line as the store's checkout takes it: its variant gid (derived from the numeric id
    for a line stored before gids); None for a line without a usable variant."""
    gid = line.variant_gid
    if not gid:
        try:
            gid = ids.shopify_gid(ids.VARIANT, line.variant_id or "")
        except ValueError:
            return None
    return CheckoutLine(variant_gid=gid, variant_id=str(ids.numeric_id(gid, ids.VARIANT)),
                        quantity=line.quantity, label=f"{line.name} - {line.size}")


async def store_checkout(catalogue: StoreCatalogue, lines: list[cart.CartLine]) -> StoreCheckout:
    """Hand the cart's store lines to the store: a cart there and the address of its checkout, or
    what the store refused in plain words. ValidationError when there is nothing to hand over or
    the catalogue sells nothing (the demo); StoreUnavailable when the store cannot answer."""
    handed = [c for c in (checkout_line(line) for line in cart.store_lines(lines)) if c is not None]
    if not handed:
        raise ValidationError(NOTHING_TO_CHECK_OUT)
    return await catalogue.checkout(handed)
