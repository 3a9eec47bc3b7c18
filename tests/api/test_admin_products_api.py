"""The product routes over HTTP on SQLite and PostgreSQL: status codes, bodies, the admin session."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.catalog import catalog
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.provider import validation_error
from tests.api.staff import as_owner, owner_headers
from tests.designs import design_data_url
from tests.ordering import order_payload, pick, seed_demo

PRODUCTS = "/api/printify/shops/1/products"
ADMIN_ROUTES = [
    ("GET", "/api/printify/shops/1/products"),
    ("GET", "/api/printify/shops/1/products/{id}"),
    ("GET", "/api/printify/shops/1/products/{id}/margins"),
    ("POST", "/api/printify/shops/1/products"),
    ("POST", "/api/printify/shops/1/products/{id}/publish"),
    ("POST", "/api/printify/shops/1/products/{id}/unpublish"),
    ("PUT", "/api/printify/shops/1/products/{id}"),
    ("POST", "/api/printify/shops/1/sync"),
    ("PUT", "/api/products/{id}/update"),
    ("PUT", "/api/products/{id}/category"),
    ("PUT", "/api/products/{id}/visibility"),
    ("POST", "/api/products/{id}/sync-price"),
    ("POST", "/api/products/{id}/sync"),
    ("POST", "/api/products/{id}/archive"),
    ("POST", "/api/products/{id}/restore"),
]
CREATE = {
    "title": "HWDZN Summer Tee",
    "description": "A light tee for hot summer days.",
    "blueprintId": 384,
    "printProviderId": 29,
    "shopId": 1,
    "design": design_data_url(),
}


class RefusingUpdates(DemoPrintProvider):
    """The demo provider refusing every change, like Printify's validation."""

    def update_product(self, shop_id: int, product_id: str, changes: dict) -> dict:
        raise validation_error("title: Refused for this test.")

    def create_product(self, shop_id: int, body: dict) -> dict:
        raise validation_error("blueprint_id: Refused for this test.")


def _client(engine: Engine, provider: DemoPrintProvider) -> TestClient:
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)


@pytest.fixture
def provider(engine: Engine, tmp_path: Path, settings_env: None) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


@pytest.fixture
def client(engine: Engine, provider: DemoPrintProvider) -> TestClient:
    return _client(engine, provider)


def _headers(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return _headers(client)


def _shown_id(engine: Engine, key: str = "hwdkn") -> str:
    with Session(engine) as session:
        return catalog.search_products(session, collection_key=key)[0].id


def _category_ids(client: TestClient, key: str) -> set[str]:
    response = client.get(f"/api/products/category/{key}", params={"limit": 100})
    assert response.status_code == 200
    return {product["id"] for product in response.json()["data"]}


# --------------------------------------------------------------------------- the admin session


@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES)
def test_product_routes_need_the_admin_session(client: TestClient, engine: Engine, method: str, path: str) -> None:
    url = path.replace("{id}", _shown_id(engine))
    for headers in ({}, {"x-admin-token": "not-a-token"}):
        response = client.request(method, url, headers=headers, json={})
        assert response.status_code == 401, (method, path, response.text)


def test_every_product_route_is_listed_here(client: TestClient) -> None:
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    product_routes = {
        (method.upper(), re.sub(r"\{shop_id\}", "1", re.sub(r"\{product_id\}", "{id}", path)))
        for path, methods in paths.items()
        for method in methods
        if path.startswith(("/api/printify/shops/{shop_id}", "/api/products/{product_id}"))
    }
    assert product_routes == set(ADMIN_ROUTES)


# --------------------------------------------------------------------------- list and read


def test_list_answers_a_page_of_rows(client: TestClient, admin: dict[str, str], provider: DemoPrintProvider) -> None:
    response = client.get(PRODUCTS, headers=admin, params={"limit": 5})
    assert response.status_code == 200
    body = response.json()
    assert (len(body["data"]), body["total"], body["hasMore"]) == (5, provider.list_products(1)["total"], True)
    row = body["data"][0]
    assert set(row) >= {"id", "title", "description", "price", "category", "status", "isActive", "variants"}
    assert re.fullmatch(r"\d+\.\d\d", row["price"]) and isinstance(row["variants"][0]["price"], int)


