"""The print provider's steps (in production, shipped, delivered) through the lifecycle: from webhooks
and from the poll alike, each writes its history line once and the shipping notice goes out once."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import MailMessage, Order, OrderHistory
from storefront.services.orders import order_emails, order_history
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_tracking import OrderTracker
from storefront.services.orders.provider_events import Outcome, ProviderEvents
from storefront.services.orders.statuses import OrderStatus
from storefront.services.platform.signing import LinkSigner
from storefront.wiring import session_factory
from tests.fakes.printify_server import sign_webhook, webhook_event
from tests.ordering import FakeClock
from tests.unit.orders.test_order_tracking import new_order, provider_order, shipment
from tests.unit.orders.test_provider_events import FakeProvider

SECRET = "b1946ac92492d2347c6235b4d2611184"
SHOP = 4242
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
EMAILS = OrderEmails("https://shop.example", LinkSigner(b"test-signing-key"))
WEBHOOK_ORDER = "5a96f649b2439217d070f507"
POLLED_ORDER = "5a96f649b2439217d070f508"
SHIPMENT = {
    "shop_id": SHOP,
    "shipped_at": "2030-01-01 09:00:00+00:00",
    "carrier": {"code": "usps", "tracking_number": "9400111899223197428490", "tracking_url": "https://t.example/9400"},
}


def _save(engine: Engine, number: str, provider_order_id: str) -> Order:
    with Session(engine) as session:
        order = new_order(number=number, printify_order_id=provider_order_id)
        session.add(order)
        session.commit()
        session.refresh(order)
        return order


def _events(engine: Engine, provider: FakeProvider, *, refetch: bool = False) -> ProviderEvents:
    return ProviderEvents(session_factory(engine), provider, SHOP, SECRET, clock=FakeClock(NOW),  # type: ignore[arg-type]
                          refetch_orders=refetch, emails=EMAILS)


def _deliver(events: ProviderEvents, topic: str, data: dict[str, Any], event_id: str,
             provider_order_id: str = WEBHOOK_ORDER) -> Outcome:
    body = json.dumps(webhook_event(topic, provider_order_id, "order", data, event_id=event_id)).encode()
    return events.receive(body, sign_webhook(body, SECRET))


def _history(engine: Engine, order: Order) -> list[str]:
    with Session(engine) as session:
        query = select(OrderHistory).where(col(OrderHistory.order_id) == order.id).order_by(col(OrderHistory.id))
        return [row.action for row in session.exec(query).all()]


def _shipped_mails(engine: Engine, order: Order) -> list[MailMessage]:
    with Session(engine) as session:
        query = select(MailMessage).where(col(MailMessage.order_id) == order.id,
                                          col(MailMessage.kind) == order_emails.SHIPPED)
        return list(session.exec(query).all())


def _state(engine: Engine, order: Order) -> tuple[Any, ...]:
    with Session(engine) as session:
        row = session.get(Order, order.id)
        assert row is not None
        return (row.status, row.printify_status, row.tracking_carrier, row.tracking_number, row.tracking_url,
                row.shipped_at and row.shipped_at.replace(tzinfo=None),
                row.delivered_at and row.delivered_at.replace(tzinfo=None))


def test_the_provider_steps_have_history_labels() -> None:
    assert [order_history.label(action) for action in (
        order_history.SENT, order_history.IN_PRODUCTION, order_history.SHIPPED, order_history.DELIVERED
    )] == ["Sent to the print provider", "In production", "Shipped", "Delivered"]


@pytest.mark.parametrize("second_id", ["ship-1", "ship-2"], ids=["redelivered", "reported-again"])
def test_a_shipment_reported_twice_writes_one_history_line_and_one_email(
    engine: Engine, second_id: str
) -> None:
    order = _save(engine, "SF-000001", WEBHOOK_ORDER)
    events = _events(engine, FakeProvider())
    assert _deliver(events, "order:shipment:created", SHIPMENT, "ship-1") == Outcome.APPLIED
    _deliver(events, "order:shipment:created", SHIPMENT, second_id)
    assert _history(engine, order) == [order_history.SHIPPED]
    with Session(engine) as session:
        [line] = order_history.history(session, order.id or 0)
    assert (line.actor, line.detail) == (order_history.SYSTEM, "USPS 9400111899223197428490")
    assert len(_shipped_mails(engine, order)) == 1


def test_production_shipping_and_delivery_each_write_their_line_once_in_any_order(engine: Engine) -> None:
    order = _save(engine, "SF-000001", WEBHOOK_ORDER)
    events = _events(engine, FakeProvider())
    delivered = {**SHIPMENT, "delivered_at": "2030-01-03 09:30:00+00:00"}
    _deliver(events, "order:sent-to-production", {"shop_id": SHOP}, "prod-1")
    _deliver(events, "order:shipment:delivered", delivered, "done-1")  # before the shipment's own delivery
    _deliver(events, "order:shipment:created", SHIPMENT, "ship-1")
    _deliver(events, "order:sent-to-production", {"shop_id": SHOP}, "prod-2")
    _deliver(events, "order:updated", {"shop_id": SHOP, "status": "in-production"}, "upd-1")
    assert _history(engine, order) == [order_history.IN_PRODUCTION, order_history.SHIPPED, order_history.DELIVERED]
    assert _state(engine, order)[-1] == datetime(2030, 1, 3, 9, 30)
    assert len(_shipped_mails(engine, order)) == 1


def test_the_poll_and_the_webhooks_bring_an_order_to_the_same_state(engine: Engine) -> None:
    provider = FakeProvider()
    snapshot = provider_order("fulfilled", shipment(delivered_at="2030-01-03 09:30:00+00:00"),
                              fulfilled_at="2030-01-01 09:00:00+00:00")
    provider.orders = {WEBHOOK_ORDER: {**snapshot, "id": WEBHOOK_ORDER}, POLLED_ORDER: {**snapshot, "id": POLLED_ORDER}}
    by_webhook = _save(engine, "SF-000001", WEBHOOK_ORDER)
    by_poll = _save(engine, "SF-000002", POLLED_ORDER)

    events = _events(engine, provider, refetch=True)
    _deliver(events, "order:sent-to-production", {"shop_id": SHOP}, "prod-1")
    _deliver(events, "order:updated", {"shop_id": SHOP, "status": "fulfilled"}, "upd-1")
    tracker = OrderTracker(session_factory(engine), provider, SHOP, clock=FakeClock(NOW), emails=EMAILS)  # type: ignore[arg-type]
    # The webhook's order was read at NOW: only the other one is due.
    assert tracker.poll_due() == 1

    assert _state(engine, by_poll) == _state(engine, by_webhook)
    assert _state(engine, by_poll)[:2] == (OrderStatus.FULFILLED, "fulfilled")
    assert _history(engine, by_poll) == [order_history.SHIPPED, order_history.DELIVERED]
    assert _history(engine, by_webhook) == [order_history.IN_PRODUCTION, order_history.SHIPPED, order_history.DELIVERED]
    assert len(_shipped_mails(engine, by_poll)) == len(_shipped_mails(engine, by_webhook)) == 1
