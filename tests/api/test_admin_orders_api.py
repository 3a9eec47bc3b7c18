"""The admin order routes over HTTP, against SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select, update

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import MailMessage, Order
from storefront.services.admin.admin_orders import CSV_HEADER, NO_ATTENTION, NOT_PAID
from storefront.services.orders import order_lookup
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.errors import NotFoundError
from tests.api.staff import as_owner, owner_headers
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

REASON = "address_to.zip: The address to.zip is invalid."


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


def _place(client: TestClient, engine: Engine, key: str, quantity: int = 1, pay: bool = False) -> str:
    """Place (and optionally pay) an order through the shopper's routes; returns its number."""
    created = client.post(
        "/api/printify/orders", json=order_payload((pick(engine), quantity)), headers={"Idempotency-Key": key}
    )
    assert created.status_code == 201, created.text
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    if pay:
        paid = client.post(
            f"/api/printify/orders/{number}/process-payment",
            json={"paymentId": f"pay_{key}", "cardData": GOOD_CARD},
            headers={"X-Order-Token": token},
        )
        assert paid.status_code == 200, paid.text
    return number


def _needs_attention(engine: Engine, number: str) -> None:
    with Session(engine) as session:
        session.execute(update(Order).where(Order.number == number).values(attention_reason=REASON))
        session.commit()


def test_orders_answer_a_page_newest_first_with_the_total(client: TestClient, engine: Engine, admin: dict) -> None:
    numbers = [_place(client, engine, f"k{n}", quantity=n + 1) for n in range(3)]
    response = client.get("/api/orders", params={"limit": 2}, headers=admin)
    assert response.status_code == 200
    body = response.json()
    assert [o["id"] for o in body["data"]] == numbers[::-1][:2]
    assert (body["total"], body["hasMore"]) == (3, True)
    first = body["data"][0]
    assert {
        "customerName",
        "customerEmail",
        "subtotal",
        "shipping",
        "tax",
        "total",
        "status",
        "paymentStatus",
        "printifyStatus",
        "printifyOrderId",
        "trackingNumber",
        "createdAt",
        "shippingAddress",
        "items",
    } <= set(first)
    assert [i["quantity"] for i in first["items"]] == [3]


def test_the_next_cursor_opens_the_next_page(client: TestClient, engine: Engine, admin: dict) -> None:
    numbers = [_place(client, engine, f"k{n}") for n in range(3)]
    first = client.get("/api/orders", params={"limit": 2}, headers=admin).json()
    rest = client.get("/api/orders", params={"limit": 2, "cursor": first["nextCursor"]}, headers=admin).json()
    assert [o["id"] for o in rest["data"]] == numbers[:1]
    assert (rest["hasMore"], rest["nextCursor"]) == (False, None)


def test_an_empty_order_book_is_an_empty_page(client: TestClient, admin: dict) -> None:
    assert client.get("/api/orders", headers=admin).json() == {
        "data": [],
        "total": 0,
        "nextCursor": None,
        "hasMore": False,
    }


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"cursor": "abc"}])
def test_a_bad_limit_or_cursor_answers_422_with_the_error_body(client: TestClient, admin: dict, params: dict) -> None:
    response = client.get("/api/orders", params=params, headers=admin)
    assert response.status_code == 422
    body = response.json()
    assert set(body) == {"error", "details"} and set(body["details"]) == set(params)


def test_the_csv_export_is_a_download_with_a_row_per_order(client: TestClient, engine: Engine, admin: dict) -> None:
    numbers = [_place(client, engine, f"k{n}") for n in range(2)]
    response = client.get("/api/orders/export.csv", headers=admin)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert 'filename="orders.csv"' in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert tuple(rows[0]) == CSV_HEADER
    assert [r[0] for r in rows[1:]] == numbers[::-1]


def test_retry_requeues_an_order_that_needs_attention(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "k1", pay=True)
    _needs_attention(engine, number)
    response = client.post(f"/api/orders/{number}/retry-fulfilment", headers=admin)
    assert response.status_code == 200, response.text
    assert (response.json()["success"], response.json()["order"]["attentionReason"]) == (True, None)
    again = client.post(f"/api/orders/{number}/retry-fulfilment", headers=admin)
    assert (again.status_code, again.json()) == (409, {"error": NO_ATTENTION, "details": None})


