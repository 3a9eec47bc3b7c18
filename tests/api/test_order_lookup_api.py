"""POST /api/orders/lookup and GET /api/orders/{number}: a guest's order over HTTP, throttled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.orders.order_lookup import EMAIL_REQUIRED, LOOKUP_INVALID, NUMBER_REQUIRED, TOO_MANY_LOOKUPS
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import GOOD_CARD, FakeClock, Pick, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"
LOOKUP = "/api/orders/lookup"
EMAIL = "ada@example.com"
NOT_FOUND = {"error": "Order not found", "details": None}
PERSONAL = ["ada@example.com", "Ada", "Lovelace", "555 0100", "Analytical Row", "Albany", "12207", "4242"]
LIMIT = 3


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", "50")
    return Settings()


@pytest.fixture
def client(engine: Engine, tmp_path: Path, settings: Settings) -> TestClient:
    provider = seed_demo(engine, tmp_path)
    # A pinned clock: the throttle counts per minute, and a real minute may turn mid-test.
    return TestClient(
        create_api(settings, engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=FakeClock())
    )


@pytest.fixture
def tee(client: TestClient, engine: Engine) -> Pick:
    return pick(engine)


def _paid_order(client: TestClient, tee: Pick, key: str = "checkout-1", **overrides) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    placed = client.post(ORDERS, json=order_payload((tee, 1), **overrides), headers={"Idempotency-Key": key})
    assert placed.status_code == 201, placed.text
    number, token = placed.json()["order"]["id"], placed.json()["accessToken"]
    body = {"paymentId": f"pay_{key}", "shopId": "store", "paymentMethod": "card", "cardData": GOOD_CARD}
    paid = client.post(f"{ORDERS}/{number}/process-payment", json=body, headers={"X-Order-Token": token})
    assert paid.status_code == 200, paid.text
    return number, token


def test_the_number_and_email_answer_the_order(client: TestClient, tee: Pick) -> None:
    number, _ = _paid_order(client, tee)
    response = client.post(LOOKUP, json={"number": f" {number.lower()} ", "email": " ADA@example.com "})
    assert response.status_code == 200, response.text
    view = response.json()
    assert (view["orderNumber"], view["statusLabel"], view["paymentStatusLabel"]) == (number, "Processing", "Paid")
    assert view["items"][0]["name"] == tee.name and view["items"][0]["quantity"] == 1
    leaked = [value for value in PERSONAL if value in json.dumps(view)]
    assert not leaked, f"personal data in the answer: {leaked}"


def test_a_wrong_email_and_a_wrong_number_answer_the_same_404(client: TestClient, tee: Pick) -> None:
    number, _ = _paid_order(client, tee)
    wrong_email = client.post(LOOKUP, json={"number": number, "email": "grace@example.com"})
    wrong_number = client.post(LOOKUP, json={"number": "SF-999999", "email": EMAIL})
    assert (
        (wrong_email.status_code, wrong_email.json())
        == (wrong_number.status_code, wrong_number.json())
        == (404, NOT_FOUND)
    )


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"number": NUMBER_REQUIRED, "email": EMAIL_REQUIRED}),
        ({"number": "SF-000001"}, {"email": EMAIL_REQUIRED}),
        ({"number": "  ", "email": EMAIL}, {"number": NUMBER_REQUIRED}),
        ({"number": 1, "email": ["a"]}, {"number": NUMBER_REQUIRED, "email": EMAIL_REQUIRED}),
    ],
)
def test_a_missing_field_is_a_422_that_names_it(client: TestClient, body: dict, details: dict) -> None:
    response = client.post(LOOKUP, json=body)
    assert response.status_code == 422
    assert response.json() == {"error": LOOKUP_INVALID, "details": details}


def test_no_body_at_all_is_a_422(client: TestClient) -> None:
    response = client.post(LOOKUP)
    assert (response.status_code, response.json()["error"]) == (422, LOOKUP_INVALID)


def test_the_token_opens_the_same_view_and_a_wrong_one_answers_404(client: TestClient, tee: Pick) -> None:
    number, token = _paid_order(client, tee)
    by_token = client.get(f"/api/orders/{number}", headers={"X-Order-Token": token})
    assert by_token.status_code == 200
    assert by_token.json() == client.post(LOOKUP, json={"number": number, "email": EMAIL}).json()
    for headers in ({}, {"X-Order-Token": "wrong"}):
        response = client.get(f"/api/orders/{number}", headers=headers)
        assert (response.status_code, response.json()) == (404, NOT_FOUND)
    assert client.get("/api/orders/SF-999999", headers={"X-Order-Token": token}).json() == NOT_FOUND


def test_one_orders_token_does_not_open_another(client: TestClient, tee: Pick) -> None:
    _, first_token = _paid_order(client, tee, key="a")
    second, _ = _paid_order(client, tee, key="b", customerEmail="grace@example.com")
    assert client.get(f"/api/orders/{second}", headers={"X-Order-Token": first_token}).status_code == 404


def test_lookups_are_limited_per_address_apart_from_payments(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", str(LIMIT))
    limited = Settings()
    provider = seed_demo(engine, tmp_path)
    clock = FakeClock()  # one minute for the whole test, however long it takes
    # Two apps on one database stand for two workers: the count is shared, not per process.
    apps = [
        create_api(limited, engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock)
        for _ in range(2)
    ]
    guesser = [TestClient(app, client=("203.0.113.7", 50000)) for app in apps]
    neighbour = TestClient(apps[0], client=("203.0.113.8", 50000))
    guess = {"number": "SF-000001", "email": "someone@example.com"}

    answers = [guesser[n % 2].post(LOOKUP, json=guess) for n in range(LIMIT)]
    assert [a.status_code for a in answers] == [404] * LIMIT
    refused = guesser[1].post(LOOKUP, json=guess)
    assert refused.status_code == 429
    assert refused.json()["error"] == TOO_MANY_LOOKUPS
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # Even a complete, correct request waits: the limit is on the address, not on the guess.
    assert guesser[0].post(LOOKUP, json={}).status_code == 429

    # Another address keeps its own count, and payments keep theirs.
    assert neighbour.post(LOOKUP, json=guess).status_code == 404
    card = guesser[0].post("/api/payments/validate-card", json={"cardData": GOOD_CARD})
    assert card.status_code == 200, card.text

    clock.advance(60)
    assert guesser[0].post(LOOKUP, json=guess).status_code == 404


def test_payments_used_up_do_not_block_lookups(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", str(LIMIT))
    provider = seed_demo(engine, tmp_path)
    client = TestClient(
        create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=FakeClock())
    )
    for _ in range(LIMIT + 1):
        client.post("/api/payments/validate-card", json={"cardData": GOOD_CARD})
    assert client.post("/api/payments/validate-card", json={"cardData": GOOD_CARD}).status_code == 429
    assert client.post(LOOKUP, json={"number": "SF-000001", "email": EMAIL}).status_code == 404
