"""Keeping orders in step with the provider: status mapping, shipments, and the slow poll."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import Order
from storefront.services.orders.order_tracking import (
    DEFAULT_POLL_INTERVAL,
    OrderTracker,
    apply_provider_order,
    apply_provider_status,
    apply_shipment,
    order_status_for,
    start_order_tracker,
)
from storefront.services.orders.statuses import OrderStatus
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.services.printify.errors import ProviderNotFound, ProviderUnavailable
from storefront.wiring import session_factory
from tests.ordering import ORDER_EMAILS, FakeClock

SHOP = 4242
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
USPS_URL = "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223197428490"


def new_order(**values: Any) -> Order:
    """An order paid and sent to the provider (not saved)."""
    number = values.pop("number", "SF-000001")
    fields: dict[str, Any] = dict(
        number=number, idempotency_key=number, request_fingerprint="f", access_token_hash="h",
        customer_email="ada@example.com", customer_name="Ada Lovelace", first_name="Ada", last_name="Lovelace",
        address1="1 Main Street", city="Albany", state_code="NY", zip="12207", country_code="US",
        subtotal_cents=2500, shipping_cents=999, total_cents=3499, status=OrderStatus.PROCESSING,
        payment_status="paid", printify_order_id="5a96f649b2439217d070f507", printify_status="pending",
    )
    fields.update(values)
    return Order(**fields)


def provider_order(status: str, *shipments: dict[str, Any], fulfilled_at: str | None = None) -> dict[str, Any]:
    """A provider order object (contract §7) with the fields tracking reads."""
    return {
        "id": "5a96f649b2439217d070f507",
        "status": status,
        "shipments": list(shipments),
        "fulfilled_at": fulfilled_at,
        "line_items": [{"status": status, "fulfilled_at": fulfilled_at}],
    }


def shipment(number: str = "9400111899223197428490", carrier: str = "usps", delivered_at: str | None = None) -> dict:
    return {"carrier": carrier, "number": number, "url": USPS_URL, "delivered_at": delivered_at}


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session the provider's reports are applied in (their history lines are written to it)."""
    with Session(engine) as session:
        yield session


def held(session: Session, **values: Any) -> Order:
    """new_order(**values) saved in `session` (not committed), so its history can be written."""
    order = new_order(**values)
    session.add(order)
    session.flush()
    return order


# --------------------------------------------------------------------------- mapping


@pytest.mark.parametrize(
    ("provider_status", "ours"),
    [
        ("canceled", OrderStatus.CANCELLED),
        ("fulfilled", OrderStatus.FULFILLED),
        ("partially-fulfilled", OrderStatus.PROCESSING),
        ("pending", OrderStatus.PROCESSING),
        ("on-hold", OrderStatus.PROCESSING),
        ("sending-to-production", OrderStatus.PROCESSING),
        ("in-production", OrderStatus.PROCESSING),
        ("has-issues", OrderStatus.PROCESSING),
    ],
)
def test_provider_statuses_map_to_ours(provider_status: str, ours: OrderStatus) -> None:
    assert order_status_for(provider_status) == ours


def test_the_provider_status_is_stored_and_mapped(session: Session) -> None:
    order = held(session)
    assert apply_provider_status(session, order, "in-production", NOW) is True
    assert (order.printify_status, order.status) == ("in-production", OrderStatus.PROCESSING)
    assert apply_provider_status(session, order, "canceled", NOW) is True
    assert (order.printify_status, order.status) == ("canceled", OrderStatus.CANCELLED)


@pytest.mark.parametrize("ours", [OrderStatus.FULFILLED, OrderStatus.CANCELLED])
def test_a_fulfilled_or_cancelled_order_never_moves_back(session: Session, ours: OrderStatus) -> None:
    order = held(session, status=ours, printify_status="fulfilled")
    assert apply_provider_status(session, order, "in-production", NOW) is False
    assert (order.printify_status, order.status) == ("fulfilled", ours)


