"""Store-catalogue routes over HTTP, on the demo catalogue and on a store that cannot answer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.shopify import throttle as store_throttle
from storefront.services.shopify.catalogue import (
    COLLECTIONS_FAILED,
    INVALID_CURSOR,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    StoreCollection,
    StorePage,
    StoreProduct,
    StoreStatus,
    StoreUnavailable,
)
from storefront.services.shopify.client import ShopifyCatalogue
from storefront.services.shopify.demo import DemoStoreCatalogue
from storefront.services.shopify.health import STATUS_TTL, StoreHealth
from storefront.services.shopify.throttle import STORE_REQUESTS_PER_MINUTE, TOO_MANY_STORE_REQUESTS
from tests.fakes.shopify_server import FakeShopifyServer


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", "")
    for name in ("SHOPIFY_ACCESS_TOKEN", "SHOPIFY_STOREFRONT_TOKEN", "SHOPIFY_STOREFRONT_PRIVATE_TOKEN"):
        monkeypatch.setenv(name, "")
    return Settings()


@pytest.fixture
def client(settings: Settings, engine: Engine) -> TestClient:
    return TestClient(create_api(settings, engine=engine))


class DownStore:
    """A store that cannot be reached."""

    async def status(self) -> StoreStatus:
        return StoreStatus(status="error", message="Shopify could not be reached.")

    async def products(self, **_: object) -> StorePage:
        raise StoreUnavailable(PRODUCTS_FAILED)

    async def product(self, product_id: int) -> StoreProduct:
        raise StoreUnavailable(PRODUCTS_FAILED)

    async def products_by_id(self, product_ids: object) -> dict[int, StoreProduct]:
        raise StoreUnavailable(PRODUCTS_FAILED)

    async def collections(self) -> list[StoreCollection]:
        raise StoreUnavailable(COLLECTIONS_FAILED)


@pytest.fixture
def down_client(settings: Settings, engine: Engine) -> TestClient:
    api = create_api(settings, engine=engine)
    api.state.store_catalogue = DownStore()
    return TestClient(api)


def _products(client: TestClient, **params: object) -> dict:
    response = client.get("/api/shopify/products", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_status_is_demo_without_shopify_settings(client: TestClient) -> None:
    body = client.get("/api/shopify/test").json()
    assert body["status"] == "demo"
    assert body["message"]


def test_products_come_in_shopifys_shape(client: TestClient) -> None:
    body = _products(client)
    assert body["nextCursor"] is None
    product = next(p for p in body["products"] if p["title"] == "Classic Crew Tee")
    assert isinstance(product["id"], int)
    assert product["vendor"] == "Northline Apparel"
    assert product["product_type"] == "T-Shirt"
    assert product["tags"] == "cotton, summer, unisex"
    assert product["image"]["src"].startswith("/uploads/demo/shopify/")
    assert product["images"][0]["src"] == product["image"]["src"]
    assert [o["name"] for o in product["options"]] == ["Color", "Size"]
    variant = product["variants"][0]
    assert variant["title"] == "Black / S" and variant["price"] == "24.00" and isinstance(variant["id"], int)


def test_demo_images_are_served_from_uploads(client: TestClient) -> None:
    src = _products(client, limit=1)["products"][0]["image"]["src"]
    response = client.get(src)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"


def test_a_product_without_a_price_says_so(client: TestClient) -> None:
    jersey = _products(client, query="jersey")["products"][0]
    assert {v["price"] for v in jersey["variants"]} == {None}


def test_descriptions_are_sanitised(client: TestClient) -> None:
    for product in _products(client, limit=250)["products"]:
        body = product["body_html"].lower()
        assert "<script" not in body and "onerror" not in body and "javascript:" not in body
        assert "onclick" not in body and "style=" not in body


def test_search_and_collection_filter(client: TestClient) -> None:
    assert [p["title"] for p in _products(client, query="hoodie")["products"]] == ["Pullover Hoodie", "Zip-Up Hoodie"]
    collections = client.get("/api/shopify/collections").json()["collections"]
    gifts = next(c for c in collections if c["title"] == "Gift Ideas")
    titles = {p["title"] for p in _products(client, collection_id=gifts["id"])["products"]}
    assert "Canvas Tote Bag" in titles and "Classic Crew Tee" not in titles
    assert len(_products(client, collection_id="all")["products"]) == len(_products(client)["products"])


def test_a_malformed_collection_id_is_refused(client: TestClient) -> None:
    assert client.get("/api/shopify/products", params={"collection_id": "abc"}).status_code == 422


def test_paging_with_next_cursor(client: TestClient) -> None:
    seen: list[int] = []
    params: dict[str, object] = {"limit": 5}
    while True:
        body = _products(client, **params)
        seen += [p["id"] for p in body["products"]]
        if body["nextCursor"] is None:
            break
        params["cursor"] = body["nextCursor"]
    assert len(seen) == len(set(seen)) == len(_products(client, limit=250)["products"])


@pytest.mark.parametrize("limit", [0, 251, "many"])
def test_limit_must_be_between_1_and_250(client: TestClient, limit: object) -> None:
    assert client.get("/api/shopify/products", params={"limit": limit}).status_code == 422


def test_a_bad_cursor_is_refused(client: TestClient) -> None:
    answer = client.get("/api/shopify/products", params={"cursor": "nope!"})
    assert (answer.status_code, answer.json()["error"]) == (422, INVALID_CURSOR)


def test_one_product(client: TestClient) -> None:
    first = _products(client, limit=1)["products"][0]
    response = client.get(f"/api/shopify/products/{first['id']}")
    assert response.status_code == 200
    assert response.json() == first


@pytest.mark.parametrize("product_id", ["1", "abc", "-5", "12.5", "99999999999999999999999"])
def test_unknown_or_malformed_product_is_not_found(client: TestClient, product_id: str) -> None:
    response = client.get(f"/api/shopify/products/{product_id}")
    assert response.status_code == 404
    assert response.json()["error"] == PRODUCT_NOT_FOUND


def test_collections(client: TestClient) -> None:
    collections = client.get("/api/shopify/collections").json()["collections"]
    assert [c["title"] for c in collections] == ["Gift Ideas", "Hoodies & Sweatshirts", "Summer Essentials"]
    assert all(set(c) == {"id", "title"} and isinstance(c["id"], int) for c in collections)


def test_the_catalogue_is_built_once_per_app(client: TestClient) -> None:
    client.get("/api/shopify/test")
    catalogue = client.app.state.store_catalogue  # type: ignore[attr-defined]
    assert isinstance(catalogue, DemoStoreCatalogue)
    client.get("/api/shopify/collections")
    assert client.app.state.store_catalogue is catalogue  # type: ignore[attr-defined]


def test_routes_are_public(client: TestClient) -> None:
    for path in ("/api/shopify/test", "/api/shopify/products", "/api/shopify/collections"):
        assert client.get(path).status_code == 200


def test_unreachable_store_products_are_a_502(down_client: TestClient) -> None:
    response = down_client.get("/api/shopify/products")
    assert response.status_code == 502
    assert response.json()["error"] == PRODUCTS_FAILED
    assert down_client.get("/api/shopify/products/123").status_code == 502


def test_unreachable_store_collections_are_a_502(down_client: TestClient) -> None:
    response = down_client.get("/api/shopify/collections")
    assert response.status_code == 502
    assert response.json()["error"] == COLLECTIONS_FAILED


def test_unreachable_store_status_is_reported(down_client: TestClient) -> None:
    body = down_client.get("/api/shopify/test").json()
    assert body == {"status": "error", "message": "Shopify could not be reached."}


def test_a_nul_in_a_store_search_is_dropped(client: TestClient) -> None:
    titles = [p["title"] for p in _products(client, query="classic\x00 crew")["products"]]
    assert "Classic Crew Tee" in titles


# --------------------------------------------------------------------------- the store's budget


class Clock:
    """Monotonic seconds the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