def test_list_searches_title_and_description(client: TestClient, admin: dict[str, str]) -> None:
    body = client.get(PRODUCTS, headers=admin, params={"q": "KANGAROO", "limit": 100}).json()
    assert body["total"] >= 5 and all("Hoodie" in row["title"] for row in body["data"])


# An address holds at most 64 KB (httpx, and servers refuse longer): the megabyte is a service test.
@pytest.mark.parametrize("q", ["kangaroo\x00", "\x00", "kangaroo" + "z" * 60_000 + "\x00"])
def test_list_answers_a_nul_or_megabyte_search_cleanly(client: TestClient, admin: dict[str, str], q: str) -> None:
    """A NUL broke the text search (503 'could not reach its database'); a long search is cut."""
    response = client.get(PRODUCTS, headers=admin, params={"q": q, "limit": 100})
    assert response.status_code == 200, response.text
    expected = client.get(PRODUCTS, headers=admin, params={"q": q.replace("\x00", ""), "limit": 100}).json()
    if len(q) < 100:
        assert response.json()["total"] == expected["total"]
    else:  # cut to 200 characters: 'kangarooz...' is in no product
        assert response.json()["total"] == 0


def test_list_refuses_a_bad_page(client: TestClient, admin: dict[str, str]) -> None:
    response = client.get(PRODUCTS, headers=admin, params={"limit": 500})
    assert response.status_code == 422 and response.json()["error"].startswith("Limit must be")


