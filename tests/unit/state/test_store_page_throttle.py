"""The store product page counts against the same per-address limit as the store-catalogue API:
a stream of product ids from one address cannot spend the store's Shopify budget either way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from reflex.istate.data import RouterData
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.container import Services
from storefront.services.shopify.throttle import STORE_REQUESTS_PER_MINUTE, TOO_MANY_STORE_REQUESTS
from storefront.state.shopify import StoreProductState
from tests.ordering import FakeClock

PRODUCT_ID = "999000111"  # unknown to the demo catalogue: not found, but counted


@pytest.fixture
def store(
    engine: Engine, install_services: Callable[..., Services], tmp_path, monkeypatch: pytest.MonkeyPatch
) -> Services:
    """The store's services on the test's database and a clock that stands still (one minute's
    count), installed for the page's handlers as the store installs its own; the route's product
    id (a var Reflex adds when it registers the page) is the one asked for."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setattr(StoreProductState, "product_id", PRODUCT_ID, raising=False)
    return install_services(Settings(), engine=engine, clock=FakeClock())


def page_from(address: str) -> StoreProductState:
    state = StoreProductState()
    state.router = RouterData.from_router_data({
        "sid": "test", "ip": address, "pathname": f"/shopify/product/{PRODUCT_ID}",
        "query": {"product_id": PRODUCT_ID},
    })
    return state


def load(state: StoreProductState) -> list[object]:
    """The page's load event (a background event; a plain state is its own lock)."""

    async def run() -> list[object]:
        return [event async for event in StoreProductState.load.fn(state)]

    return asyncio.run(run())


def test_product_pages_and_the_api_share_one_count(store: Services) -> None:
    app = create_api(store.settings, services=store)
    address = "203.0.113.40"
    page = page_from(address)
    assert str(page.product_id) == PRODUCT_ID
    for _ in range(STORE_REQUESTS_PER_MINUTE - 1):
        load(page)
        assert page.not_found and not page.failed
    with TestClient(app, client=(address, 50000)) as client:
        assert client.get("/api/shopify/test").status_code == 200  # the 60th of the minute
        refused = client.get("/api/shopify/test")
        assert refused.status_code == 429 and refused.json()["error"] == TOO_MANY_STORE_REQUESTS
    events = load(page)
    assert page.failed and not page.not_found and not page.loading
    assert TOO_MANY_STORE_REQUESTS in repr(events)
    other = page_from("198.51.100.9")  # another shopper is not held back
    load(other)
    assert other.not_found and not other.failed
