"""Discount codes over HTTP, on SQLite and PostgreSQL: staff make and list them (uses, revenue,
CSV), the checkout prices them on the server and checks them again when the order is placed, a
code limited to N uses is held by at most N orders however many checkouts race, a cancelled or
expired order gives its use back, and Stripe is asked for the discounted total."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select, update

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import DiscountCode, Order, utcnow
from storefront.services.admin.admin_discounts import CSV_HEADER
from storefront.services.discounts import codes, rules
from storefront.services.orders.cart import SHIPPING_CENTS
from storefront.services.orders.order_cancellation import UnpaidOrderExpiry
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.printify.demo import DemoPrintProvider
from storefront.wiring import session_factory
from tests.api.staff import as_owner, owner_headers
from tests.api.test_stripe_payments_api import ServedApi
from tests.fakes.stripe_server import FakeStripe
from tests.ordering import GOOD_CARD, Pick, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"
DISCOUNTS = "/api/admin/discounts"


@pytest.fixture
def provider(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DemoPrintProvider:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("ORDERS_PER_HOUR", "1000")
    as_owner(monkeypatch)
    return seed_demo(engine, tmp_path)


@pytest.fixture
def client(engine: Engine, provider: DemoPrintProvider) -> TestClient:
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


@pytest.fixture
def tee(engine: Engine, provider: DemoPrintProvider) -> Pick:
    return pick(engine)


def _code(client: TestClient, admin: dict[str, str], **fields: Any) -> dict[str, Any]:
    body = {"code": "SAVE10", "kind": "percent", "value": 10, **fields}
    response = client.post(DISCOUNTS, json=body, headers=admin)
    assert response.status_code == 201, response.text
    return response.json()["discount"]


def _place(http: Any, tee: Pick, key: str, code: str | None, quantity: int = 1, email: str = "ada@example.com") -> Any:
    payload = order_payload((tee, quantity), customerEmail=email)
    if code is not None:
        payload["discountCode"] = code
    return http.post(ORDERS, json=payload, headers={"Idempotency-Key": key})


def _order(engine: Engine, number: str) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(col(Order.number) == number)).one()


def _used(engine: Engine, code_id: int) -> int:
    with Session(engine) as session:
        found = session.get(DiscountCode, code_id)
        assert found is not None
        return found.used_count


def _pay(client: TestClient, placed: dict[str, Any], key: str) -> None:
    paid = client.post(
        f"{ORDERS}/{placed['order']['id']}/process-payment",
        json={"paymentId": f"pay_{key}", "cardData": GOOD_CARD},
        headers={"X-Order-Token": placed["accessToken"]},
    )
    assert paid.status_code == 200, paid.text


# --------------------------------------------------------------------------- staff


def test_staff_make_a_code_and_it_is_unique_in_any_case(client: TestClient, admin: dict[str, str]) -> None:
    made = _code(client, admin, code="Tour-Berlin", minSubtotal="40", usageLimit=100, perCustomerLimit=1,
                 scope="collections", scopeValues=["SWDNN"], endsAt="2030-06-08T00:00")
    assert (made["code"], made["description"], made["minSubtotal"], made["scopeValues"]) == (
        "Tour-Berlin", "10% off", 40.0, ["swdnn"]
    )
    assert made["endsAt"] == "2030-06-08T00:00:00+00:00" and made["usedCount"] == 0
    again = client.post(DISCOUNTS, json={"code": "TOUR-berlin", "kind": "free_shipping"}, headers=admin)
    assert (again.status_code, again.json()["details"]) == (422, {"code": codes.CODE_TAKEN})


def test_a_bad_form_is_refused_field_by_field_and_nothing_is_saved(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    body = {"code": "x", "kind": "percent", "value": 150, "usageLimit": 0, "startsAt": "2030-06-02T00:00",
            "endsAt": "2030-06-01T00:00", "scope": "products", "scopeValues": ["no-such-product"]}
    refused = client.post(DISCOUNTS, json=body, headers=admin)
    assert refused.status_code == 422
    assert refused.json()["details"] == {
        "code": codes.CODE_INVALID,
        "value": codes.PERCENT_INVALID,
        "endsAt": codes.ENDS_BEFORE_START,
        "usageLimit": codes.LIMIT_INVALID,
        "scopeValues": codes.PRODUCTS_INVALID,
    }
    with Session(engine) as session:
        assert session.exec(select(DiscountCode)).all() == []


def test_staff_change_a_code_and_switch_it_off(
    client: TestClient, admin: dict[str, str], tee: Pick
) -> None:
    made = _code(client, admin, code="SHIP")
    changed = client.put(f"{DISCOUNTS}/{made['id']}", json={"code": "ship", "kind": "free_shipping"}, headers=admin)
    assert changed.status_code == 200, changed.text
    assert (changed.json()["discount"]["description"], changed.json()["discount"]["code"]) == ("Free shipping", "ship")
    placed = _place(client, tee, "free-ship", "SHIP").json()["order"]
    assert (placed["shipping"], placed["discount"], placed["total"]) == (0.0, 0.0, tee.price)
    off = client.post(f"{DISCOUNTS}/{made['id']}/active", json={"active": False}, headers=admin)
    assert off.status_code == 200 and off.json()["discount"]["active"] is False
    refused = _place(client, tee, "after-off", "ship")
    assert refused.status_code == 422 and refused.json()["error"].startswith(rules.CODE_UNKNOWN)
    assert client.get(f"{DISCOUNTS}/999999", headers=admin).status_code == 404


def test_discount_routes_need_the_admin_session(client: TestClient) -> None:
    assert client.get(DISCOUNTS).status_code == 401
    assert client.post(DISCOUNTS, json={"code": "FREE", "kind": "free_shipping"}).status_code == 401


# --------------------------------------------------------------------------- checkout


def test_a_discounted_order_keeps_its_discount_and_staff_see_its_uses_and_revenue(
    client: TestClient, admin: dict[str, str], engine: Engine, tee: Pick
) -> None:
    made = _code(client, admin, code="FIVE", kind="amount", value="5")
    placed = _place(client, tee, "disc-1", "five", quantity=2)
    assert placed.status_code == 201, placed.text
    body = placed.json()
    subtotal = 2 * tee.price_cents
    shipping = 0 if subtotal - 500 > 10000 else SHIPPING_CENTS
    assert (body["order"]["discount"], body["order"]["discountCode"]) == (5.0, "FIVE")
    assert round(body["order"]["total"] * 100) == subtotal - 500 + shipping
    order = _order(engine, body["order"]["id"])
    assert (order.discount_cents, order.total_cents, order.discount_claimed) == (500, subtotal - 500 + shipping, True)
    _pay(client, body, "disc-1")

    listed = client.get(DISCOUNTS, headers=admin).json()["data"]
    assert [(d["code"], d["usedCount"], d["paidOrders"], d["discountGiven"]) for d in listed] == [("FIVE", 1, 1, 5.0)]
    assert round(listed[0]["revenue"] * 100) == order.total_cents
    rows = list(csv.reader(io.StringIO(client.get(f"{DISCOUNTS}/export.csv", headers=admin).text)))
    assert tuple(rows[0]) == CSV_HEADER
    assert rows[1][0] == "FIVE" and rows[1][-4:] == ["1", "1", "5.00", f"{order.total_cents / 100:.2f}"]
    # The orders' CSV names the code and what it took off.
    orders_csv = list(csv.reader(io.StringIO(client.get("/api/orders/export.csv", headers=admin).text)))
    assert orders_csv[1][-2:] == ["FIVE", "5.00"]

    # Refunds never pass what was paid: the discounted total.
    over = client.post(f"/api/orders/{order.number}/refund", json={"amount": (order.total_cents + 1) / 100},
                       headers=admin)
    assert over.status_code == 409
    # A line refunds what was paid for it: its price less its share of the discount.
    item = client.get("/api/orders", headers=admin).json()["data"][0]["items"][0]
    line = client.post(f"/api/orders/{order.number}/refund", json={"lines": [{"itemId": item["id"]}]}, headers=admin)
    share = (tee.price_cents * (subtotal - 500) + subtotal // 2) // subtotal
    assert line.status_code == 200 and round(line.json()["order"]["amountRefunded"] * 100) == share
    whole = client.post(f"/api/orders/{order.number}/refund", headers=admin)
    assert whole.status_code == 200 and round(whole.json()["order"]["amountRefunded"] * 100) == order.total_cents
    assert made["id"] == listed[0]["id"]


def test_an_expired_code_is_refused_at_placement_with_the_new_total(
    client: TestClient, admin: dict[str, str], engine: Engine, tee: Pick
) -> None:
    made = _code(client, admin, code="WEEKEND")
    with Session(engine) as session:  # the sale ended while the shopper was typing
        ended = utcnow() - timedelta(minutes=1)
        session.execute(update(DiscountCode).where(col(DiscountCode.id) == made["id"]).values(ends_at=ended))
        session.commit()
    refused = _place(client, tee, "late", "weekend")
    assert refused.status_code == 422
    total = tee.price_cents + (0 if tee.price_cents > 10000 else SHIPPING_CENTS)
    message = f"{rules.CODE_EXPIRED} Your total without it is ${total / 100:,.2f}."
    assert refused.json() == {"error": message, "details": {"discountCode": message}}
    with Session(engine) as session:
        assert session.exec(select(Order)).all() == []
    # Without the code the same checkout goes through at that total.
    placed = _place(client, tee, "late", None)
    assert placed.status_code == 201 and round(placed.json()["order"]["total"] * 100) == total


def test_a_per_customer_limit_counts_the_email_in_any_case(
    client: TestClient, admin: dict[str, str], tee: Pick
) -> None:
    _code(client, admin, code="WELCOME", perCustomerLimit=1)
    assert _place(client, tee, "w1", "WELCOME", email="Ada@Example.com").status_code == 201
    again = _place(client, tee, "w2", "welcome", email="ada@example.com")
    assert again.status_code == 422 and again.json()["error"].startswith(rules.CODE_USED_BY_EMAIL)
    assert _place(client, tee, "w3", "welcome", email="grace@example.com").status_code == 201


def test_a_cancelled_order_and_an_expired_one_give_their_use_back(
    client: TestClient, admin: dict[str, str], engine: Engine, tee: Pick
) -> None:
    made = _code(client, admin, code="ONCE", usageLimit=1)
    first = _place(client, tee, "c1", "ONCE").json()["order"]["id"]
    assert _used(engine, made["id"]) == 1
    assert _place(client, tee, "c2", "ONCE").json()["error"].startswith(rules.CODE_USED_UP)
    assert client.post(f"/api/orders/{first}/cancel", headers=admin).status_code == 200
    assert (_used(engine, made["id"]), _order(engine, first).discount_claimed) == (0, False)
    # Cancelling again gives nothing back twice.
    client.post(f"/api/orders/{first}/cancel", headers=admin)
    assert _used(engine, made["id"]) == 0

    second = _place(client, tee, "c3", "ONCE").json()["order"]["id"]
    assert _used(engine, made["id"]) == 1
    with Session(engine) as session:  # abandoned a day ago
        placed_at = utcnow() - timedelta(days=2)
        session.execute(update(Order).where(col(Order.number) == second).values(created_at=placed_at))
        session.commit()
    assert UnpaidOrderExpiry(session_factory(engine), timedelta(hours=24)).run() == 1
    assert (_order(engine, second).status, _used(engine, made["id"])) == ("cancelled", 0)


def test_an_amended_order_keeps_its_use_and_dropping_the_code_gives_it_back(
    client: TestClient, admin: dict[str, str], engine: Engine, tee: Pick
) -> None:
    made = _code(client, admin, code="ONE", usageLimit=1)
    placed = _place(client, tee, "amend", "one").json()
    token = placed["accessToken"]
    # The shopper fixes the address (the code is the order's own use: still applies).
    payload = order_payload((tee, 1), discountCode="one")
    payload["shippingAddress"]["city"] = "Troy"
    fixed = client.post(ORDERS, json=payload, headers={"Idempotency-Key": "amend", "X-Order-Token": token})
    assert fixed.status_code == 201, fixed.text
    kept = _order(engine, placed["order"]["id"])
    assert (kept.city, kept.discount_cents, kept.discount_claimed) == ("Troy", (tee.price_cents + 5) // 10, True)
    assert _used(engine, made["id"]) == 1
    payload.pop("discountCode")
    dropped = client.post(ORDERS, json=payload, headers={"Idempotency-Key": "amend", "X-Order-Token": token})
    assert dropped.status_code == 201
    order = _order(engine, placed["order"]["id"])
    assert (order.discount_code, order.discount_cents, order.discount_claimed, _used(engine, made["id"])) == (
        None, 0, False, 0
    )


# --------------------------------------------------------------------------- a rush


def test_twenty_parallel_checkouts_with_a_five_use_code_make_five_discounted_orders(
    engine: Engine, provider: DemoPrintProvider, admin: dict[str, str], client: TestClient, tee: Pick
) -> None:
    made = _code(client, admin, code="RUSH5", usageLimit=5)
    app = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider)
    start = threading.Barrier(20)

    def checkout(n: int) -> httpx.Response:
        # Each shopper has their own HTTP client (and so connection and database session).
        with httpx.Client(base_url=served.url, timeout=60, trust_env=False) as http:
            start.wait(timeout=30)
            return _place(http, tee, f"rush-{n}", "rush5", email=f"shopper{n}@example.com")

    with ServedApi(app) as served, ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(checkout, range(20)))
    placed = [a for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(placed) == 5 and all(a.json()["order"]["discountCode"] == "RUSH5" for a in placed)
    assert len(refused) == 15
    total = tee.price_cents + (0 if tee.price_cents > 10000 else SHIPPING_CENTS)
    message = f"{rules.CODE_USED_UP} Your total without it is ${total / 100:,.2f}."
    assert {(a.status_code, a.json()["error"]) for a in refused} == {(422, message)}
    assert _used(engine, made["id"]) == 5
    with Session(engine) as session:
        orders = session.exec(select(Order)).all()
        assert sorted((o.discount_code, o.discount_claimed) for o in orders) == [("RUSH5", True)] * 5


# --------------------------------------------------------------------------- Stripe


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with FakeStripe() as stripe_fake:
        yield stripe_fake


def test_a_discounted_orders_stripe_intent_is_for_the_discounted_total(
    engine: Engine, provider: DemoPrintProvider, fake: FakeStripe, tee: Pick
) -> None:
    with Session(engine) as session:
        codes.create_code(session, {"code": "QUARTER", "kind": "percent", "value": 25})
    gateway = StripeGateway(fake.secret_key, fake.publishable_key, fake.webhook_secret, api_base=fake.api_base,
                            timeout=5)
    app = create_api(Settings(), engine=engine, gateway=gateway, provider=provider)
    with ServedApi(app) as served, httpx.Client(base_url=served.url, timeout=15, trust_env=False) as http:
        answer = _place(http, tee, "stripe-disc", "quarter", quantity=2)
    assert answer.status_code == 201, answer.text
    order = _order(engine, answer.json()["order"]["id"])
    subtotal = 2 * tee.price_cents
    discount = (subtotal * 25 + 50) // 100
    shipping = 0 if subtotal - discount > 10000 else SHIPPING_CENTS
    assert (order.discount_cents, order.total_cents) == (discount, subtotal - discount + shipping)
    intent = fake.intent(order.payment_intent_id or "")
    assert (intent["amount"], intent["currency"]) == (subtotal - discount + shipping, "usd")
    assert answer.json()["payment"]["clientSecret"] == intent["client_secret"]