def test_one_product_is_read_from_the_provider(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    product_id = _shown_id(engine)
    response = client.get(f"{PRODUCTS}/{product_id}", headers=admin)
    assert response.status_code == 200
    assert response.json()["data"]["id"] == product_id and "cost" in response.json()["data"]["variants"][0]


def test_an_unknown_product_answers_404(client: TestClient, admin: dict[str, str]) -> None:
    response = client.get(f"{PRODUCTS}/{'0' * 24}", headers=admin)
    assert response.status_code == 404
    assert response.json()["error"] == "Failed to load products for selected shop"


def test_margins_are_price_minus_cost(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    data = client.get(f"{PRODUCTS}/{_shown_id(engine)}/margins", headers=admin).json()["data"]
    assert data and all(v["margin"] == v["price"] - v["cost"] > 0 for v in data)


# --------------------------------------------------------------------------- create and publish


def test_create_publish_and_the_category_page_shows_it(client: TestClient, admin: dict[str, str]) -> None:
    created = client.post(PRODUCTS, headers=admin, json=CREATE)
    assert created.status_code == 201, created.text
    row = created.json()["data"]
    assert (row["price"], row["status"], row["category"]) == ("29.99", "unpublished", "hwdzn")
    assert row["id"] not in _category_ids(client, "hwdzn")

    published = client.post(f"{PRODUCTS}/{row['id']}/publish", headers=admin, json={"publish_to_storefront": True})
    assert published.status_code == 200 and published.json()["data"]["status"] == "published"
    assert row["id"] in _category_ids(client, "hwdzn")

    unpublished = client.post(f"{PRODUCTS}/{row['id']}/unpublish", headers=admin)
    assert unpublished.status_code == 200 and unpublished.json()["data"]["status"] == "unpublished"
    assert row["id"] not in _category_ids(client, "hwdzn")


def test_create_accepts_printify_field_names_and_a_price(client: TestClient, admin: dict[str, str]) -> None:
    body = {"title": "Plain Hoodie", "description": "A hoodie with nothing on it.", "blueprint_id": 388,
            "print_provider_id": 1, "price": "45", "design": design_data_url()}
    row = client.post(PRODUCTS, headers=admin, json=body).json()["data"]
    prices = {v["size"]: v["price"] for v in row["variants"]}
    assert prices["S"] == prices["XL"] == 4500 and prices["3XL"] > 4500  # the big sizes keep their extra cost


def test_create_answers_the_spec_messages_for_a_bad_form(client: TestClient, admin: dict[str, str]) -> None:
    response = client.post(PRODUCTS, headers=admin, json={**CREATE, "title": "ab", "description": "short", "price": -1})
    assert response.status_code == 422
    assert response.json()["details"] == {
        "title": "Title must be at least 3 characters",
        "description": "Description must be at least 10 characters",
        "price": "Invalid price value",
    }


def test_a_provider_refusal_answers_with_its_details(engine: Engine, tmp_path: Path, settings_env: None) -> None:
    refusing = RefusingUpdates(media_dir=tmp_path / "demo")
    with Session(engine) as session:
        seed_catalogue_if_empty(session, refusing)
        session.commit()
    client = _client(engine, refusing)
    headers = _headers(client)
    response = client.post(PRODUCTS, headers=headers, json=CREATE)
    assert response.status_code == 502
    body = response.json()
    assert (body["error"], body["details"]) == ("Failed to create product", "blueprint_id: Refused for this test.")
    assert body["provider"]["code"] == 8150

    product_id = _shown_id(engine)
    update = client.put(
        f"/api/products/{product_id}/update", headers=headers, json={"title": "New", "price": "30", "shopId": 1}
    )
    assert (update.status_code, update.json()["error"]) == (502, "Failed to update product")
    assert client.get(PRODUCTS, headers=headers, params={"q": "New", "limit": 100}).json()["total"] == 0


def test_publish_of_an_unknown_product_answers_404(client: TestClient, admin: dict[str, str]) -> None:
    response = client.post(f"{PRODUCTS}/{'0' * 24}/publish", headers=admin, json={})
    assert (response.status_code, response.json()["error"]) == (404, "Failed to publish product")


# --------------------------------------------------------------------------- editing


def test_provider_shaped_update_with_tags_or_cent_prices(
    client: TestClient, admin: dict[str, str], engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine)
    tagged = client.put(f"{PRODUCTS}/{product_id}", headers=admin, json={"tags": ["HWDKN", "Gift"]})
    assert tagged.status_code == 200 and provider.get_product(1, product_id)["tags"] == ["HWDKN", "Gift"]
    variant_id = tagged.json()["data"]["variants"][0]["id"]
    priced = client.put(
        f"{PRODUCTS}/{product_id}", headers=admin,
        json={"title": "Renamed", "description": "<p>New</p>", "variants": [{"id": variant_id, "price": 3333}]},
    )
    assert priced.status_code == 200
    assert (priced.json()["data"]["title"], priced.json()["data"]["variants"][0]["price"]) == ("Renamed", 3333)
    dollars = client.put(
        f"{PRODUCTS}/{product_id}", headers=admin, json={"variants": [{"id": variant_id, "price": 33.33}]}
    )
    assert dollars.status_code == 422


def test_editor_save_over_http(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    product_id = _shown_id(engine, "hwdkn")
    response = client.put(
        f"/api/products/{product_id}/update",
        headers=admin,
        json={"title": "HWDKN Tee", "description": "<p>Gold</p>", "price": "26.00", "category": "hwdrn",
              "shopId": 1, "printifyProductId": product_id, "variants": []},
    )
    assert response.status_code == 200, response.text
    row = response.json()["data"]
    assert (row["title"], row["price"], row["category"]) == ("HWDKN Tee", "26.00", "hwdrn")
    assert product_id in _category_ids(client, "hwdrn")


@pytest.mark.parametrize("price", [-1, "abc", None])
def test_editor_save_refuses_an_invalid_price(
    client: TestClient, admin: dict[str, str], engine: Engine, price: Any
) -> None:
    response = client.put(
        f"/api/products/{_shown_id(engine)}/update", headers=admin, json={"title": "T", "price": price, "shopId": 1}
    )
    assert (response.status_code, response.json()["error"]) == (422, "Invalid price value")


def test_editor_save_finds_the_shop_of_a_cached_product(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    response = client.put(f"/api/products/{_shown_id(engine)}/update", headers=admin, json={"title": "T", "price": 30})
    assert response.status_code == 200
    missing = client.put(f"/api/products/{'0' * 24}/update", headers=admin, json={"title": "T", "price": 30})
    assert missing.status_code == 404


def test_a_locked_product_answers_the_providers_reason(
    client: TestClient, admin: dict[str, str], engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine)
    provider.publish_product(1, product_id)
    response = client.put(
        f"/api/products/{product_id}/update", headers=admin, json={"title": "T", "price": 30, "shopId": 1}
    )
    assert response.status_code == 502
    assert (response.json()["error"], response.json()["details"]) == (
        "Failed to update product",
        "Product is disabled for editing",
    )


def test_category_change_moves_the_product_between_category_pages(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    product_id = _shown_id(engine, "hwdkn")
    response = client.put(
        f"/api/products/{product_id}/category", headers=admin,
        json={"category": "hwdpn", "printifyProductId": product_id, "shopId": 1, "name": "x", "description": "y"},
    )
    assert response.status_code == 200 and response.json()["data"]["category"] == "hwdpn"
    assert product_id in _category_ids(client, "hwdpn") and product_id not in _category_ids(client, "hwdkn")
    unknown = client.put(f"/api/products/{product_id}/category", headers=admin, json={"category": "nope"})
    assert (unknown.status_code, unknown.json()["error"]) == (422, "Unknown category")


def test_hiding_removes_the_product_from_its_category_page(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    product_id = _shown_id(engine, "hwdrn")
    hidden = client.put(f"/api/products/{product_id}/visibility", headers=admin, json={"isActive": False})
    assert hidden.status_code == 200 and hidden.json()["data"]["isActive"] is False
    assert product_id not in _category_ids(client, "hwdrn")
    assert (
        client.put(f"/api/products/{product_id}/visibility", headers=admin, json={"isActive": "no"}).status_code == 422
    )


def test_sync_price_sets_every_variant(client: TestClient, admin: dict[str, str], engine: Engine) -> None:
    product_id = _shown_id(engine)
    response = client.post(
        f"/api/products/{product_id}/sync-price",
        headers=admin,
        json={"price": 30, "shopId": 1, "printifyProductId": product_id},
    )
    assert response.status_code == 200
    prices = [v["price"] for v in response.json()["data"]["variants"]]
    assert prices[0] == 3000 and len(set(prices)) > 1  # the larger sizes keep their upcharge
    bad = client.post(f"/api/products/{product_id}/sync-price", headers=admin, json={"price": "-2", "shopId": 1})
    assert (bad.status_code, bad.json()["error"]) == (422, "Invalid price value")


def test_sync_reads_the_providers_copy_not_the_browsers(
    client: TestClient, admin: dict[str, str], engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine)
    provider.update_product(1, product_id, {"title": "Changed at the provider"})
    response = client.post(
        f"/api/products/{product_id}/sync", headers=admin,
        json={"printifyData": {"title": "From the browser", "variants": [{"price": 1}]}, "shopId": 1},
    )
    assert response.status_code == 200 and response.json()["data"]["title"] == "Changed at the provider"


def test_shop_sync_answers_its_counts(client: TestClient, admin: dict[str, str], provider: DemoPrintProvider) -> None:
    response = client.post("/api/printify/shops/1/sync", headers=admin)
    assert response.status_code == 200
    assert response.json() == {"synced": provider.list_products(1)["total"], "removed": 0}


# --------------------------------------------------------------------------- the public category read


def test_category_page_lists_shown_products_with_the_spec_fields(client: TestClient, engine: Engine) -> None:
    response = client.get("/api/products/category/HWDZN")
    assert response.status_code == 200
    body = response.json()
    with Session(engine) as session:
        shown = catalog.search_products(session, collection_key="hwdzn")
    assert [p["id"] for p in body["data"]] == [p.id for p in shown] and body["total"] == len(shown)
    first = body["data"][0]
    assert set(first) == {"id", "name", "description", "price", "imageUrl", "isActive"}
    assert first["price"] == shown[0].price_cents / 100 and first["isActive"] is True


def test_category_page_never_lists_unpublished_products(client: TestClient, provider: DemoPrintProvider) -> None:
    drafts = {p["id"] for p in provider.list_products(1)["data"] if not p["is_published"]}
    listed = set().union(*(_category_ids(client, key) for key in ("swdnn", "hwdkn", "hwdrn", "hwdzn", "hwdpn")))
    assert drafts and not drafts & listed


def test_an_unknown_category_answers_404(client: TestClient) -> None:
    response = client.get("/api/products/category/nope")
    assert (response.status_code, response.json()["error"]) == (404, "Unknown category")


def test_a_price_below_cost_answers_409_naming_the_variants_until_confirmed(
    client: TestClient, admin: dict[str, str], engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine)
    before = [v["price"] for v in provider.get_product(1, product_id)["variants"]]
    for method, path, body in (
        ("PUT", f"/api/products/{product_id}/update", {"title": "T", "price": "5.00", "shopId": 1}),
        ("POST", f"/api/products/{product_id}/sync-price", {"price": "5.00", "shopId": 1}),
    ):
        refused = client.request(method, path, headers=admin, json=body)
        assert refused.status_code == 409, refused.text
        named = refused.json()["details"]["belowCost"]
        assert named and all(name in refused.json()["error"] for name in named)
        assert [v["price"] for v in provider.get_product(1, product_id)["variants"]] == before
    saved = client.post(
        f"/api/products/{product_id}/sync-price",
        headers=admin,
        json={"price": "5.00", "shopId": 1, "confirmBelowCost": True},
    )
    assert saved.status_code == 200
    assert [v["price"] for v in provider.get_product(1, product_id)["variants"]] == [
        p - before[0] + 500 for p in before
    ]


def test_an_archived_product_leaves_the_lists_and_its_orders_still_open(
    client: TestClient, admin: dict[str, str], engine: Engine, provider: DemoPrintProvider
) -> None:
    tee = pick(engine)
    placed = client.post("/api/printify/orders", json=order_payload((tee, 1)), headers={"Idempotency-Key": "archive-1"})
    assert placed.status_code == 201, placed.text
    number, token = placed.json()["order"]["id"], placed.json()["accessToken"]

    archived = client.post(f"/api/products/{tee.product_id}/archive", headers=admin, json={"shopId": 1})
    assert archived.status_code == 200, archived.text
    assert (archived.json()["data"]["archived"], archived.json()["data"]["isActive"]) == (True, False)
    assert provider.get_product(1, tee.product_id)["id"] == tee.product_id
    listed = client.get(PRODUCTS, headers=admin, params={"limit": 100}).json()["data"]
    assert tee.product_id not in {row["id"] for row in listed}
    only_archived = client.get(PRODUCTS, headers=admin, params={"archived": "true"}).json()["data"]
    assert [row["id"] for row in only_archived] == [tee.product_id]

    order = client.get(f"/api/orders/{number}", headers={"X-Order-Token": token})
    assert order.status_code == 200, order.text
    assert tee.name in order.text

    deleted = client.post(f"/api/products/{tee.product_id}/archive", headers=admin, json={"deleteAtProvider": True})
    assert deleted.status_code == 200
    restored = client.post(f"/api/products/{tee.product_id}/restore", headers=admin)
    assert (restored.status_code, restored.json()["data"]["archived"]) == (200, False)
    assert client.post(f"/api/products/{'0' * 24}/archive", headers=admin, json={}).status_code == 404
