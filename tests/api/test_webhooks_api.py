"""POST /api/printify/webhooks over HTTP, with a fake Printify over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import CatalogProduct, Order, WebhookDelivery
from storefront.services.orders.statuses import OrderStatus
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.client import SyncPrintifyClient
from tests.fakes.printify_server import DEFAULT_SHOP, FakePrintifyServer, sign_webhook, webhook_event
from tests.unit.orders.test_order_tracking import new_order

WEBHOOKS = "/api/printify/webhooks"
SECRET = "5f0e3c0b8a7d4e1f9a2b6c3d4e5f6a7b8c9d0e1f"
SHOP = DEFAULT_SHOP["id"]
PASSWORD = "correct horse battery"
ADDRESS = {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "", "country": "US",
           "region": "NY", "address1": "1 Main Street", "address2": "", "city": "Albany", "zip": "12207"}


async def _no_wait(_seconds: float) -> None:
    """The client's backoff, skipped: tests never sleep."""


@pytest.fixture
def fake() -> Iterator[FakePrintifyServer]:
    with FakePrintifyServer() as server:
        yield server


@pytest.fixture
def provider(fake: FakePrintifyServer) -> Iterator[SyncPrintifyClient]:
    with SyncPrintifyClient(fake.token, base_url=fake.base_url, sleep=_no_wait) as client:
        yield client


def _api(engine: Engine, provider: SyncPrintifyClient) -> TestClient:
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.delenv("PRINTIFY_API_TOKEN", raising=False)
    monkeypatch.setenv("PRINTIFY_SHOP_ID", str(SHOP))
    monkeypatch.setenv("PRINTIFY_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    return monkeypatch


@pytest.fixture
def client(engine: Engine, provider: SyncPrintifyClient, settings_env: pytest.MonkeyPatch) -> TestClient:
    return _api(engine, provider)


@pytest.fixture
def sent_order(engine: Engine, fake: FakePrintifyServer, provider: SyncPrintifyClient) -> str:
    """An order of ours that reached the fake Printify; returns the provider's order id."""
    product = fake.add_product("Night Shift Tee")
    line = {"product_id": product["id"], "variant_id": product["variants"][0]["id"], "quantity": 1}
    provider_id = provider.create_order(SHOP, {"external_id": "SF-000001", "line_items": [line],
                                               "shipping_method": 1, "address_to": ADDRESS})["id"]
    with Session(engine) as session:
        session.add(new_order(number="SF-000001", printify_order_id=provider_id, printify_status="pending"))
        session.commit()
    return provider_id


def post(client: TestClient, event: dict[str, Any], *, secret: str | None = SECRET, signature: str | None = None):  # type: ignore[no-untyped-def]
    """Deliver `event` like Printify: the raw JSON body, signed with `secret` (or the given signature)."""
    body = json.dumps(event).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "Printify-Webhooks"}
    if signature is not None:
        headers["X-Pfy-Signature"] = signature
    elif secret is not None:
        headers["X-Pfy-Signature"] = sign_webhook(body, secret)
    return client.post(WEBHOOKS, content=body, headers=headers)


def order_event(topic: str, provider_id: str, event_id: str | None = None, **data: Any) -> dict[str, Any]:
    return webhook_event(topic, provider_id, "order", {"shop_id": SHOP, **data}, event_id=event_id)


def load_order(engine: Engine) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order)).one()


def delivery_count(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(WebhookDelivery)).one()


# --------------------------------------------------------------------------- signatures


def test_a_signed_shipment_is_stored_and_shown_to_staff(
    client: TestClient, engine: Engine, fake: FakePrintifyServer, sent_order: str
) -> None:
    shipped = fake.add_shipment(sent_order, number="9400111899223197428490")
    event = order_event(
        "order:shipment:created",
        sent_order,
        shipped_at="2030-01-02 08:00:00+00:00",
        carrier={
            "code": "usps",
            "tracking_number": "9400111899223197428490",
            "tracking_url": shipped["shipments"][0]["url"],
        },
        skus=[],
    )
    response = post(client, event)
    assert (response.status_code, response.json()) == (200, {"ok": True, "result": "applied"})

    order = load_order(engine)
    # The delivery's data, completed by re-reading the order (now fulfilled).
    assert (order.status, order.printify_status) == (OrderStatus.FULFILLED, "fulfilled")
    assert (order.tracking_carrier, order.tracking_number, order.tracking_url) == (
        "usps", "9400111899223197428490", shipped["shipments"][0]["url"],
    )
    token = client.post("/api/admin/login", json={"username": "owner", "password": PASSWORD}).json()["token"]
    listed = client.get("/api/orders", headers={"x-admin-token": token}).json()["data"][0]
    assert {k: listed[k] for k in ("trackingNumber", "trackingCarrier", "trackingUrl", "shippedAt", "deliveredAt")} == {
        "trackingNumber": "9400111899223197428490",
        "trackingCarrier": "usps",
        "trackingUrl": shipped["shipments"][0]["url"],
        "shippedAt": "2030-01-02T08:00:00+00:00",
        "deliveredAt": None,
    }


@pytest.mark.parametrize(
    "signature", [None, "", "sha256=deadbeef", sign_webhook(b"{}", SECRET), sign_webhook(b"x", "wrong")]
)
def test_a_bad_or_missing_signature_answers_401_and_changes_nothing(
    client: TestClient, engine: Engine, sent_order: str, signature: str | None
) -> None:
    event = order_event("order:updated", sent_order, status="canceled")
    response = post(client, event, secret=None, signature=signature)
    assert (response.status_code, response.json()) == (401, {"error": "Invalid webhook signature", "details": None})
    order = load_order(engine)
    assert (order.status, order.printify_status, order.provider_checked_at) == (OrderStatus.PROCESSING, "pending", None)
    assert delivery_count(engine) == 0