def test_an_empty_status_changes_nothing(session: Session) -> None:
    order = held(session)
    assert apply_provider_status(session, order, None, NOW) is False
    assert apply_provider_status(session, order, "  ", NOW) is False
    assert order.printify_status == "pending"


# --------------------------------------------------------------------------- the provider's order object


def test_a_shipped_order_gets_its_tracking_and_shipping_date(session: Session) -> None:
    order = held(session)
    snapshot = provider_order("fulfilled", shipment(), fulfilled_at="2030-01-01 10:00:00+00:00")
    apply_provider_order(session, order, snapshot, NOW)
    assert (order.status, order.printify_status) == (OrderStatus.FULFILLED, "fulfilled")
    assert (order.tracking_carrier, order.tracking_number, order.tracking_url) == (
        "usps", "9400111899223197428490", USPS_URL,
    )
    assert order.shipped_at == datetime(2030, 1, 1, 10, 0, tzinfo=UTC)
    assert order.delivered_at is None
    assert order.provider_checked_at == NOW


def test_the_latest_shipment_wins_and_a_delivery_date_is_kept(session: Session) -> None:
    order = held(session)
    snapshot = provider_order(
        "fulfilled", shipment("111"), shipment("222", carrier="ups", delivered_at="2030-01-03 09:30:00+00:00")
    )
    apply_provider_order(session, order, snapshot, NOW)
    assert (order.tracking_carrier, order.tracking_number) == ("ups", "222")
    assert order.delivered_at == datetime(2030, 1, 3, 9, 30, tzinfo=UTC)


def test_a_later_snapshot_without_shipments_keeps_the_tracking(session: Session) -> None:
    order = held(session)
    apply_provider_order(session, order, provider_order("partially-fulfilled", shipment()), NOW)
    shipped_at = order.shipped_at
    apply_provider_order(session, order, provider_order("partially-fulfilled"), NOW + timedelta(hours=1))
    assert (order.tracking_number, order.tracking_url, order.shipped_at) == (
        "9400111899223197428490",
        USPS_URL,
        shipped_at,
    )
    assert order.provider_checked_at == NOW + timedelta(hours=1)


def test_a_shipment_without_a_date_counts_as_shipped_when_first_seen(session: Session) -> None:
    order = held(session)
    apply_provider_order(session, order, provider_order("partially-fulfilled", shipment()), NOW)
    assert order.shipped_at == NOW


def test_a_tracking_link_that_is_not_a_web_address_is_not_stored(session: Session) -> None:
    order = held(session)
    apply_shipment(session, order, carrier="usps", number="1", url="javascript:alert(1)", now=NOW)
    assert (order.tracking_number, order.tracking_url) == ("1", None)


def test_an_unchanged_snapshot_reports_no_change(session: Session) -> None:
    order = held(session)
    snapshot = provider_order("fulfilled", shipment(), fulfilled_at="2030-01-01 10:00:00+00:00")
    assert apply_provider_order(session, order, snapshot, NOW) is True
    assert apply_provider_order(session, order, snapshot, NOW + timedelta(minutes=10)) is False


# --------------------------------------------------------------------------- the poll


