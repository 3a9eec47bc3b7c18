"""Store-catalogue lines never reach our print provider: the order API refuses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import Order
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"
STORE_ITEMS_REFUSED = (
    "Items from the store catalogue are checked out on the store itself: use its Checkout button in your cart."
)


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


def _orders(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Order)).one()


def test_an_order_with_a_store_catalogue_line_is_refused_with_the_store_message(
    client: TestClient, engine: Engine
) -> None:
    tee = pick(engine)
    payload = order_payload((tee, 1))
    store_item = {"productId": "8001", "printifyProductId": "8001", "printifyVariantId": "9001",
                  "name": "Classic Crew Tee", "size": "Black / M", "price": 24.0, "quantity": 2,
                  "imageUrl": "", "source": "shopify"}
    payload["items"].append(store_item)
    payload["subtotal"] = round(payload["subtotal"] + 48.0, 2)
    response = client.post(ORDERS, json=payload, headers={"Idempotency-Key": "store-line-1"})
    assert response.status_code == 422, response.text
    assert response.json()["error"] == STORE_ITEMS_REFUSED
    assert response.json()["details"] == {"items.1.source": STORE_ITEMS_REFUSED}
    assert _orders(engine) == 0


def test_an_order_of_our_lines_marked_as_ours_is_placed(client: TestClient, engine: Engine) -> None:
    tee = pick(engine)
    payload = order_payload((tee, 1))
    payload["items"][0]["source"] = ""
    response = client.post(ORDERS, json=payload)
    assert response.status_code == 201, response.text
    assert _orders(engine) == 1
