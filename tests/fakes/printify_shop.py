"""A fake Printify shop to run the store against, as if it were Printify (no account needed).

    .venv/bin/python -m tests.fakes.printify_shop --port 8765
    # then, in another shell, the printed settings and `make run`
    .venv/bin/python -m tests.fakes.printify_shop ship SF-000001   # ships an order, sends the webhook

It serves the fake API of `printify_server.py` on a fixed port with a shop of products across the
five collections (some in two colours), mockup images it draws itself, and a `ship` control that
ships an order and delivers the signed `order:shipment:created` webhook to the store.
"""

from __future__ import annotations

import argparse
import sys
import threading

import httpx

from tests.fakes.printify_server import CONTROL_SHIP_PATH, DEFAULT_TOKEN, FakePrintifyServer

DEFAULT_PORT = 8765
DEFAULT_SECRET = "fake-webhook-secret"
#: (title, tags, price in cents, colours): titles and tags carry the collection keywords.
PRODUCTS: tuple[tuple[str, list[str], int, tuple[str, ...]], ...] = (
    ("Nupe Founders Tee", ["nupe"], 2800, ("White", "Black")),
    ("Nupe Crest Tee", ["nupe"], 2600, ("White",)),
    ("Kappa Diamond Tee", ["kappa"], 2900, ("Black", "White")),
    ("Kappa Script Tee", ["kappa"], 2700, ("White",)),
    ("Red Line Tee", ["red"], 2500, ("White", "Black")),
    ("Red Chapter Tee", ["red"], 2500, ("Black",)),
    ("Zeta Blue Tee", ["zeta"], 2800, ("White",)),
    ("Zeta Dove Tee", ["zeta"], 2800, ("White", "Black")),
    ("Poodle Strut Tee", ["poodle"], 2600, ("White",)),
    ("Poodle Gold Tee", ["poodle"], 3000, ("Black", "White")),
)


def seeded_shop(token: str = DEFAULT_TOKEN, port: int = 0) -> FakePrintifyServer:
    """A started fake with the shop's products and self-served mockups."""
    fake = FakePrintifyServer(token).start(port, serve_images=True)
    for title, tags, price, colours in PRODUCTS:
        product = fake.add_product(title, price=price, colours=colours, sizes=("S", "M", "L", "XL"))
        with fake.lock:
            stored = fake.products[fake.shop_id][product["id"]]
            stored["tags"] = tags
            stored["description"] = f"<p>{title}, printed on demand by the fake Printify shop.</p>"
    return fake


def serve(args: argparse.Namespace) -> None:
    fake = seeded_shop(args.token, args.port)
    fake.webhook_url = args.webhook_url
    fake.webhook_secret = args.webhook_secret
    print(f"Fake Printify shop {fake.shop_id} with {len(fake.products[fake.shop_id])} products at {fake.base_url}")
    print("Run the store against it with:")
    print(f"  PRINTIFY_API_TOKEN={args.token} PRINTIFY_API_BASE={fake.base_url} "
          f"PRINTIFY_WEBHOOK_SECRET={args.webhook_secret} IMAGE_FETCH_ALLOWED_NETWORKS=127.0.0.1 make run")
    print(f"Ship an order (and send its webhook to {args.webhook_url}):")
    print(f"  .venv/bin/python -m tests.fakes.printify_shop ship <order number> --port {fake.port}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


def ship(args: argparse.Namespace) -> None:
    response = httpx.post(f"http://127.0.0.1:{args.port}{CONTROL_SHIP_PATH}", json={"external_id": args.number})
    if response.status_code != 200:
        sys.exit(f"The fake could not ship {args.number}: {response.status_code} {response.text}")
    shipment = response.json()["shipments"][-1]
    print(f"Shipped {args.number}: {shipment['carrier']} {shipment['number']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tests.fakes.printify_shop")
    parser.add_argument("command", nargs="?", choices=["serve", "ship"], default="serve")
    parser.add_argument("number", nargs="?", help="the order number to ship (ship)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--token", default=DEFAULT_TOKEN)
    parser.add_argument("--webhook-url", default="http://localhost:3000/api/printify/webhooks")
    parser.add_argument("--webhook-secret", default=DEFAULT_SECRET)
    args = parser.parse_args(argv)
    if args.command == "ship":
        if not args.number:
            parser.error("ship needs an order number")
        ship(args)
    else:
        serve(args)


if __name__ == "__main__":
    main()