class FakeOrders:
    """get_order over a dict of provider orders; `down` makes every call fail like an outage."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {}
        self.down = False
        self.calls: list[str] = []

    def get_order(self, shop_id: int, order_id: str) -> dict[str, Any]:
        assert shop_id == SHOP
        self.calls.append(order_id)
        if self.down:
            raise ProviderUnavailable("Printify unreachable")
        if order_id not in self.orders:
            raise ProviderNotFound()
        return copy.deepcopy(self.orders[order_id])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOW)


@pytest.fixture
def provider() -> FakeOrders:
    return FakeOrders()


@pytest.fixture
def tracker(engine: Engine, provider: FakeOrders, clock: FakeClock) -> OrderTracker:
    return OrderTracker(session_factory(engine), provider, SHOP, clock=clock, emails=ORDER_EMAILS)  # type: ignore[arg-type]


def save(engine: Engine, n: int, **values: Any) -> str:
    """Save an order sent as provider order 'p<n>'; returns that provider id."""
    values.setdefault("printify_order_id", f"p{n}")
    with Session(engine) as session:
        session.add(new_order(number=f"SF-{n:06d}", **values))
        session.commit()
    return values["printify_order_id"]


def load(engine: Engine, provider_id: str) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(Order.printify_order_id == provider_id)).one()


def test_the_poll_reads_due_orders_and_updates_them(
    engine: Engine, tracker: OrderTracker, provider: FakeOrders, clock: FakeClock
) -> None:
    pid = save(engine, 1)
    provider.orders[pid] = provider_order("fulfilled", shipment(), fulfilled_at="2030-01-01 10:00:00+00:00")
    assert tracker.poll_due() == 1
    order = load(engine, pid)
    assert (order.status, order.printify_status, order.tracking_number) == (
        OrderStatus.FULFILLED, "fulfilled", "9400111899223197428490",
    )
    assert order.provider_checked_at == clock.now


def test_only_sent_orders_not_final_and_not_checked_lately_are_due(engine: Engine, tracker: OrderTracker) -> None:
    due = save(engine, 1, provider_checked_at=NOW - DEFAULT_POLL_INTERVAL - timedelta(seconds=1))
    never_checked = save(engine, 2)
    save(engine, 3, printify_order_id=None, printify_status=None)
    save(engine, 4, printify_status="fulfilled")
    save(engine, 5, printify_status="canceled")
    save(engine, 6, printify_status="partially-fulfilled", delivered_at=NOW - timedelta(days=1))
    save(engine, 7, provider_checked_at=NOW - timedelta(minutes=5))
    ids = tracker.due_order_ids()
    assert [load(engine, pid).id for pid in (never_checked, due)] == ids


def test_the_oldest_checked_orders_come_first_and_the_limit_holds(
    engine: Engine, tracker: OrderTracker, provider: FakeOrders
) -> None:
    for n, minutes in ((1, 20), (2, 60), (3, 40)):
        pid = save(engine, n, provider_checked_at=NOW - timedelta(minutes=minutes))
        provider.orders[pid] = provider_order("in-production")
    assert tracker.poll_due(limit=2) == 2
    assert provider.calls == ["p2", "p3"]


def test_an_order_just_checked_waits_for_the_interval(
    engine: Engine, tracker: OrderTracker, provider: FakeOrders, clock: FakeClock
) -> None:
    pid = save(engine, 1)
    provider.orders[pid] = provider_order("in-production")
    assert tracker.poll_due() == 1
    clock.advance(DEFAULT_POLL_INTERVAL.total_seconds() - 1)
    assert tracker.poll_due() == 0
    clock.advance(2)
    assert tracker.poll_due() == 1
    assert provider.calls == [pid, pid]


def test_a_provider_outage_leaves_orders_as_they_are_and_ends_the_round(
    engine: Engine, tracker: OrderTracker, provider: FakeOrders
) -> None:
    first = save(engine, 1, provider_checked_at=NOW - timedelta(hours=2))
    save(engine, 2, provider_checked_at=NOW - timedelta(hours=1))
    provider.down = True
    assert tracker.poll_due() == 0
    assert provider.calls == [first]
    order = load(engine, first)
    assert (order.printify_status, order.provider_checked_at) == ("pending", NOW - timedelta(hours=2))
    provider.down = False
    provider.orders[first] = provider_order("in-production")
    assert tracker.poll_due() == 1  # the other one is not known to the provider


def test_an_order_the_provider_does_not_know_does_not_block_the_others(
    engine: Engine, tracker: OrderTracker, provider: FakeOrders
) -> None:
    save(engine, 1, provider_checked_at=NOW - timedelta(hours=2))
    known = save(engine, 2, provider_checked_at=NOW - timedelta(hours=1))
    provider.orders[known] = provider_order("in-production")
    assert tracker.poll_due() == 1
    assert load(engine, known).printify_status == "in-production"
    assert load(engine, "p1").printify_status == "pending"


def test_poll_failures_are_logged_never_raised(caplog: pytest.LogCaptureFixture) -> None:
    def broken_sessions() -> Session:
        raise RuntimeError("database gone")

    tracker = OrderTracker(broken_sessions, FakeOrders(), SHOP, emails=ORDER_EMAILS)  # type: ignore[arg-type]
    assert tracker.poll_due() == 0
    assert "Polling the print provider for order updates failed" in caplog.text


def test_the_poll_follows_the_demo_provider_to_a_shipped_order(
    engine: Engine, tmp_path: Path, clock: FakeClock
) -> None:
    demo = DemoPrintProvider(media_dir=tmp_path / "demo")
    product = demo.list_products(DEMO_SHOP_ID, limit=1)["data"][0]
    address = {"first_name": "Ada", "last_name": "Lovelace", "country": "US", "region": "NY",
               "address1": "1 Main Street", "city": "Albany", "zip": "12207", "email": "ada@example.com"}
    body = {"external_id": "SF-000001", "line_items": [
        {"product_id": product["id"], "variant_id": product["variants"][0]["id"], "quantity": 1}
    ], "shipping_method": 1, "address_to": address}
    pid = demo.create_order(DEMO_SHOP_ID, body)["id"]
    for _ in range(3):  # pending -> on-hold -> in-production -> fulfilled
        demo.advance_order(pid)
    save(engine, 1, printify_order_id=pid)
    assert OrderTracker(session_factory(engine), demo, DEMO_SHOP_ID, clock=clock, emails=ORDER_EMAILS).poll_due() == 1
    order = load(engine, pid)
    assert (order.status, order.printify_status, order.tracking_carrier) == (OrderStatus.FULFILLED, "fulfilled", "usps")
    assert order.tracking_number and order.tracking_url and order.shipped_at


def test_the_tracker_thread_polls_until_stopped() -> None:
    polled = threading.Event()

    class Recorder:
        def poll_due(self, limit: int) -> int:
            polled.set()
            return 0

    worker = start_order_tracker(Recorder(), every_seconds=3600)  # type: ignore[arg-type]
    try:
        assert polled.wait(5)
    finally:
        worker.stop()
    assert not worker.thread.is_alive()


# --------------------------------------------------------------------------- the Fulfillment tab


def test_the_fulfillment_tab_shows_the_carrier_tracking_link_and_dates(session: Session) -> None:
    from storefront.state.admin.orders import to_detail

    order = held(session, created_at=NOW)
    apply_provider_order(
        session,
        order,
        provider_order(
            "fulfilled", shipment(delivered_at="2030-01-04 16:00:00+00:00"), fulfilled_at="2030-01-02 10:00:00+00:00"
        ),
        NOW,
    )
    detail = to_detail(order)
    assert {k: detail[k] for k in ("tracking_number", "carrier", "tracking_url", "shipped", "delivered")} == {  # type: ignore[literal-required]
        "tracking_number": "9400111899223197428490",
        "carrier": "USPS",
        "tracking_url": USPS_URL,
        "shipped": "Jan 2, 2030",
        "delivered": "Jan 4, 2030",
    }


def test_the_fulfillment_tab_shows_nothing_for_an_order_not_shipped() -> None:
    from storefront.state.admin.orders import to_detail

    detail = to_detail(new_order(created_at=NOW, tracking_url="javascript:alert(1)"))
    assert [detail[k] for k in ("carrier", "tracking_url", "shipped", "delivered")] == ["", "", "", ""]  # type: ignore[literal-required]
