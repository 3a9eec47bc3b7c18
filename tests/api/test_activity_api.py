"""The activity log over HTTP: a row for each staff action, naming the person, with before and after."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select, update

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import ActivityEntry, CatalogProduct, Order
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.provider import validation_error
from tests.api.staff import as_owner, owner_headers
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

SAM_PASSWORD = "sam's own long passphrase"


class RefusingUpdates(DemoPrintProvider):
    """The demo provider refusing every change."""

    def update_product(self, shop_id: int, product_id: str, changes: dict) -> dict:
        raise validation_error("title: Refused for this test.")


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)


@pytest.fixture
def client(engine: Engine, tmp_path: Path, settings_env: None) -> TestClient:
    provider = seed_demo(engine, tmp_path)
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


def _staff(client: TestClient) -> dict[str, str]:
    invited = client.post(
        "/api/admin/staff", json={"email": "sam@example.com", "username": "sam", "role": "staff"},
        headers=owner_headers(client),
    )
    token = invited.json()["link"].split("token=")[1]
    assert client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).status_code == 200
    signed_in = client.post("/api/admin/login", json={"username": "sam", "password": SAM_PASSWORD})
    return {"x-admin-token": signed_in.json()["token"]}


def _a_product(engine: Engine) -> CatalogProduct:
    with Session(engine) as session:
        return session.exec(
            select(CatalogProduct).where(col(CatalogProduct.is_active)).order_by(col(CatalogProduct.id))
        ).first()  # type: ignore[return-value]


def test_a_price_edit_is_logged_with_before_and_after_naming_the_person(client: TestClient, engine: Engine) -> None:
    staff = _staff(client)
    product = _a_product(engine)
    saved = client.put(
        f"/api/products/{product.id}/update", headers=staff,
        json={"title": product.title, "price": "41.50", "shopId": 1},
    )
    assert saved.status_code == 200, saved.text

    page = client.get("/api/admin/activity", params={"action": "price-edit"}, headers=owner_headers(client)).json()
    [row] = page["data"]
    assert (row["actor"], row["target"], row["client"]) == ("sam", f"product {product.id}", "testclient")
    assert row["after"] == {"title": product.title, "price": "$41.50"}
    assert row["before"]["title"] == product.title and row["before"]["price"] != "$41.50"


def test_a_refused_edit_leaves_no_row(engine: Engine, tmp_path: Path, settings_env: None) -> None:
    seed_demo(engine, tmp_path)
    refusing = RefusingUpdates(media_dir=tmp_path / "demo")
    client = TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=refusing))
    product = _a_product(engine)
    refused = client.put(
        f"/api/products/{product.id}/update", headers=owner_headers(client),
        json={"title": "Another title", "price": "41.50", "shopId": 1},
    )
    assert refused.status_code == 502
    with Session(engine) as session:
        actions = session.exec(select(ActivityEntry.action)).all()
    assert "price-edit" not in actions and "product-edit" not in actions


def test_archive_and_restore_are_logged(client: TestClient, engine: Engine) -> None:
    owner = owner_headers(client)
    product = _a_product(engine)
    assert client.post(f"/api/products/{product.id}/archive", headers=owner, json={"shopId": 1}).status_code == 200
    assert client.post(f"/api/products/{product.id}/restore", headers=owner).status_code == 200
    rows = client.get("/api/admin/activity", headers=owner).json()["data"]
    assert [row["action"] for row in rows[:2]] == ["restore", "archive"]
    assert rows[1]["after"]["is_active"] is False


def test_the_log_is_the_owners_and_exports_as_csv(client: TestClient) -> None:
    staff = _staff(client)
    assert client.get("/api/admin/activity", headers=staff).status_code == 403
    exported = client.get("/api/admin/activity/export.csv", params={"actor": "sam"}, headers=owner_headers(client))
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(exported.text)))
    assert rows[0][:3] == ["When (UTC)", "Who", "Action"]
    assert {(row[1], row[2]) for row in rows[1:]} == {("sam", "sign-in"), ("sam", "account-change")}


def test_a_refund_and_a_resend_are_logged_naming_the_person(client: TestClient, engine: Engine) -> None:
    created = client.post(
        "/api/printify/orders", json=order_payload((pick(engine), 1)), headers={"Idempotency-Key": "r1"}
    )
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    paid = client.post(f"/api/printify/orders/{number}/process-payment",
                       json={"paymentId": "pay_r1", "cardData": GOOD_CARD}, headers={"X-Order-Token": token})
    assert paid.status_code == 200, paid.text
    owner = owner_headers(client)
    resent = client.post(f"/api/orders/{number}/resend-confirmation", headers={**owner, "Idempotency-Key": "c1"})
    assert resent.status_code == 200, resent.text
    refunded = client.post(f"/api/orders/{number}/refund", json={}, headers={**owner, "Idempotency-Key": "k1"})
    assert refunded.status_code == 200, refunded.text

    rows = client.get("/api/admin/activity", headers=owner).json()["data"]
    refunds = [row for row in rows if row["action"] == "refund"]
    assert refunds and all((row["actor"], row["target"]) == ("owner", f"order {number}") for row in refunds)
    resends = [(row["actor"], row["target"]) for row in rows if row["action"] == "resend"]
    assert resends == [("owner", f"order {number}")]


def test_an_event_change_is_logged(client: TestClient) -> None:
    owner = owner_headers(client)
    created = client.post("/api/events", headers=owner, json={
        "title": "Summer Tour Kickoff", "description": "The first night of the summer tour.", "location": "Austin, TX",
        "startDate": "2031-06-01T19:00:00Z",
    })
    assert created.status_code == 201, created.text
    event_id = created.json()["id"]
    assert client.delete(f"/api/events/{event_id}", headers=owner).status_code == 200
    rows = client.get("/api/admin/activity", params={"action": "event-change"}, headers=owner).json()["data"]
    assert [(row["actor"], row["target"], row["after"]) for row in rows] == [
        ("owner", f"event {event_id}", {"deleted": True}),
        ("owner", f"event {event_id}", {"created": "Summer Tour Kickoff"}),
    ]


def _order(client: TestClient, engine: Engine, key: str, *, paid: bool) -> str:
    """A new order's number, paid with the test card when `paid`."""
    payload = order_payload((pick(engine), 1))
    created = client.post("/api/printify/orders", json=payload, headers={"Idempotency-Key": key})
    assert created.status_code == 201, created.text
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    if paid:
        answer = client.post(f"/api/printify/orders/{number}/process-payment",
                             json={"paymentId": f"pay_{key}", "cardData": GOOD_CARD}, headers={"X-Order-Token": token})
        assert answer.status_code == 200, answer.text
    return str(number)


