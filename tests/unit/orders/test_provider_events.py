"""Printify webhooks in the service: signatures, the envelope, and each delivery applied once."""

from __future__ import annotations

import copy
import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from storefront.models import CatalogProduct, Order, WebhookDelivery
from storefront.services.catalog.sync import upsert_product
from storefront.services.orders import provider_events
from storefront.services.orders.provider_events import (
    INVALID_PAYLOAD,
    INVALID_SIGNATURE,
    STORE_FAILED,
    InvalidSignature,
    MalformedWebhook,
    Outcome,
    ProviderEvents,
    WebhookNotApplied,
    parse_event,
    signature_is_valid,
)
from storefront.services.orders.statuses import OrderStatus
from storefront.services.printify.errors import ProviderError, ProviderNotFound, ProviderUnavailable
from storefront.services.printify.provider import validation_error
from storefront.wiring import session_factory
from tests.fakes.printify_server import make_product, sign_webhook, webhook_event
from tests.ordering import ORDER_EMAILS, FakeClock
from tests.unit.orders.test_order_tracking import new_order, provider_order, shipment

SECRET = "b1946ac92492d2347c6235b4d2611184"
SHOP = 4242
ORDER_ID = "5a96f649b2439217d070f507"
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


class FakeProvider:
    """The provider calls webhooks make, over dicts; `down` makes each call fail like an outage."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {}
        self.products: dict[str, dict[str, Any]] = {}
        self.down = False
        self.refuse_success: ProviderError | None = None
        self.succeeded: list[tuple[str, dict]] = []
        self.failed: list[tuple[str, str]] = []

    def _check(self) -> None:
        if self.down:
            raise ProviderUnavailable("Printify unreachable")

    def get_order(self, shop_id: int, order_id: str) -> dict[str, Any]:
        self._check()
        if order_id not in self.orders:
            raise ProviderNotFound()
        return copy.deepcopy(self.orders[order_id])

    def get_product(self, shop_id: int, product_id: str) -> dict[str, Any]:
        self._check()
        if product_id not in self.products:
            raise ProviderNotFound()
        return copy.deepcopy(self.products[product_id])

    def publishing_succeeded(self, shop_id: int, product_id: str, external: dict) -> dict:
        self._check()
        if self.refuse_success is not None:
            raise self.refuse_success
        self.succeeded.append((product_id, external))
        return {}

    def publishing_failed(self, shop_id: int, product_id: str, reason: str) -> dict:
        self._check()
        self.failed.append((product_id, reason))
        return {}


@pytest.fixture
def provider() -> FakeProvider:
    return FakeProvider()


@pytest.fixture
def events(engine: Engine, provider: FakeProvider) -> ProviderEvents:
    return ProviderEvents(session_factory(engine), provider, SHOP, SECRET, clock=FakeClock(NOW), emails=ORDER_EMAILS)  # type: ignore[arg-type]


@pytest.fixture
def order(engine: Engine) -> Order:
    with Session(engine) as session:
        saved = new_order(printify_order_id=ORDER_ID)
        session.add(saved)
        session.commit()
        session.refresh(saved)
        return saved


def deliver(events: ProviderEvents, topic: str, resource_id: str, data: dict | None = None, *,
            event_id: str | None = None) -> Outcome:
    """Sign and hand one delivery to the service, as the route does."""
    kind = topic.split(":")[0]
    event = webhook_event(topic, resource_id, kind, {"shop_id": SHOP} if data is None else data, event_id=event_id)
    body = json.dumps(event).encode()
    return events.receive(body, sign_webhook(body, SECRET))


def load_order(engine: Engine) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(Order.printify_order_id == ORDER_ID)).one()


def deliveries(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(WebhookDelivery)).one()


def cached(engine: Engine, product_id: str) -> CatalogProduct | None:
    with Session(engine) as session:
        return session.get(CatalogProduct, product_id)


# --------------------------------------------------------------------------- signatures


def test_a_signature_of_the_raw_body_is_accepted_with_or_without_its_prefix() -> None:
    body = b'{"id": "1"}'
    signature = sign_webhook(body, SECRET)
    assert signature.startswith("sha256=")
    assert signature_is_valid(body, signature, SECRET)
    assert signature_is_valid(body, signature.removeprefix("sha256="), SECRET)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "sha256=",
        "sha256=00",
        sign_webhook(b'{"id": "2"}', SECRET),
        sign_webhook(b'{"id": "1"}', "other"),
        "é",
    ],
)
def test_a_missing_or_wrong_signature_is_refused(header: str | None) -> None:
    assert not signature_is_valid(b'{"id": "1"}', header, SECRET)


def test_without_a_secret_every_delivery_is_refused_and_logged_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provider_events, "_missing_secret_logged", False)
    body = b'{"id": "1"}'
    with caplog.at_level(logging.ERROR, logger=provider_events.__name__):
        assert not signature_is_valid(body, sign_webhook(body, ""), "")
        assert not signature_is_valid(body, sign_webhook(body, ""), "")
    assert [r.getMessage() for r in caplog.records].count(
        "PRINTIFY_WEBHOOK_SECRET is not set: every Printify webhook delivery is refused with 401. "
        "Set it to the secret the webhooks were created with."
    ) == 1


def test_a_bad_signature_applies_nothing(engine: Engine, events: ProviderEvents, order: Order) -> None:
    body = json.dumps(
        webhook_event("order:updated", ORDER_ID, "order", {"shop_id": SHOP, "status": "canceled"})
    ).encode()
    with pytest.raises(InvalidSignature) as raised:
        events.receive(body, sign_webhook(body, "not-the-secret"))
    assert (raised.value.status_code, raised.value.message) == (401, INVALID_SIGNATURE)
    assert load_order(engine).status == OrderStatus.PROCESSING
    assert deliveries(engine) == 0


# --------------------------------------------------------------------------- the envelope


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"{not json", "The body is not JSON"),
        (b"\xff\xfe", "The body is not JSON"),
        (b"[1]", "The body is not a JSON object"),
        (b'{"id": "1", "type": "order:updated"}', "resource is missing"),
        (b'{"type": "order:updated", "resource": {"id": "a", "data": {}}}', "id is missing"),
        (b'{"id": "1", "resource": {"id": "a", "data": {}}}', "type is missing"),
        (b'{"id": "1", "type": "order:updated", "resource": {"data": {}}}', "resource.id is missing"),
        (
            b'{"id": "1", "type": "order:updated", "resource": {"id": "a", "data": [1]}}',
            "resource.data is not an object",
        ),
    ],
)
def test_a_malformed_envelope_says_what_is_wrong(body: bytes, problem: str) -> None:
    with pytest.raises(MalformedWebhook) as raised:
        parse_event(body)
    assert (raised.value.status_code, raised.value.message, raised.value.details) == (400, INVALID_PAYLOAD, problem)


def test_an_envelope_is_parsed() -> None:
    event = parse_event(json.dumps(webhook_event("shop:disconnected", 4242, "shop", None, event_id="e-1")).encode())
    assert (event.id, event.topic, event.resource_id, event.resource_type, dict(event.data)) == (
        "e-1", "shop:disconnected", "4242", "shop", {},
    )


# --------------------------------------------------------------------------- orders


def test_an_order_update_sets_the_status_once(engine: Engine, events: ProviderEvents, order: Order) -> None:
    events._refetch_orders = False
    assert (
        deliver(events, "order:updated", ORDER_ID, {"shop_id": SHOP, "status": "in-production"}, event_id="a")
        == Outcome.APPLIED
    )
    assert (
        deliver(events, "order:updated", ORDER_ID, {"shop_id": SHOP, "status": "canceled"}, event_id="b")
        == Outcome.APPLIED
    )
    # The first delivery again (Printify retries): a no-op, the order is not rolled back.
    assert (
        deliver(events, "order:updated", ORDER_ID, {"shop_id": SHOP, "status": "in-production"}, event_id="a")
        == Outcome.DUPLICATE
    )
    saved = load_order(engine)
    assert (saved.printify_status, saved.status, saved.provider_checked_at) == ("canceled", OrderStatus.CANCELLED, NOW)
    assert deliveries(engine) == 2


def test_a_shipment_is_stored_from_the_delivery_while_the_provider_is_down(
    engine: Engine, events: ProviderEvents, provider: FakeProvider, order: Order
) -> None:
    provider.down = True
    data = {
        "shop_id": SHOP,
        "shipped_at": "2030-01-01 09:00:00+00:00",
        "carrier": {"code": "usps", "tracking_number": "9400111899223197428490", "tracking_url": "https://t.example/9400"},
        "skus": ["SKU-1"],
    }
    assert deliver(events, "order:shipment:created", ORDER_ID, data) == Outcome.APPLIED
    saved = load_order(engine)
    assert (saved.tracking_carrier, saved.tracking_number, saved.tracking_url) == (
        "usps", "9400111899223197428490", "https://t.example/9400",
    )
    assert saved.shipped_at == datetime(2030, 1, 1, 9, 0, tzinfo=UTC)
    delivered = {**data, "delivered_at": "2030-01-03 15:00:00+00:00"}
    del delivered["shipped_at"]
    assert deliver(events, "order:shipment:delivered", ORDER_ID, delivered) == Outcome.APPLIED
    saved = load_order(engine)
    assert saved.delivered_at == datetime(2030, 1, 3, 15, 0, tzinfo=UTC)
    assert saved.shipped_at == datetime(2030, 1, 1, 9, 0, tzinfo=UTC)


def test_an_order_event_re_reads_the_order_for_its_details(
    engine: Engine, events: ProviderEvents, provider: FakeProvider, order: Order
) -> None:
    provider.orders[ORDER_ID] = provider_order("fulfilled", shipment(), fulfilled_at="2030-01-01 10:00:00+00:00")
    assert deliver(events, "order:created", ORDER_ID) == Outcome.APPLIED
    saved = load_order(engine)
    assert (saved.status, saved.printify_status, saved.tracking_number) == (
        OrderStatus.FULFILLED, "fulfilled", "9400111899223197428490",
    )


def test_sent_to_production_moves_a_waiting_order_on(engine: Engine, events: ProviderEvents, order: Order) -> None:
    events._refetch_orders = False
    assert deliver(events, "order:sent-to-production", ORDER_ID) == Outcome.APPLIED
    assert load_order(engine).printify_status == "in-production"


def test_an_unknown_order_is_recorded_and_ignored(engine: Engine, events: ProviderEvents, order: Order) -> None:
    assert (
        deliver(events, "order:updated", "ffffffffffffffffffffffff", {"shop_id": SHOP, "status": "canceled"})
        == Outcome.IGNORED
    )
    assert deliveries(engine) == 1
    assert load_order(engine).status == OrderStatus.PROCESSING


def test_another_shops_delivery_is_recorded_and_ignored(engine: Engine, events: ProviderEvents, order: Order) -> None:
    assert deliver(events, "order:updated", ORDER_ID, {"shop_id": 999, "status": "canceled"}) == Outcome.IGNORED
    assert deliveries(engine) == 1
    assert load_order(engine).printify_status == "pending"


def test_a_topic_the_store_does_not_handle_is_recorded(engine: Engine, events: ProviderEvents) -> None:
    assert deliver(events, "shop:disconnected", "4242", {}) == Outcome.IGNORED
    assert deliveries(engine) == 1


def test_a_database_error_is_not_recorded_so_the_retry_applies_it(
    engine: Engine, events: ProviderEvents, order: Order, monkeypatch: pytest.MonkeyPatch
) -> None:
    events._refetch_orders = False

    def broken(*_args: object) -> bool:
        raise OperationalError("UPDATE orders", {}, Exception("database is locked"))

    with monkeypatch.context() as patch:
        patch.setattr(provider_events, "apply_order_event", broken)
        with pytest.raises(WebhookNotApplied) as raised:
            deliver(events, "order:updated", ORDER_ID, {"shop_id": SHOP, "status": "in-production"}, event_id="x")
    assert raised.value.status_code == 503
    assert deliveries(engine) == 0
    assert (
        deliver(events, "order:updated", ORDER_ID, {"shop_id": SHOP, "status": "in-production"}, event_id="x")
        == Outcome.APPLIED
    )
    assert load_order(engine).printify_status == "in-production"


# --------------------------------------------------------------------------- products


def product(product_id: str = "6500a1b2c3d4e5f601234567", **kwargs: Any) -> dict[str, Any]:
    return make_product(SHOP, "Night Shift Tee", product_id=product_id, visible=False, **kwargs)


def test_a_publish_stores_the_product_published_then_confirms_it(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    provider.products[item["id"]] = item
    assert deliver(events, "product:publish:started", item["id"]) == Outcome.APPLIED
    row = cached(engine, item["id"])
    assert row is not None and row.is_published and row.title == "Night Shift Tee"
    assert provider.succeeded == [(item["id"], {"id": item["id"], "handle": f"/product/{item['id']}"})]
    assert deliveries(engine) == 1


def test_a_publish_while_the_provider_is_down_is_left_for_the_retry(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    provider.products[item["id"]] = item
    provider.down = True
    with pytest.raises(WebhookNotApplied):
        deliver(events, "product:publish:started", item["id"], event_id="p-1")
    assert (deliveries(engine), cached(engine, item["id"])) == (0, None)
    provider.down = False
    assert deliver(events, "product:publish:started", item["id"], event_id="p-1") == Outcome.APPLIED
    assert len(provider.succeeded) == 1


def test_a_confirmation_that_fails_for_now_undoes_the_published_mark(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    provider.products[item["id"]] = item
    provider.refuse_success = ProviderUnavailable("Printify unreachable")
    with pytest.raises(WebhookNotApplied):
        deliver(events, "product:publish:started", item["id"])
    row = cached(engine, item["id"])
    assert row is not None and not row.is_published
    assert deliveries(engine) == 0


def test_a_confirmation_the_provider_refuses_is_reported_as_failed(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    provider.products[item["id"]] = item
    provider.refuse_success = validation_error("external: The external id and handle fields are required.")
    assert deliver(events, "product:publish:started", item["id"]) == Outcome.IGNORED
    assert provider.failed == [(item["id"], "external: The external id and handle fields are required.")]
    row = cached(engine, item["id"])
    assert row is not None and not row.is_published
    assert deliveries(engine) == 1


def test_a_product_the_store_cannot_read_is_reported_as_failed(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    item["variants"][0]["id"] = "not-a-number"
    provider.products[item["id"]] = item
    assert deliver(events, "product:publish:started", item["id"]) == Outcome.IGNORED
    assert provider.failed == [(item["id"], STORE_FAILED)]
    assert provider.succeeded == []
    assert cached(engine, item["id"]) is None


def test_a_deleted_product_leaves_the_catalogue(engine: Engine, events: ProviderEvents) -> None:
    item = product()
    with Session(engine) as session:
        upsert_product(session, item, SHOP)
        session.commit()
    assert deliver(events, "product:deleted", item["id"]) == Outcome.APPLIED
    assert cached(engine, item["id"]) is None


def test_an_updated_product_is_refreshed_and_one_gone_is_removed(
    engine: Engine, events: ProviderEvents, provider: FakeProvider
) -> None:
    item = product()
    provider.products[item["id"]] = {**item, "title": "Night Shift Tee II"}
    with Session(engine) as session:
        upsert_product(session, item, SHOP)
        session.commit()
    assert deliver(events, "product:updated", item["id"]) == Outcome.APPLIED
    row = cached(engine, item["id"])
    assert row is not None and row.title == "Night Shift Tee II"
    del provider.products[item["id"]]
    assert deliver(events, "product:updated", item["id"]) == Outcome.APPLIED
    assert cached(engine, item["id"]) is None


def test_another_shops_product_is_left_alone(engine: Engine, events: ProviderEvents, provider: FakeProvider) -> None:
    item = product()
    provider.products[item["id"]] = item
    assert deliver(events, "product:publish:started", item["id"], {"shop_id": 1}) == Outcome.IGNORED
    assert (provider.succeeded, cached(engine, item["id"])) == ([], None)
