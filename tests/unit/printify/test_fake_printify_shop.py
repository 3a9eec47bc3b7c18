"""The fake Printify shop the store can be run against (`python -m tests.fakes.printify_shop`)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from storefront.services.catalog.catalog import derive_collection, plain_text
from storefront.services.catalog.sync import variant_labels
from storefront.services.collections import COLLECTIONS
from tests.fakes.printify_server import CONTROL_SHIP_PATH, FakePrintifyServer
from tests.fakes.printify_shop import PRODUCTS, seeded_shop

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def shop() -> Iterator[FakePrintifyServer]:
    fake = seeded_shop()
    yield fake
    fake.stop()


def _products(shop: FakePrintifyServer) -> list[dict]:
    headers = {"Authorization": f"Bearer {shop.token}", "User-Agent": "test"}
    response = httpx.get(f"{shop.base_url}shops/{shop.shop_id}/products.json", params={"limit": 50}, headers=headers)
    return response.json()["data"]


def test_the_shop_fills_every_collection_and_offers_colours(shop: FakePrintifyServer) -> None:
    products = _products(shop)
    assert len(products) == len(PRODUCTS)
    keys = {derive_collection(p["tags"], p["title"], plain_text(p["description"])) for p in products}
    assert keys == {collection.key for collection in COLLECTIONS}
    colours = [{colour for colour, _ in variant_labels(p).values()} for p in products]
    assert any(len(c) > 1 for c in colours) and any(len(c) == 1 for c in colours)


def test_mockups_are_served_by_the_fake_itself(shop: FakePrintifyServer) -> None:
    src = _products(shop)[0]["images"][0]["src"]
    assert src.startswith(f"http://127.0.0.1:{shop.port}/mockups/")
    response = httpx.get(src)
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert response.content.startswith(PNG_MAGIC)
    assert httpx.get(f"http://127.0.0.1:{shop.port}/mockups/nope").status_code == 404


def test_the_ship_control_ships_an_order_by_its_external_id(shop: FakePrintifyServer) -> None:
    product = _products(shop)[0]
    variant = next(v for v in product["variants"] if v["is_enabled"])
    address = {"first_name": "Ada", "last_name": "L", "country": "US", "region": "NY", "address1": "1 Row",
               "city": "Albany", "zip": "12207", "email": "a@example.com", "phone": ""}
    headers = {"Authorization": f"Bearer {shop.token}", "User-Agent": "test"}
    body = {"external_id": "SF-000042", "line_items": [{"product_id": product["id"], "variant_id": variant["id"],
                                                          "quantity": 1}], "shipping_method": 1, "address_to": address}
    assert httpx.post(f"{shop.base_url}shops/{shop.shop_id}/orders.json", json=body, headers=headers).status_code == 200
    shipped = httpx.post(f"http://127.0.0.1:{shop.port}{CONTROL_SHIP_PATH}", json={"external_id": "SF-000042"})
    assert shipped.status_code == 200
    assert shipped.json()["status"] == "fulfilled" and shipped.json()["shipments"][0]["number"]
    unknown = httpx.post(f"http://127.0.0.1:{shop.port}{CONTROL_SHIP_PATH}", json={"external_id": "SF-404"})
    assert unknown.status_code == 404