PINNED = datetime(2024, 6, 1, 12, 0, 5, tzinfo=UTC)


@pytest.fixture
def fake_store() -> Iterator[FakeShopifyServer]:
    with FakeShopifyServer() as server:
        yield server


def _store_api(settings: Settings, engine: Engine, fake: FakeShopifyServer, clock: Clock | None = None) -> FastAPI:
    api = create_api(settings, engine=engine, clock=lambda: PINNED)
    catalogue = ShopifyCatalogue(shop_root=fake.base_url, storefront_token=fake.token, clock=clock or time.monotonic)
    api.state.store_catalogue = catalogue
    if clock is not None:
        api.state.store_health = StoreHealth(catalogue, clock=clock)
    return api


def test_100_status_checks_ask_shopify_once_a_minute(
    settings: Settings, engine: Engine, fake_store: FakeShopifyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_throttle, "STORE_REQUESTS_PER_MINUTE", 1000)  # the throttle is tested apart
    clock = Clock()
    with TestClient(_store_api(settings, engine, fake_store, clock)) as client:
        answers = [client.get("/api/shopify/test") for _ in range(100)]
        assert {(a.status_code, a.json()["status"]) for a in answers} == {(200, "connected")}
        assert len(fake_store.requests_to("storefront", "shop {")) == 1
        clock.now += STATUS_TTL + 1
        assert client.get("/api/shopify/test").json()["status"] == "connected"
        assert len(fake_store.requests_to("storefront", "shop {")) == 2


