"""The order routes over HTTP, against SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select, update

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import Order, OutboxJob
from storefront.services.orders.checkout import TOO_MANY_ORDERS
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import DECLINED_CARD, GOOD_CARD, FakeClock, Pick, order_payload, pick, seed_demo

MISMATCH = "Price mismatch detected. Please refresh and try again."
ORDERS = "/api/printify/orders"


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    provider = seed_demo(engine, tmp_path)
    api = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider)
    return TestClient(api)


@pytest.fixture
def tee(client: TestClient, engine: Engine) -> Pick:
    return pick(engine)


def _orders(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Order)).one()


def _place(client: TestClient, tee: Pick, key: str = "checkout-1") -> tuple[str, str]:
    """Place an order; returns its number and access token."""
    response = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": key})
    assert response.status_code == 201, response.text
    return response.json()["order"]["id"], response.json()["accessToken"]


def _payment(card: dict, payment_id: str = "pay_1700000000000_abc123") -> dict:
    return {"paymentId": payment_id, "shopId": "store", "paymentMethod": "card", "cardData": card}


def _pay(client: TestClient, number: str, token: str | None, card: dict, payment_id: str = "pay_1700000000000_abc123"):  # type: ignore[no-untyped-def]
    headers = {"X-Order-Token": token} if token else {}
    return client.post(f"{ORDERS}/{number}/process-payment", json=_payment(card, payment_id), headers=headers)


def _status(client: TestClient, number: str, token: str | None):  # type: ignore[no-untyped-def]
    return client.get(f"/api/orders/{number}/status", headers={"X-Order-Token": token} if token else {})


def test_placing_an_order_answers_201_with_the_order(client: TestClient, tee: Pick) -> None:
    response = client.post(ORDERS, json=order_payload((tee, 2)), headers={"Idempotency-Key": "checkout-1"})
    assert response.status_code == 201
    order = response.json()["order"]
    assert order["id"].startswith("SF-")
    assert (order["status"], order["paymentStatus"]) == ("pending", "pending")
    assert order["subtotal"] == round(2 * tee.price, 2)
    assert order["shipping"] == 9.99
    assert order["total"] == round(2 * tee.price + 9.99, 2)
    assert [(i["name"], i["size"], i["quantity"]) for i in order["items"]] == [(tee.name, "M", 2)]


def test_a_repeated_idempotency_key_returns_the_same_order(client: TestClient, engine: Engine, tee: Pick) -> None:
    first, token = _place(client, tee, key="double-click")
    again = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "double-click"})
    assert again.status_code == 200
    assert again.json() == {"order": {"id": first, "orderNumber": first}, "accessToken": None, "replayed": True}
    assert _orders(engine) == 1


def test_replaying_an_order_request_neither_revokes_its_token_nor_hands_out_another(
    client: TestClient, engine: Engine, tee: Pick
) -> None:
    number, token = _place(client, tee, key="checkout-1")
    for headers in ({}, {"X-Order-Token": "not-the-token"}):
        replay = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "checkout-1", **headers})
        assert (replay.status_code, replay.json()["order"]["id"], replay.json()["accessToken"]) == (200, number, None)
        assert "items" not in replay.json()["order"]
    assert _status(client, number, token).status_code == 200
    # The holder of the token gets the order again, with the same token.
    own = client.post(
        ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "checkout-1", "X-Order-Token": token}
    )
    assert (own.status_code, own.json()["order"]["id"], own.json()["accessToken"]) == (201, number, token)
    assert _pay(client, number, token, GOOD_CARD).status_code == 200
    assert _orders(engine) == 1


def test_the_replay_answer_is_in_the_openapi_schema(client: TestClient) -> None:
    answers = client.get("/api/openapi.json").json()["paths"][ORDERS]["post"]["responses"]
    assert answers["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ReplayedOrder"}
    assert "without its X-Order-Token" in answers["200"]["description"]
    assert "429" in answers


def test_new_orders_per_address_are_limited(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ORDERS_PER_HOUR", "3")
    provider = seed_demo(engine, tmp_path)
    clock = FakeClock()
    api = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock)
    client, tee = TestClient(api), pick(engine)
    numbers = [_place(client, tee, key=f"order-{n}")[0] for n in range(3)]
    refused = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "order-3"})
    assert refused.status_code == 429
    assert refused.json()["error"] == TOO_MANY_ORDERS
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    assert _orders(engine) == 3
    # A retry of an order already placed is no new order; another address has its own count.
    replay = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "order-0"})
    assert (replay.status_code, replay.json()["order"]["id"]) == (200, numbers[0])
    assert _place(TestClient(api, client=("10.0.0.2", 50000)), tee, key="elsewhere")[0]
    clock.advance(3600)
    assert _place(client, tee, key="order-3")[0]


def test_one_minute_limits_leave_the_hourly_order_limit_whole(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ORDERS_PER_HOUR", raising=False)
    provider = seed_demo(engine, tmp_path)
    clock = FakeClock()  # on the hour
    api = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock)
    client, tee = TestClient(api), pick(engine)
    answers = []
    for n in range(11):
        answers.append(client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": f"order-{n}"}))
        clock.advance(61)
        # A one-minute limit counts this address in a new minute's window (an order lookup).
        assert (
            client.post("/api/orders/lookup", json={"number": "SF-000999", "email": "a@example.com"}).status_code == 404
        )
    assert [a.status_code for a in answers] == [201] * 10 + [429]
    assert answers[-1].json()["error"] == TOO_MANY_ORDERS
    assert _orders(engine) == 10


def test_the_same_key_with_another_cart_is_a_conflict(client: TestClient, engine: Engine, tee: Pick) -> None:
    _place(client, tee, key="reused")
    response = client.post(ORDERS, json=order_payload((tee, 3)), headers={"Idempotency-Key": "reused"})
    assert response.status_code == 409
    assert response.json()["error"]
    assert _orders(engine) == 1


def test_a_tampered_price_is_refused(client: TestClient, engine: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    payload["items"][0]["price"] = 0.99
    payload["subtotal"] = 0.99
    response = client.post(ORDERS, json=payload)
    assert response.status_code == 422
    assert response.json()["error"] == MISMATCH
    assert _orders(engine) == 0


def test_missing_fields_are_reported_per_field(client: TestClient, tee: Pick) -> None:
    payload = order_payload((tee, 1), customerEmail="nope", customerName="")
    del payload["shippingAddress"]["city"]
    response = client.post(ORDERS, json=payload)
    assert response.status_code == 422
    assert response.json()["details"] == {
        "customerEmail": "Please enter a valid email address",
        "customerName": "Name must be at least 2 characters",
        "shippingAddress.city": "City is required",
    }


def test_an_order_to_a_country_not_shipped_to_is_refused(client: TestClient, engine: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    payload["shippingAddress"].update(city="Toronto", state_code="ON", zip="M5V 2T6", country_code="CA")
    response = client.post(ORDERS, json=payload)
    assert response.status_code == 422
    assert response.json()["error"] == "We only ship to the United States for now."
    assert response.json()["details"] == {"shippingAddress.country_code": "We only ship to the United States for now."}
    assert _orders(engine) == 0


def test_ship_to_countries_open_the_checkout_to_more_countries(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SHIP_TO_COUNTRIES", "us, ca")
    provider = seed_demo(engine, tmp_path)
    client = TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))
    payload = order_payload((pick(engine), 1))
    payload["shippingAddress"].update(city="Toronto", state_code="ON", zip="M5V 2T6", country_code="ca")
    assert client.post(ORDERS, json=payload).status_code == 201
    payload["shippingAddress"]["country_code"] = "GB"
    refused = client.post(ORDERS, json=payload)
    assert refused.json()["error"] == "We only ship to the United States and Canada for now."


def test_an_empty_cart_is_refused(client: TestClient, tee: Pick) -> None:
    response = client.post(ORDERS, json=order_payload(items=[], subtotal=0))
    assert response.status_code == 422
    assert response.json()["error"] == "No items in cart"


def test_a_body_that_is_not_json_is_a_422(client: TestClient) -> None:
    response = client.post(ORDERS, content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"] == "Invalid request"


def test_paying_with_a_good_card_marks_the_order_paid(client: TestClient, engine: Engine, tee: Pick) -> None:
    number, token = _place(client, tee)
    response = _pay(client, number, token, GOOD_CARD)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["success"] is True
    assert (body["order"]["id"], body["order"]["paymentStatus"], body["order"]["status"]) == (
        number,
        "paid",
        "processing",
    )
    with Session(engine) as session:
        assert session.exec(select(Order)).one().card_last4 == "4242"
        assert session.exec(select(func.count()).select_from(OutboxJob)).one() == 1


def test_a_retried_payment_charges_once(client: TestClient, engine: Engine, tee: Pick) -> None:
    number, token = _place(client, tee)
    first = _pay(client, number, token, GOOD_CARD).json()
    again = _pay(client, number, token, GOOD_CARD).json()
    assert again["order"] == first["order"]


def test_a_declined_card_is_a_402_with_the_reason(client: TestClient, tee: Pick) -> None:
    number, token = _place(client, tee)
    response = _pay(client, number, token, DECLINED_CARD)
    assert response.status_code == 402
    assert response.json() == {"error": "Payment processing failed", "details": "Your card was declined."}
    assert _status(client, number, token).json()["paymentStatus"] == "failed"


def test_an_invalid_card_is_a_422_with_field_errors(client: TestClient, tee: Pick) -> None:
    number, token = _place(client, tee)
    card = {"cardNumber": "4242", "expiryDate": "1", "cvv": "", "cardholderName": ""}
    response = _pay(client, number, token, card)
    assert response.status_code == 422
    assert response.json()["details"] == {
        "cardNumber": "Card number is required",
        "expiryDate": "Expiry date is required",
        "cvv": "CVV is required",
        "cardholderName": "Cardholder name is required",
    }


def test_expiry_month_and_year_are_accepted(client: TestClient, tee: Pick) -> None:
    number, token = _place(client, tee)
    card = {**GOOD_CARD, "expiryDate": None, "expiryMonth": "12", "expiryYear": "2039"}
    response = _pay(client, number, token, card)
    assert response.status_code == 200, response.text


def test_paying_an_unknown_order_is_a_404(client: TestClient) -> None:
    response = client.post(f"{ORDERS}/SF-999999/process-payment", json=_payment(GOOD_CARD))
    assert response.status_code == 404
    assert response.json()["error"] == "Order not found"


def test_order_status_shows_payment_and_fulfilment(client: TestClient, tee: Pick) -> None:
    number, token = _place(client, tee)
    assert _status(client, number, token).json() == {
        "id": number,
        "status": "pending",
        "paymentStatus": "pending",
        "customerStatus": "awaiting_payment",
        "customerStatusLabel": "Awaiting payment",
        "customerStatusText": "We have not received the payment for this order yet.",
        "amountRefunded": 0.0,
        "printifyStatus": None,
        "printifyOrderId": None,
        "trackingNumber": None,
        "trackingCarrier": None,
        "trackingUrl": None,
        "shippedAt": None,
        "deliveredAt": None,
        "needsAttention": False,
    }


def test_the_status_answer_carries_no_staff_field(client: TestClient, engine: Engine, tee: Pick) -> None:
    number, token = _place(client, tee)
    reason = "Stripe payment pi_X names this order but is not the payment the store created for it: refund it in Stripe"
    with Session(engine) as session:
        session.execute(update(Order).where(col(Order.number) == number).values(attention_reason=reason))
        session.commit()
    admin = {
        "x-admin-token": client.post("/api/admin/login", json={"username": "admin", "password": "admin123"}).json()[
            "token"
        ]
    }
    for headers in ({"X-Order-Token": token}, admin):
        answer = client.get(f"/api/orders/{number}/status", headers=headers)
        assert answer.status_code == 200
        # Staff's alarm never reaches the customer: the order awaits its payment, as far as they know.
        assert answer.json()["needsAttention"] is False
        assert answer.json()["customerStatus"] == "awaiting_payment"
        assert "attentionReason" not in answer.json() and "refund" not in answer.text
