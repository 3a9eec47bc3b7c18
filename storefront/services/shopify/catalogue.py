"""The store catalogue's read model and the interface both sources implement (the demo catalogue
and the Shopify GraphQL client), so pages and the API never know which one answers.

Ids: Shopify names everything with gids (`gid://shopify/ProductVariant/N`); the read model keeps
the gid (`gid`) and the numeric id (`id`) the spec's routes and cart items use, the latter derived
from the former in one place (`ids.numeric_id`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal, Protocol

from storefront.services.platform.errors import ServiceError

STATUS_DEMO: Final = "demo"
STATUS_CONNECTED: Final = "connected"
STATUS_ERROR: Final = "error"
Status = Literal["demo", "connected", "error"]

PRODUCTS_FAILED = "Failed to load Shopify products. Please check API configuration or try again later."
COLLECTIONS_FAILED = "Failed to load Shopify collections. Please check API configuration or try again later."
PRODUCT_FAILED = "Failed to load product details. Please try again later."
PRODUCT_NOT_FOUND = "Product Not Found"
CHECKOUT_FAILED = "Could not open the store's checkout. Please try again later."
#: A page cursor this list did not hand out (the demo's and Shopify's alike).
INVALID_CURSOR = "Invalid cursor: pass the nextCursor of the previous page, or none for the first page."
MAX_PAGE_SIZE = 250


class StoreUnavailable(ServiceError):
    """The store could not answer (network, 5xx, 401/403, malformed body); the message is for people."""

    status_code = 502


@dataclass(frozen=True, slots=True)
class StoreImage:
    """An image: its original address and size, and the store's resized renditions (width, url)
    when it makes them (Shopify's `url(transform:)`)."""

    src: str
    alt: str = ""
    width: int = 0
    height: int = 0
    renditions: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class StoreVariant:
    """A variant: its title ('Default Title' without options) and price in cents (None when the
    store gives none or an unreadable one)."""

    id: int
    title: str
    price_cents: int | None
    options: tuple[str, ...] = ()
    gid: str = ""
    #: Whether the store sells it now (Shopify's availableForSale).
    available: bool = True


@dataclass(frozen=True, slots=True)
class StoreProduct:
    id: int
    title: str
    body_html: str
    vendor: str
    product_type: str
    tags: tuple[str, ...]
    option_names: tuple[str, ...]
    variants: tuple[StoreVariant, ...]
    images: tuple[StoreImage, ...]
    gid: str = ""
    handle: str = ""

    @property
    def image(self) -> StoreImage | None:
        return self.images[0] if self.images else None

    @property
    def price_cents(self) -> int | None:
        """The first variant's price (what a card shows)."""
        return self.variants[0].price_cents if self.variants else None


@dataclass(frozen=True, slots=True)
class StoreCollection:
    id: int
    title: str
    gid: str = ""


@dataclass(frozen=True, slots=True)
class StorePage:
    """A page of products and the opaque cursor of the next one ("" on the last page)."""

    products: tuple[StoreProduct, ...]
    next_cursor: str


@dataclass(frozen=True, slots=True)
class StoreStatus:
    """What /api/shopify/test answers: 'demo', 'connected' or 'error', with a message and the
    store's name and domain when connected."""

    status: Status
    message: str
    shop_name: str = ""
    domain: str = ""


@dataclass(frozen=True, slots=True)
class CheckoutLine:
    """A store line handed to the store's checkout: its variant (gid and numeric id), the quantity
    and how the shopper knows it ('Classic Tee - M'), for messages."""

    variant_gid: str
    variant_id: str
    quantity: int
    label: str


@dataclass(frozen=True, slots=True)
class StoreCheckout:
    """The store's answer to a checkout: where the shopper pays ("" when nothing can be bought) and,
    in plain words, what the store refused or changed (a sold-out line, a quantity over stock)."""

    checkout_url: str
    problems: tuple[str, ...] = ()


class StoreCatalogue(Protocol):
    """A source of store-catalogue products. Every method raises StoreUnavailable when the store
    cannot answer; `product` raises NotFoundError(PRODUCT_NOT_FOUND) for an unknown id."""

    async def status(self) -> StoreStatus: ...

    async def products(
        self, *, query: str = "", collection_id: int | None = None, cursor: str = "", limit: int = 24
    ) -> StorePage:
        """Products whose title contains `query` (case-insensitive), of one collection when given."""
        ...

    async def product(self, product_id: int) -> StoreProduct: ...

    async def products_by_id(self, product_ids: Sequence[int]) -> dict[int, StoreProduct]:
        """The active products among `product_ids`, read together (an absent id is not sold)."""
        ...

    async def collections(self) -> list[StoreCollection]:
        """Custom and smart collections, by title."""
        ...

    async def checkout(self, lines: Sequence[CheckoutLine]) -> StoreCheckout:
        """A cart on the store holding `lines`, and its checkout address. ValidationError when the
        catalogue sells nothing (the demo), StoreUnavailable when the store cannot answer."""
        ...


def price_cents(value: object) -> int | None:
    """Shopify's decimal-string price ('19.99') in cents; None when missing or unreadable."""
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    if not amount.is_finite() or amount < 0:
        return None
    return int((amount * 100).to_integral_value())


def parse_product(raw: dict[str, Any]) -> StoreProduct:
    """A product from Shopify's product JSON (the shape the demo catalogue is written in);
    ValueError or KeyError when it lacks an id or title."""
    tags = raw.get("tags") or ""
    options = [o for o in raw.get("options") or [] if isinstance(o, dict)]
    return StoreProduct(
        id=int(raw["id"]),
        title=str(raw["title"]),
        body_html=str(raw.get("body_html") or ""),
        vendor=str(raw.get("vendor") or ""),
        product_type=str(raw.get("product_type") or ""),
        tags=tuple(t.strip() for t in str(tags).split(",") if t.strip()),
        option_names=tuple(str(o.get("name") or "") for o in sorted(options, key=lambda o: o.get("position") or 0)),
        variants=tuple(
            StoreVariant(
                id=int(v["id"]),
                title=str(v.get("title") or ""),
                price_cents=price_cents(v.get("price")),
                options=tuple(str(v[k]) for k in ("option1", "option2", "option3") if v.get(k) is not None),
                gid=str(v.get("admin_graphql_api_id") or ""),
            )
            for v in raw.get("variants") or []
            if isinstance(v, dict) and v.get("id") is not None
        ),
        images=tuple(
            StoreImage(
                src=str(i["src"]),
                alt=str(i.get("alt") or ""),
                width=int(i.get("width") or 0),
                height=int(i.get("height") or 0),
            )
            for i in sorted(
                (i for i in raw.get("images") or [] if isinstance(i, dict) and i.get("src")),
                key=lambda i: i.get("position") or 0,
            )
        ),
        gid=str(raw.get("admin_graphql_api_id") or ""),
        handle=str(raw.get("handle") or ""),
    )
