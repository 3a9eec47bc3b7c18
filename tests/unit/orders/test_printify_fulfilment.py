"""The store against a fake Printify over real HTTP: catalogue sync and order fulfilment, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogProduct, Order, OutboxJob
from storefront.services.catalog.store_catalogue import sync_store_catalogue
from storefront.services.orders.checkout import create_order
from storefront.services.orders.fulfilment import RETRY_MAX_SECONDS, SEND_TO_PRODUCTION, OrderOutbox
from storefront.services.orders.order_access import reissue_token
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.client import SyncPrintifyClient
from storefront.wiring import session_factory
from tests.fakes.printify_server import FakePrintifyServer, printify_server  # noqa: F401 (fixture)
from tests.ordering import GOOD_CARD, ORDER_EMAILS, FakeClock, order_payload, pick

ORDERS = 20


@pytest.fixture
def client(printify_server: FakePrintifyServer) -> Iterator[SyncPrintifyClient]:  # noqa: F811
    with SyncPrintifyClient(
        printify_server.token, base_url=printify_server.base_url, timeout=0.5, max_attempts=2, backoff_base=0.001
    ) as client:
        yield client


def _sync(engine: Engine, client: SyncPrintifyClient, shop_id: int) -> dict[str, str]:
    sync_store_catalogue(session_factory(engine), client, shop_id)
    with Session(engine) as session:
        return {row.id: row.title for row in session.exec(select(CatalogProduct)).all()}


def test_a_sync_adds_changes_and_removes_products_across_pages(
    engine: Engine, printify_server: FakePrintifyServer, client: SyncPrintifyClient  # noqa: F811
) -> None:
    made = [printify_server.add_product(f"Tee {n}") for n in range(120)]
    assert _sync(engine, client, printify_server.shop_id) == {p["id"]: p["title"] for p in made}
    assert len(printify_server.requests_to("GET", "/products.json")) == 3  # 50 + 50 + 20

    gone, changed = made[0]["id"], made[1]["id"]
    printify_server.remove_product(gone)
    with printify_server.lock:
        printify_server.products[printify_server.shop_id][changed]["title"] = "Renamed Tee"
    added = printify_server.add_product("Brand New Tee")
    cached = _sync(engine, client, printify_server.shop_id)
    assert gone not in cached
    assert cached[changed] == "Renamed Tee"
    assert cached[added["id"]] == "Brand New Tee"
    assert len(cached) == 120


def test_products_of_another_shop_leave_the_cache(
    engine: Engine, printify_server: FakePrintifyServer, client: SyncPrintifyClient  # noqa: F811
) -> None:
    with Session(engine) as session:
        session.add(CatalogProduct(id="demo-leftover", shop_id=1, title="Demo Tee", collection_key="swdnn"))
        session.commit()
    kept = printify_server.add_product("Real Tee")
    assert set(_sync(engine, client, printify_server.shop_id)) == {kept["id"]}


def _paid_orders(engine: Engine, count: int) -> list[str]:
    """Place and pay `count` orders for the newest cached product; returns their numbers."""
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=ORDER_EMAILS)
    numbers = []
    for n in range(count):
        with Session(engine, expire_on_commit=False) as session:
            order = create_order(session, order_payload((pick(engine), 1)), f"key-{n}")
            token = reissue_token(session, order)
            session.commit()
        payments.pay(order.number, token, card_from_form(GOOD_CARD), f"pay-{n}")
        numbers.append(order.number)
    return numbers


def _orders(engine: Engine) -> list[Order]:
    with Session(engine) as session:
        return list(session.exec(select(Order)).all())


def test_an_outage_delays_twenty_orders_and_each_reaches_printify_once(
    engine: Engine, printify_server: FakePrintifyServer, client: SyncPrintifyClient  # noqa: F811
) -> None:
    printify_server.add_product("Outage Tee")
    _sync(engine, client, printify_server.shop_id)
    numbers = _paid_orders(engine, ORDERS)
    clock = FakeClock()
    outbox = OrderOutbox(session_factory(engine), client, printify_server.shop_id, clock)

    printify_server.fail_with(500, times=None)  # every call fails
    for _ in range(5):
        assert outbox.run_due(limit=50) == 0
        clock.advance(RETRY_MAX_SECONDS)
    assert printify_server.all_orders() == []
    assert all(order.printify_order_id is None and order.payment_status == "paid" for order in _orders(engine))

    printify_server.clear_faults()
    for _ in range(ORDERS * 2):
        if outbox.run_due(limit=50) == 0:
            break
        clock.advance(RETRY_MAX_SECONDS)
    at_printify = printify_server.all_orders()
    assert sorted(o["metadata"]["shop_order_id"] for o in at_printify) == sorted(numbers)  # each once
    by_id = {o["id"]: o for o in at_printify}
    for order in _orders(engine):
        assert by_id[order.printify_order_id]["metadata"]["shop_order_id"] == order.number
        assert by_id[order.printify_order_id]["status"] == "sending-to-production"
        assert order.printify_status == "sending-to-production"
    with Session(engine) as session:
        assert all(job.done_at is not None for job in session.exec(select(OutboxJob)).all())
        assert len(session.exec(select(OutboxJob).where(OutboxJob.kind == SEND_TO_PRODUCTION)).all()) == ORDERS


def test_a_timeout_after_printify_accepted_the_order_does_not_duplicate_it(
    engine: Engine, printify_server: FakePrintifyServer, client: SyncPrintifyClient  # noqa: F811
) -> None:
    printify_server.add_product("Slow Tee")
    _sync(engine, client, printify_server.shop_id)
    (number,) = _paid_orders(engine, 1)
    clock = FakeClock()
    outbox = OrderOutbox(session_factory(engine), client, printify_server.shop_id, clock)

    printify_server.answer_slowly(2.0, method="POST", path="/orders.json")
    assert outbox.run_due() == 0  # the answer never came
    assert len(printify_server.all_orders()) == 1  # but Printify has the order
    clock.advance(RETRY_MAX_SECONDS)
    assert outbox.run_due() >= 1
    (only,) = printify_server.all_orders()
    assert only["metadata"]["shop_order_id"] == number
    (order,) = _orders(engine)
    assert order.printify_order_id == only["id"]
    assert len(printify_server.requests_to("POST", "/orders.json")) == 1  # found by external id, not resent
