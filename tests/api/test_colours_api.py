"""An order for a colour over HTTP ships that colour's variant, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import Order, OrderItem
from storefront.services.catalog import catalog
from storefront.services.orders.fulfilment import printify_order_body
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import Pick, order_payload, seed_demo

ORDERS = "/api/printify/orders"


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


def _second_colour(engine: Engine) -> tuple[Pick, str, catalog.LinePrice]:
    """A demo product in several colours, one size of its second colour and that line's price."""
    with Session(engine) as session:
        product = next(p for p in catalog.search_products(session) if len(p.colors) > 1)
        colour = product.colors[1]
        size = colour.sizes[0]
        price = catalog.line_price(session, product.id, size, colour.name)
        first = catalog.line_price(session, product.id, size, product.colors[0].name)
    assert price.variant_id != first.variant_id
    return Pick(product.id, product.name, size, price.price_cents), colour.name, price


def _sent_variant_ids(engine: Engine, number: str) -> list[int]:
    """The variant ids of the Printify order body the outbox would send for this order."""
    with Session(engine) as session:
        order = session.exec(select(Order).where(col(Order.number) == number)).one()
        items = session.exec(select(OrderItem).where(col(OrderItem.order_id) == order.id)).all()
        return [line["variant_id"] for line in printify_order_body(order, items)["line_items"]]


def test_an_order_in_a_colour_sends_that_colours_variant(client: TestClient, engine: Engine) -> None:
    chosen, colour, price = _second_colour(engine)
    payload = order_payload((chosen, 1))
    payload["items"][0]["color"] = colour
    response = client.post(ORDERS, json=payload, headers={"Idempotency-Key": "colour-1"})
    assert response.status_code == 201, response.text
    order = response.json()["order"]
    assert [(i["size"], i["color"], i["variantId"]) for i in order["items"]] == [
        (chosen.size, colour, price.variant_id)
    ]
    assert _sent_variant_ids(engine, order["id"]) == [int(price.variant_id)]


def test_a_colour_the_product_does_not_come_in_is_a_422_at_its_line(client: TestClient, engine: Engine) -> None:
    chosen, _, _ = _second_colour(engine)
    payload = order_payload((chosen, 1))
    payload["items"][0]["color"] = "Plaid"
    response = client.post(ORDERS, json=payload, headers={"Idempotency-Key": "colour-2"})
    assert response.status_code == 422
    assert response.json()["details"] == {"items.0.color": catalog.COLOR_NOT_AVAILABLE}
