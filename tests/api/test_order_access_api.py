"""Order data over HTTP is private to the browser holding the order's token; payments are limited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.container import TOO_MANY_PAYMENT_REQUESTS
from storefront.models import Order, OrderItem
from storefront.services.orders.order_payment import TOO_MANY_DECLINES
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import DECLINED_CARD, GOOD_CARD, SHIPPING_ADDRESS, FakeClock, Pick, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"
NOT_FOUND = {"error": "Order not found", "details": None}
#: What the payload of tests.ordering says about the customer; none of it may leak.
PERSONAL = ["ada@example.com", "Ada", "Lovelace", "555 0100", "Analytical Row", "Albany", "12207", "4242"]


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", "50")
    return Settings()


@pytest.fixture
def client(engine: Engine, tmp_path: Path, settings: Settings) -> TestClient:
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(settings, engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def tee(client: TestClient, engine: Engine) -> Pick:
    return pick(engine)


def _place(client: TestClient, tee: Pick, key: str = "checkout-1", **overrides) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    response = client.post(ORDERS, json=order_payload((tee, 1), **overrides), headers={"Idempotency-Key": key})
    assert response.status_code == 201, response.text
    return response.json()["order"]["id"], response.json()["accessToken"]


def _pay(client: TestClient, number: str, token: str | None, card: dict | None, payment_id: str = "pay_1"):  # type: ignore[no-untyped-def]
    body = (
        {} if card is None else {"paymentId": payment_id, "shopId": "store", "paymentMethod": "card", "cardData": card}
    )
    headers = {"X-Order-Token": token} if token is not None else {}
    return client.post(f"{ORDERS}/{number}/process-payment", json=body, headers=headers)


def _paid_order(client: TestClient, tee: Pick) -> tuple[str, str]:
    number, token = _place(client, tee)
    assert _pay(client, number, token, GOOD_CARD).status_code == 200
    return number, token


def _assert_nothing_personal(body: str) -> None:
    leaked = [value for value in PERSONAL if value in body]
    assert not leaked, f"personal data in the answer: {leaked}"


@pytest.mark.parametrize("token", [None, "", "wrong-token", "x" * 500])
def test_paying_without_the_token_answers_like_an_unknown_order(
    client: TestClient, tee: Pick, token: str | None
) -> None:
    number, _ = _paid_order(client, tee)
    response = _pay(client, number, token, None)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND == _pay(client, "SF-999999", token, None).json()
    _assert_nothing_personal(response.text)


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_the_status_without_the_token_answers_like_an_unknown_order(
    client: TestClient, tee: Pick, token: str | None
) -> None:
    number, _ = _paid_order(client, tee)
    headers = {"X-Order-Token": token} if token else {}
    response = client.get(f"/api/orders/{number}/status", headers=headers)
    assert (response.status_code, response.json()) == (404, NOT_FOUND)
    assert client.get("/api/orders/SF-999999/status", headers=headers).json() == NOT_FOUND


def test_the_token_opens_the_status_in_a_header_or_the_query(client: TestClient, tee: Pick) -> None:
    number, token = _paid_order(client, tee)
    by_header = client.get(f"/api/orders/{number}/status", headers={"X-Order-Token": token})
    by_query = client.get(f"/api/orders/{number}/status", params={"token": token})
    assert by_header.status_code == by_query.status_code == 200
    assert by_header.json()["paymentStatus"] == by_query.json()["paymentStatus"] == "paid"


def test_one_orders_token_does_not_open_another(client: TestClient, tee: Pick) -> None:
    first, first_token = _place(client, tee, key="a")
    second, _ = _place(client, tee, key="b", customerEmail="grace@example.com")
    assert client.get(f"/api/orders/{second}/status", headers={"X-Order-Token": first_token}).status_code == 404
    assert _pay(client, second, first_token, GOOD_CARD).status_code == 404


def test_answers_to_the_shopper_carry_no_personal_data(client: TestClient, tee: Pick) -> None:
    response = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "k"})
    _assert_nothing_personal(json.dumps(response.json()["order"]))
    number, token = response.json()["order"]["id"], response.json()["accessToken"]
    paid = _pay(client, number, token, GOOD_CARD)
    _assert_nothing_personal(paid.text)
    _assert_nothing_personal(client.get(f"/api/orders/{number}/status", headers={"X-Order-Token": token}).text)
    assert paid.json()["order"]["items"][0]["size"] == "M"


def test_the_token_is_long_random_and_stored_only_as_a_hash(client: TestClient, engine: Engine, tee: Pick) -> None:
    _, first = _place(client, tee, key="a")
    _, second = _place(client, tee, key="b")
    assert first != second and len(first) >= 22  # 128 bits in URL-safe base64 is 22 characters
    with engine.connect() as connection:
        rows = [json.dumps([str(v) for v in row]) for row in connection.execute(text("SELECT * FROM orders"))]
    assert rows and not any(first in row or second in row for row in rows)


def test_a_shopper_fixes_the_address_after_a_decline_and_pays_the_same_order(
    client: TestClient, engine: Engine, tee: Pick
) -> None:
    number, token = _place(client, tee, key="dialog-1")
    assert _pay(client, number, token, DECLINED_CARD, "pay_a").status_code == 402
    fixed = {**SHIPPING_ADDRESS, "address1": "14 Analytical Row"}
    again = client.post(
        ORDERS,
        json=order_payload((tee, 2), shippingAddress=fixed, billingAddress=fixed),
        headers={"Idempotency-Key": "dialog-1", "X-Order-Token": token},
    )
    assert again.status_code == 201, again.text
    assert again.json()["order"]["id"] == number
    assert again.json()["order"]["items"][0]["quantity"] == 2
    assert _pay(client, number, token, GOOD_CARD, "pay_b").status_code == 200
    with Session(engine) as session:
        (order,) = session.exec(select(Order)).all()
        assert (order.address1, order.payment_status) == ("14 Analytical Row", "paid")
        assert order.total_cents == 2 * tee.price_cents + (0 if 2 * tee.price_cents > 10000 else 999)
        assert [i.quantity for i in session.exec(select(OrderItem)).all()] == [2]


def test_changing_an_order_needs_its_token(client: TestClient, tee: Pick) -> None:
    _place(client, tee, key="dialog-1")
    response = client.post(ORDERS, json=order_payload((tee, 2)), headers={"Idempotency-Key": "dialog-1"})
    assert response.status_code == 409


def test_a_paid_order_cannot_be_changed(client: TestClient, tee: Pick) -> None:
    number, token = _paid_order(client, tee)
    response = client.post(
        ORDERS, json=order_payload((tee, 2)), headers={"Idempotency-Key": "checkout-1", "X-Order-Token": token}
    )
    assert response.status_code == 409
    assert response.json()["error"] == "This order has been paid and can no longer be changed."


def test_declines_per_order_are_limited(client: TestClient, tee: Pick) -> None:
    number, token = _place(client, tee)
    for attempt in range(5):
        assert _pay(client, number, token, DECLINED_CARD, f"pay_{attempt}").status_code == 402
    refused = _pay(client, number, token, GOOD_CARD, "pay_good")
    assert refused.status_code == 429
    assert refused.json()["error"] == TOO_MANY_DECLINES
    assert (
        client.get(f"/api/orders/{number}/status", headers={"X-Order-Token": token}).json()["paymentStatus"] == "failed"
    )


def test_payment_requests_per_address_are_limited_across_workers(
    engine: Engine, tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", "3")
    limited = Settings()
    provider = seed_demo(engine, tmp_path)
    # Two apps on one database stand for two workers: the count is shared, not per process.
    clock = FakeClock()  # one minute for the whole test, however long it takes
    workers = [
        TestClient(create_api(limited, engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock))
        for _ in range(2)
    ]
    card = {"cardData": GOOD_CARD}
    answers = [workers[n % 2].post("/api/payments/validate-card", json=card) for n in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    refused = workers[1].post("/api/payments/validate-card", json=card)
    assert refused.status_code == 429
    assert refused.json()["error"] == TOO_MANY_PAYMENT_REQUESTS
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert workers[0].post(f"{ORDERS}/SF-000001/process-payment", json={}).status_code == 429