def test_without_a_webhook_secret_every_delivery_is_refused(
    engine: Engine, provider: SyncPrintifyClient, settings_env: pytest.MonkeyPatch, sent_order: str
) -> None:
    settings_env.setenv("PRINTIFY_WEBHOOK_SECRET", "")
    client = _api(engine, provider)
    response = post(client, order_event("order:updated", sent_order, status="canceled"), secret="")
    assert response.status_code == 401
    assert delivery_count(engine) == 0


def test_a_signed_body_that_is_not_an_envelope_answers_400(client: TestClient, engine: Engine) -> None:
    body = b'{"id": "1", "type": "order:updated"}'
    response = client.post(WEBHOOKS, content=body, headers={"X-Pfy-Signature": sign_webhook(body, SECRET)})
    assert (response.status_code, response.json()) == (
        400,
        {"error": "Invalid webhook payload", "details": "resource is missing"},
    )
    assert delivery_count(engine) == 0


# --------------------------------------------------------------------------- applied once


def test_the_same_delivery_twice_is_applied_once(
    client: TestClient, engine: Engine, fake: FakePrintifyServer, sent_order: str
) -> None:
    fake.set_order_status(sent_order, "in-production")
    first = order_event("order:updated", sent_order, event_id="evt-1", status="in-production")
    assert post(client, first).json()["result"] == "applied"
    fake.set_order_status(sent_order, "canceled")
    assert (
        post(client, order_event("order:updated", sent_order, event_id="evt-2", status="canceled")).json()["result"]
        == "applied"
    )
    reads = len(fake.requests_to("GET", f"/orders/{sent_order}"))

    again = post(client, first)
    assert (again.status_code, again.json()) == (200, {"ok": True, "result": "duplicate"})
    order = load_order(engine)
    assert (order.status, order.printify_status) == (OrderStatus.CANCELLED, "canceled")
    assert delivery_count(engine) == 2
    assert len(fake.requests_to("GET", f"/orders/{sent_order}")) == reads  # nothing was done for it


def test_an_order_update_applies_without_the_provider(
    client: TestClient, engine: Engine, fake: FakePrintifyServer, sent_order: str
) -> None:
    fake.fail_with(503, times=None, path=f"/orders/{sent_order}")
    response = post(client, order_event("order:updated", sent_order, status="in-production"))
    assert response.status_code == 200
    assert load_order(engine).printify_status == "in-production"


def test_an_unknown_order_is_acknowledged_and_ignored(client: TestClient, engine: Engine, sent_order: str) -> None:
    response = post(client, order_event("order:updated", "ffffffffffffffffffffffff", status="canceled"))
    assert (response.status_code, response.json()["result"]) == (200, "ignored")
    assert load_order(engine).printify_status == "pending"
    assert delivery_count(engine) == 1


# --------------------------------------------------------------------------- publishing


def _cached(engine: Engine, product_id: str) -> CatalogProduct | None:
    with Session(engine) as session:
        return session.get(CatalogProduct, product_id)


def test_a_publish_started_puts_the_product_on_the_storefront(
    client: TestClient, engine: Engine, fake: FakePrintifyServer
) -> None:
    product = fake.add_product("Night Shift Tee", visible=False)
    event = webhook_event("product:publish:started", product["id"], "product", {"shop_id": SHOP, "action": "create"})
    response = post(client, event)
    assert (response.status_code, response.json()["result"]) == (200, "applied")

    cached = _cached(engine, product["id"])
    assert cached is not None and cached.is_published
    confirmed = fake.requests_to("POST", f"/products/{product['id']}/publishing_succeeded")
    assert [r.json() for r in confirmed] == [{"external": {"id": product["id"], "handle": f"/product/{product['id']}"}}]
    assert fake.products[SHOP][product["id"]]["visible"] is True


def test_a_publish_while_the_provider_is_down_is_retried_by_printify(
    client: TestClient, engine: Engine, fake: FakePrintifyServer
) -> None:
    product = fake.add_product("Night Shift Tee", visible=False)
    event = webhook_event("product:publish:started", product["id"], "product", {"shop_id": SHOP})
    fake.fail_with(500, times=None, path=f"/products/{product['id']}")
    refused = post(client, event)
    assert refused.status_code == 503
    assert refused.json()["error"] == "Webhook not applied, please retry"
    assert delivery_count(engine) == 0

    fake.clear_faults()
    retried = post(client, event)
    assert (retried.status_code, retried.json()["result"]) == (200, "applied")
    assert len(fake.requests_to("POST", f"/products/{product['id']}/publishing_succeeded")) == 1
    cached = _cached(engine, product["id"])
    assert cached is not None and cached.is_published
    assert delivery_count(engine) == 1


def test_a_deleted_product_leaves_the_storefront(client: TestClient, engine: Engine, fake: FakePrintifyServer) -> None:
    product = fake.add_product("Night Shift Tee")
    assert (
        post(client, webhook_event("product:updated", product["id"], "product", {"shop_id": SHOP})).status_code == 200
    )
    assert _cached(engine, product["id"]) is not None
    fake.remove_product(product["id"])
    assert (
        post(client, webhook_event("product:deleted", product["id"], "product", {"shop_id": SHOP})).status_code == 200
    )
    assert _cached(engine, product["id"]) is None