def test_a_refund_a_cancel_and_a_resolve_name_the_person_and_their_address(client: TestClient, engine: Engine) -> None:
    owner = owner_headers(client)
    refunded = _order(client, engine, "a1", paid=True)
    answer = client.post(f"/api/orders/{refunded}/refund", json={}, headers={**owner, "Idempotency-Key": "k1"})
    assert answer.status_code == 200, answer.text
    cancelled = _order(client, engine, "a2", paid=False)
    answer = client.post(f"/api/orders/{cancelled}/cancel", headers=owner)
    assert answer.status_code == 200, answer.text
    resolved = _order(client, engine, "a3", paid=True)
    with Session(engine) as session:
        session.execute(update(Order).where(col(Order.number) == resolved).values(attention_reason="Refused"))
        session.commit()
    answer = client.post(f"/api/orders/{resolved}/resolve", json={"note": "Sent it by hand."}, headers=owner)
    assert answer.status_code == 200, answer.text

    rows = client.get("/api/admin/activity", headers=owner).json()["data"]
    for action, number in (("refund", refunded), ("cancel", cancelled), ("order-change", resolved)):
        target = f"order {number}"
        logged = [(row["actor"], row["client"]) for row in rows if (row["action"], row["target"]) == (action, target)]
        assert logged and set(logged) == {("owner", "testclient")}, (action, logged)
