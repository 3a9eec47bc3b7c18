"""Service hot paths timed on a seeded SQLite store (no server, no browser)."""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session

from storefront.db import make_engine, migrate
from storefront.services.catalog import catalog
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.orders import cart, checkout
from storefront.services.orders.shopping import new_cart_line
from storefront.services.printify.demo import DemoPrintProvider


@dataclass(frozen=True)
class Timing:
    """Median and p95 in milliseconds of one operation over `runs` runs."""

    operation: str
    median_ms: float
    p95_ms: float
    runs: int


def measure(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and p95 in milliseconds over `repeat` runs (after one warm-up)."""
    run()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def time_hot_paths() -> list[Timing]:
    """Listing, search, detail, pricing, cart loading and order placing on the demo catalogue."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        migrate(url)
        engine = make_engine(url)
        provider = DemoPrintProvider(media_dir=Path(tmp) / "demo")
        with Session(engine) as session:
            seed_catalogue_if_empty(session, provider)
            session.commit()
        session = Session(engine)
        product = catalog.search_products(session, query="tee")[0]
        line = new_cart_line(session, product.id, "M")
        stored = cart.dump_cart([line] * 1 + [new_cart_line(session, product.id, s) for s in ("S", "L", "XL")])

        def place_order() -> None:
            payload = {
                "customerEmail": "bench@example.com",
                "customerName": "Bench Mark",
                "shippingAddress": {
                    "first_name": "Bench", "last_name": "Mark", "address1": "1 Main St", "city": "Albany",
                    "state_code": "NY", "country_code": "US", "zip": "12207",
                },
                "items": [{"productId": product.id, "size": "M", "price": line.price_cents / 100, "quantity": 2}],
                "subtotal": line.price_cents * 2 / 100,
            }
            with Session(engine, expire_on_commit=False) as order_session:
                checkout.create_order(order_session, payload, uuid.uuid4().hex)

        rows = [
            ("catalogue listing (all products)", lambda: catalog.search_products(session), 200),
            ("catalogue search 'hoodie'", lambda: catalog.search_products(session, query="hoodie"), 200),
            ("product detail", lambda: catalog.get_product(session, product.id), 200),
            ("price a cart line", lambda: new_cart_line(session, product.id, "M"), 200),
            ("load a stored cart (4 lines)", lambda: cart.load_cart(stored), 2000),
            ("place an order (validate, reprice, save)", place_order, 100),
        ]
        timings = [Timing(name, *measure(run, repeat), repeat) for name, run, repeat in rows]
        session.close()
        engine.dispose()
    return timings
