"""Helpers shared by the ordering tests: a seeded demo catalogue and the spec's order payload."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.services.catalog import catalog
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.platform.signing import LinkSigner
from storefront.services.printify.demo import DemoPrintProvider

SHIPPING_ADDRESS: dict[str, str] = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "address1": "12 Analytical Row",
    "address2": "",
    "city": "Albany",
    "state_code": "NY",
    "country_code": "US",
    "zip": "12207",
}
GOOD_CARD: dict[str, str] = {
    "cardNumber": "4242 4242 4242 4242",
    "expiryDate": "12/39",
    "cvv": "739",
    "cardholderName": "Ada Lovelace",
}
DECLINED_CARD: dict[str, str] = {**GOOD_CARD, "cardNumber": "4000 0000 0000 0002"}
#: The order emails the services under test queue (the store's are built by the wiring).
ORDER_EMAILS = OrderEmails("https://shop.example", LinkSigner(b"test-signing-key"))


@dataclass(frozen=True)
class Pick:
    """A product the shopper can order, with a size and its catalogue price."""

    product_id: str
    name: str
    size: str
    price_cents: int

    @property
    def price(self) -> float:
        return self.price_cents / 100


def seed_demo(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    """Copy the demo provider's catalogue into the database; returns the provider."""
    provider = DemoPrintProvider(media_dir=tmp_path / "demo", media_url="/uploads/demo")
    with Session(engine) as session:
        seed_catalogue_if_empty(session, provider)
        session.commit()
    return provider


def pick(engine: Engine, index: int = 0, size: str = "M") -> Pick:
    """The index-th newest shown product, in the given size."""
    with Session(engine) as session:
        product = catalog.search_products(session)[index]
        price = catalog.line_price(session, product.id, size)
    return Pick(product.id, product.name, size, price.price_cents)


def order_payload(*lines: tuple[Pick, int], **overrides: Any) -> dict[str, Any]:
    """The spec's order payload for (pick, quantity) lines at catalogue prices."""
    items = [
        {
            "productId": p.product_id,
            "printifyProductId": p.product_id,
            "name": p.name,
            "size": p.size,
            "price": p.price,
            "quantity": quantity,
            "imageUrl": "/images/product-placeholder.jpg",
        }
        for p, quantity in lines
    ]
    subtotal = round(sum(p.price_cents * q for p, q in lines) / 100, 2)
    payload: dict[str, Any] = {
        "customerEmail": "ada@example.com",
        "customerName": "Ada Lovelace",
        "customerPhone": "+1 518 555 0100",
        "shippingAddress": copy.deepcopy(SHIPPING_ADDRESS),
        "billingAddress": copy.deepcopy(SHIPPING_ADDRESS),
        "sameAsShipping": True,
        "items": items,
        "subtotal": subtotal,
        "shipping": 0 if subtotal > 100 else 9.99,
        "tax": 0,
        "total": round(subtotal + (0 if subtotal > 100 else 9.99), 2),
    }
    payload.update(overrides)
    return payload


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class RecordedSleeps:
    """Stands in for asyncio.sleep: keeps each delay asked for, so tests need not wait them out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