def test_retry_of_an_unpaid_order_answers_409(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "k1")
    _needs_attention(engine, number)
    response = client.post(f"/api/orders/{number}/retry-fulfilment", headers=admin)
    assert (response.status_code, response.json()["error"]) == (409, NOT_PAID)


def test_retry_of_an_unknown_order_answers_404(client: TestClient, admin: dict) -> None:
    response = client.post("/api/orders/SF-999999/retry-fulfilment", headers=admin)
    assert (response.status_code, response.json()) == (404, {"error": "Order not found", "details": None})


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/api/orders"), ("GET", "/api/orders/export.csv"), ("POST", "/api/orders/SF-000001/retry-fulfilment")],
)
def test_the_order_routes_refuse_without_a_session(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 401
    assert set(response.json()) >= {"error", "details"}


def test_an_order_paid_with_the_test_gateway_is_refunded_once_with_the_admins_name(
    client: TestClient, engine: Engine, admin: dict
) -> None:
    number = _place(client, engine, "refund-me", pay=True)
    answers = [client.post(f"/api/orders/{number}/refund", headers=admin) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    order = answers[1].json()["order"]
    assert (order["paymentStatus"], order["status"], order["paymentProvider"]) == ("refunded", "cancelled", "test")
    history = order["history"]
    assert [(h["actor"], h["label"]) for h in history if h["action"] == "refunded"] == [("owner", "Refunded")]
    assert [h["action"] for h in history] == ["paid", "refund_requested", "refunded", "unqueued"]
    with Session(engine) as session:
        kept = session.exec(select(Order).where(Order.number == number)).one()
    assert kept.refund_id and kept.refund_id.startswith("re_test_")


def test_the_order_table_filters_paid_orders_and_checkouts_awaiting_payment(
    client: TestClient, engine: Engine, admin: dict
) -> None:
    paid = _place(client, engine, "paid", pay=True)
    unpaid = _place(client, engine, "unpaid")
    shown = client.get("/api/orders", params={"view": "paid"}, headers=admin).json()
    awaiting = client.get("/api/orders", params={"view": "awaiting"}, headers=admin).json()
    assert ([o["id"] for o in shown["data"]], shown["total"]) == ([paid], 1)
    assert ([o["id"] for o in awaiting["data"]], awaiting["total"]) == ([unpaid], 1)
    assert client.get("/api/orders", params={"view": "nope"}, headers=admin).status_code == 422


def test_cancelling_an_unpaid_order_keeps_it_from_being_paid(client: TestClient, engine: Engine, admin: dict) -> None:
    created = client.post(
        "/api/printify/orders", json=order_payload((pick(engine), 1)), headers={"Idempotency-Key": "c"}
    )
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    cancelled = client.post(f"/api/orders/{number}/cancel", headers=admin)
    assert cancelled.status_code == 200 and cancelled.json()["order"]["status"] == "cancelled"
    paid = client.post(f"/api/printify/orders/{number}/process-payment",
                       json={"paymentId": "pay_late", "cardData": GOOD_CARD}, headers={"X-Order-Token": token})
    assert paid.status_code == 409
    assert client.post(f"/api/orders/{number}/refund", headers=admin).status_code == 409


def test_staff_revoke_the_links_of_an_orders_emails(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "links", pay=True)
    emails = client.app.state.services.emails  # type: ignore[attr-defined]
    with Session(engine) as session:
        [mail] = session.exec(select(MailMessage)).all()
        link = html.unescape(re.search(r'href="([^"]*/order-status\?[^"]*)"', mail.html_body)[1])  # type: ignore[index]
        key = parse_qs(urlsplit(link).query)["key"][0]
        assert order_lookup.order_view_by_link(session, number, key, emails)["orderNumber"] == number
    assert client.post(f"/api/orders/{number}/revoke-links").status_code == 401
    assert client.post("/api/orders/SF-999999/revoke-links", headers=admin).status_code == 404
    answer = client.post(f"/api/orders/{number}/revoke-links", headers=admin)
    assert answer.status_code == 200 and answer.json()["success"] is True
    assert [line["label"] for line in answer.json()["order"]["history"]][-1] == "Email links revoked"
    with Session(engine) as session, pytest.raises(NotFoundError):
        order_lookup.order_view_by_link(session, number, key, emails)