def test_an_unknown_product_asked_twice_reaches_shopify_once(
    settings: Settings, engine: Engine, fake_store: FakeShopifyServer
) -> None:
    with TestClient(_store_api(settings, engine, fake_store)) as client:
        for _ in range(2):
            response = client.get("/api/shopify/products/987654321")
            assert (response.status_code, response.json()["error"]) == (404, PRODUCT_NOT_FOUND)
    assert len(fake_store.requests_to("storefront", "product(id:")) == 1


def test_the_store_routes_answer_429_past_the_per_address_limit(
    settings: Settings, engine: Engine, fake_store: FakeShopifyServer
) -> None:
    with TestClient(_store_api(settings, engine, fake_store, Clock())) as client:
        paths = ["/api/shopify/test", "/api/shopify/collections", "/api/shopify/products/987654321"]
        codes = [client.get(paths[n % 3]).status_code for n in range(STORE_REQUESTS_PER_MINUTE)]
        assert 429 not in codes
        refused = client.get("/api/shopify/products", params={"query": "tee"})
        asked = len(fake_store.requests)
        assert client.get("/api/shopify/products/123456789").status_code == 429
        assert len(fake_store.requests) == asked  # refused before it costs the store anything
    assert refused.status_code == 429
    assert refused.json()["error"] == TOO_MANY_STORE_REQUESTS
    assert int(refused.headers["Retry-After"]) == 55  # the minute's window ends 55 s after 12:00:05


def test_the_status_route_answers_connected_on_the_admin_fallback_and_error_for_a_refused_token(
    settings: Settings, engine: Engine, fake_store: FakeShopifyServer
) -> None:
    for options, expected in (({"admin_token": fake_store.admin_token}, "connected"),
                              ({"storefront_token": "sf_wrong"}, "error")):
        api = create_api(settings, engine=engine, clock=lambda: PINNED)
        api.state.store_catalogue = ShopifyCatalogue(shop_root=fake_store.base_url, **options)
        with TestClient(api) as client:
            answer = client.get("/api/shopify/test").json()
            listed = client.get("/api/shopify/products", params={"limit": 5})
        assert answer["status"] == expected, answer
        if expected == "error":
            assert "401" in answer["message"] and "sf_wrong" not in answer["message"]
            assert listed.status_code == 502 and listed.json()["error"] == PRODUCTS_FAILED
        else:
            assert len(listed.json()["products"]) == 5
    assert {r.api for r in fake_store.requests} == {"admin", "storefront"}


def test_a_cursor_shopify_refuses_is_the_clients_422_in_our_words(
    settings: Settings, engine: Engine, fake_store: FakeShopifyServer
) -> None:
    with TestClient(_store_api(settings, engine, fake_store)) as client:
        first = client.get("/api/shopify/products", params={"limit": 2}).json()
        collection = client.get("/api/shopify/collections").json()["collections"][0]["id"]
        for params in ({"cursor": "abc"}, {"cursor": "abc", "collection_id": collection}):
            answer = client.get("/api/shopify/products", params=params)
            assert answer.status_code == 422, (params, answer.text)
            assert answer.json() == {"error": INVALID_CURSOR, "details": {"cursor": INVALID_CURSOR}}
            assert "pagination" not in answer.text  # Shopify's own text stays out
        following = client.get("/api/shopify/products", params={"limit": 2, "cursor": first["nextCursor"]})
    assert following.status_code == 200 and following.json()["products"][0]["id"] != first["products"][0]["id"]
