"""Time the hot paths on a seeded SQLite store and print a table (`make bench`)."""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlmodel import Session

from storefront.db import make_engine, migrate
from storefront.services import cart, catalog, checkout
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.seed import seed_catalogue_if_empty
from storefront.services.shopping import new_cart_line


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


def main() -> None:
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
        print(f"| {'operation':<42} | {'median ms':>9} | {'p95 ms':>7} | {'runs':>5} |")
        print(f"|{'-' * 44}|{'-' * 11}|{'-' * 9}|{'-' * 7}|")
        for name, run, repeat in rows:
            median, p95 = measure(run, repeat)
            print(f"| {name:<42} | {median:>9.3f} | {p95:>7.3f} | {repeat:>5} |")
        session.close()
        engine.dispose()


if __name__ == "__main__":
    main()
