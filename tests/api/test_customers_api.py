"""Customers over HTTP: the list from orders and the newsletter, a customer's page, the JSON
export and the erase (orders keep their money; name, email, phone and address go everywhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import ActivityEntry, MailMessage, NewsletterSubscriber, Order, OrderHistory, OrderItem, utcnow
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

PERSONAL = ("ada@example.com", "Ada", "Lovelace", "+1 518 555 0100", "12 Analytical Row", "12207")


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


def _paid_order(client: TestClient, engine: Engine, key: str, email: str = "ada@example.com") -> str:
    created = client.post(
        "/api/printify/orders", json=order_payload((pick(engine), 1), customerEmail=email),
        headers={"Idempotency-Key": key},
    )
    assert created.status_code == 201, created.text
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    paid = client.post(
        f"/api/printify/orders/{number}/process-payment", json={"paymentId": f"pay_{key}", "cardData": GOOD_CARD},
        headers={"X-Order-Token": token},
    )
    assert paid.status_code == 200, paid.text
    return str(number)


def _send_the_mail(client: TestClient) -> None:
    """Send what is queued the way a store without SMTP does: each message as an .eml file."""
    assert client.app.state.services.mail_outbox().run_due(limit=50) > 0  # type: ignore[attr-defined]


def test_the_list_joins_orders_and_the_newsletter(client: TestClient, engine: Engine) -> None:
    _paid_order(client, engine, "a1")
    _paid_order(client, engine, "a2", email="ADA@example.com")
    _paid_order(client, engine, "b1", email="bob@example.com")
    with Session(engine) as session:
        session.add(NewsletterSubscriber(email="ada@example.com", confirmed_at=utcnow()))
        session.add(NewsletterSubscriber(email="reader@example.com", confirmed_at=utcnow()))
        session.commit()
        totals = {o.customer_email.lower(): 0 for o in session.exec(select(Order)).all()}
        for order in session.exec(select(Order)).all():
            totals[order.customer_email.lower()] += order.total_cents
    answer = client.get("/api/admin/customers", headers=owner_headers(client))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    rows = {row["email"]: row for row in body["data"]}
    assert body["total"] == 3 and set(rows) == {"ada@example.com", "bob@example.com", "reader@example.com"}
    assert (rows["ada@example.com"]["orders"], rows["ada@example.com"]["subscribed"]) == (2, True)
    assert rows["ada@example.com"]["spentCents"] == totals["ada@example.com"]
    assert rows["ada@example.com"]["name"] == "Ada Lovelace"
    assert (rows["reader@example.com"]["orders"], rows["bob@example.com"]["subscribed"]) == (0, False)
    assert body["data"][-1]["email"] == "reader@example.com"


def test_staff_cannot_see_customers(client: TestClient, engine: Engine) -> None:
    owner = owner_headers(client)
    invited = client.post(
        "/api/admin/staff", json={"email": "sam@example.com", "username": "sam", "role": "staff"}, headers=owner
    )
    token = invited.json()["link"].split("token=")[1]
    client.post("/api/staff/set-password", json={"token": token, "password": "sam's own long passphrase"})
    sam = client.post("/api/admin/login", json={"username": "sam", "password": "sam's own long passphrase"})
    headers = {"x-admin-token": sam.json()["token"]}
    assert client.get("/api/admin/customers", headers=headers).status_code == 403
    assert client.post("/api/admin/customers/erase", json={"email": "a@b.co"}, headers=headers).status_code == 403


def test_the_export_holds_the_orders_and_is_logged(client: TestClient, engine: Engine) -> None:
    number = _paid_order(client, engine, "a1")
    exported = client.post("/api/admin/customers/export", json={"email": "Ada@Example.com"},
                           headers=owner_headers(client))
    assert exported.status_code == 200, exported.text
    data = exported.json()
    assert [o["number"] for o in data["orders"]] == [number]
    assert data["orders"][0]["shippingAddress"]["address1"] == "12 Analytical Row"
    assert data["orders"][0]["items"][0]["quantity"] == 1
    with Session(engine) as session:
        entry = session.exec(select(ActivityEntry).where(col(ActivityEntry.action) == "customer-export")).one()
    assert entry.actor == "owner" and "ada@example.com" not in entry.target


def test_erasing_keeps_the_totals_and_removes_the_personal_fields_everywhere(
    client: TestClient, engine: Engine, tmp_path: Path
) -> None:
    number = _paid_order(client, engine, "a1")
    other = _paid_order(client, engine, "b1", email="bob@example.com")
    _send_the_mail(client)
    with Session(engine) as session:
        before = session.exec(select(Order).where(col(Order.number) == number)).one()
        totals = (before.subtotal_cents, before.shipping_cents, before.tax_cents, before.total_cents)
        payment_status = before.payment_status
        items_before = [(i.name, i.quantity, i.unit_price_cents) for i in session.exec(
            select(OrderItem).where(col(OrderItem.order_id) == before.id))]
        session.add(OrderHistory(order_id=before.id, actor="owner", action="note",
                                 detail="Called Ada Lovelace on +1 518 555 0100"))
        session.add(NewsletterSubscriber(email="ada@example.com", confirmed_at=utcnow()))
        session.commit()
    eml_files = list((tmp_path / "mail").glob("*.eml"))
    assert any("Lovelace" in f.read_text(errors="ignore") for f in eml_files)

    erased = client.post("/api/admin/customers/erase", json={"email": "ada@example.com"}, headers=owner_headers(client))
    assert erased.status_code == 200, erased.text
    assert erased.json()["ordersKept"] == 1

    with Session(engine) as session:
        after = session.exec(select(Order).where(col(Order.number) == number)).one()
        assert (after.subtotal_cents, after.shipping_cents, after.tax_cents, after.total_cents) == totals
        assert after.payment_status == payment_status
        items_after = [(i.name, i.quantity, i.unit_price_cents) for i in session.exec(
            select(OrderItem).where(col(OrderItem.order_id) == after.id))]
        assert items_after == items_before
        stored = json.dumps([
            after.model_dump(mode="json"),
            [h.model_dump(mode="json") for h in session.exec(select(OrderHistory)).all()],
            [m.model_dump(mode="json") for m in session.exec(select(MailMessage)).all()
             if m.order_id == after.id or m.recipient != "bob@example.com"],
            [s.model_dump(mode="json") for s in session.exec(select(NewsletterSubscriber)).all()],
            [a.model_dump(mode="json") for a in session.exec(select(ActivityEntry)).all()],
        ])
        bob = session.exec(select(Order).where(col(Order.number) == other)).one()
    for value in PERSONAL:
        assert value.lower() not in stored.lower(), value
    assert bob.customer_email == "bob@example.com" and bob.customer_name == "Ada Lovelace"  # another customer kept
    # Ada's .eml files are gone; Bob's (sent to him) stay.
    left = list((tmp_path / "mail").glob("*.eml"))
    assert 0 < len(left) < len(eml_files)
    assert all("bob@example.com" in path.read_text(errors="ignore") for path in left)
    listed = client.get("/api/admin/customers", headers=owner_headers(client)).json()
    assert [row["email"] for row in listed["data"]] == ["bob@example.com"]
