"""Partial refunds over HTTP (POST /api/orders/{id}/refund with an amount or lines), staff resolving
an order that needs attention, and each such move the order's lifecycle refuses, with its message,
against SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import MailMessage, Order, OrderRefund
from storefront.services.admin import admin_orders
from storefront.services.orders import refund_amounts
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers
from tests.api.test_admin_orders_api import _place
from tests.ordering import seed_demo


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


def _refund(client: TestClient, admin: dict, number: str, body: Any = None, key: str | None = None) -> Any:
    headers = {**admin, **({"Idempotency-Key": key} if key else {})}
    return client.post(f"/api/orders/{number}/refund", json=body, headers=headers)


def _order(engine: Engine, number: str) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(col(Order.number) == number)).one()


def _refund_mails(engine: Engine, number: str) -> list[MailMessage]:
    order = _order(engine, number)
    with Session(engine) as session:
        query = select(MailMessage).where(
            col(MailMessage.order_id) == order.id, col(MailMessage.kind) == "order-refunded"
        )
        return list(session.exec(query.order_by(col(MailMessage.id))).all())


def test_a_partial_refund_then_the_rest(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "part", pay=True)
    total = _order(engine, number).total_cents
    answer = _refund(client, admin, number, {"amount": 5})
    assert answer.status_code == 200, answer.text
    order = answer.json()["order"]
    assert (order["paymentStatus"], order["status"], order["amountRefunded"]) == (
        "partially_refunded",
        "processing",
        5.0,
    )
    assert [
        (h["label"], h["detail"].split(" ")[0]) for h in order["history"] if h["action"] == "partially_refunded"
    ] == [("Partially refunded", "$5.00")]
    # The garment still ships: a part refund never stops the printing.
    assert "unqueued" not in [h["action"] for h in order["history"]]
    [mail] = _refund_mails(engine, number)
    assert "we refunded $5.00 for order" in mail.text_body and "Part of your order was refunded" in mail.text_body
    assert mail.subject == f"Part of order {number} was refunded"
    # The email, the status answer (and the order page) tell the customer the same status.
    status = client.get(f"/api/orders/{number}/status", headers=admin).json()
    assert f"{status['customerStatusLabel']}: {status['customerStatusText']}" in mail.text_body
    assert status["customerStatusText"].startswith("We refunded $5.00 of ")
    assert (status["paymentStatus"], status["customerStatus"]) == ("partially_refunded", "partially_refunded")

    rest = _refund(client, admin, number)
    assert rest.status_code == 200, rest.text
    order = rest.json()["order"]
    assert (order["paymentStatus"], order["amountRefunded"]) == ("refunded", total / 100)
    mails = _refund_mails(engine, number)
    left = f"${(total - 500) / 100:,.2f}"
    assert len(mails) == 2 and f"we refunded {left} for order" in mails[1].text_body
    with Session(engine) as session:
        rows = session.exec(select(OrderRefund).order_by(col(OrderRefund.id))).all()
        assert [(r.amount_cents, r.status) for r in rows] == [(500, "succeeded"), (total - 500, "succeeded")]
    # Nothing is left: a whole refund again changes nothing, an amount is refused with the reason.
    assert _refund(client, admin, number).status_code == 200
    refused = _refund(client, admin, number, {"amount": 1})
    assert (refused.status_code, refused.json()["error"]) == (409, refund_amounts.NOTHING_LEFT)


def test_the_same_click_refunds_once(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "twice", pay=True)
    answers = [_refund(client, admin, number, {"amount": "12.50"}, key="click-1") for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert _order(engine, number).refunded_cents == 1250
    with Session(engine) as session:
        assert len(session.exec(select(OrderRefund)).all()) == 1
    assert len(_refund_mails(engine, number)) == 1
    # Another click is another refund.
    assert _refund(client, admin, number, {"amount": "1.50"}, key="click-2").status_code == 200
    assert _order(engine, number).refunded_cents == 1400


def test_refunding_lines(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "lines", quantity=2, pay=True)
    detail = client.get("/api/orders", headers=admin).json()["data"][0]
    [item] = detail["items"]
    price = round(item["price"] * 100)
    first = _refund(client, admin, number, {"lines": [{"itemId": item["id"], "quantity": 1}]})
    assert first.status_code == 200, first.text
    assert first.json()["order"]["amountRefunded"] == price / 100
    assert _refund(client, admin, number, {"lines": [{"itemId": item["id"]}]}).status_code == 200
    third = _refund(client, admin, number, {"lines": [{"itemId": item["id"], "quantity": 1}]})
    assert third.status_code == 409
    assert third.json()["error"] == refund_amounts.LINE_TOO_MANY.format(left=0, name=item["name"], asked=1)
    assert _order(engine, number).refunded_cents == 2 * price


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"amount": 0}, 422, refund_amounts.AMOUNT_INVALID),
        ({"amount": -3}, 422, refund_amounts.AMOUNT_INVALID),
        ({"amount": "ten"}, 422, refund_amounts.AMOUNT_INVALID),
        ({"amount": "1.005"}, 422, refund_amounts.AMOUNT_INVALID),
        ({"amount": 1, "lines": [{"itemId": 1}]}, 422, refund_amounts.BOTH_GIVEN),
        ({"lines": []}, 422, refund_amounts.LINES_INVALID),
        ({"lines": [{"itemId": 1, "quantity": 0}]}, 422, refund_amounts.LINES_INVALID),
        ({"lines": [{"itemId": 999999}]}, 422, refund_amounts.LINE_UNKNOWN.format(item=999999)),
        ({"amount": 100000}, 409, None),
    ],
)
def test_refunds_the_lifecycle_refuses_say_why_and_change_nothing(
    client: TestClient,
    engine: Engine,
    admin: dict,
    body: dict,
    status: int,
    error: str | None,
) -> None:
    number = _place(client, engine, "refused", pay=True)
    answer = _refund(client, admin, number, body)
    assert answer.status_code == status, answer.text
    total = _order(engine, number).total_cents
    expected = error or refund_amounts.MORE_THAN_PAID.format(left=f"${total / 100:,.2f}", asked="$100,000.00")
    assert answer.json()["error"] == expected
    order = _order(engine, number)
    assert (order.payment_status, order.refunded_cents) == ("paid", 0)


def test_an_unpaid_order_is_not_refunded(client: TestClient, engine: Engine, admin: dict) -> None:
    number = _place(client, engine, "unpaid")
    answer = _refund(client, admin, number, {"amount": 1})
    assert (answer.status_code, answer.json()["error"]) == (409, "Only a paid order can be refunded.")


# --------------------------------------------------------------------------- resolve


def _set_attention(engine: Engine, number: str, reason: str | None) -> None:
    with Session(engine) as session:
        order = session.exec(select(Order).where(col(Order.number) == number)).one()
        order.attention_reason = reason
        session.add(order)
        session.commit()


def test_staff_resolve_an_order_that_needs_attention_with_a_note(
    client: TestClient, engine: Engine, admin: dict
) -> None:
    number = _place(client, engine, "resolve", pay=True)
    _set_attention(engine, number, "Refunded while the print provider was already printing it: Operation failed.")
    resolve = f"/api/orders/{number}/resolve"
    assert client.post(resolve, json={"note": "x"}).status_code == 401
    missing = client.post(resolve, json={"note": "  "}, headers=admin)
    assert (missing.status_code, missing.json()["error"]) == (422, admin_orders.NOTE_REQUIRED)
    answer = client.post(resolve, json={"note": "Told the customer the garment still ships."}, headers=admin)
    assert answer.status_code == 200, answer.text
    order = answer.json()["order"]
    assert order["attentionReason"] is None
    last = order["history"][-1]
    assert (last["action"], last["actor"], last["detail"]) == (
        "resolved",
        "owner",
        "Told the customer the garment still ships.",
    )
    # Resolved once: nothing is left to resolve, and a paid order that never needed attention neither.
    again = client.post(resolve, json={"note": "again"}, headers=admin)
    assert (again.status_code, again.json()["error"]) == (409, admin_orders.NOTHING_TO_RESOLVE)
    other = _place(client, engine, "fine", pay=True)
    refused = client.post(f"/api/orders/{other}/resolve", json={"note": "n"}, headers=admin)
    assert (refused.status_code, refused.json()["error"]) == (409, admin_orders.NOTHING_TO_RESOLVE)
