"""The PostgreSQL connection lost in the middle of a checkout (the server ends it while the order's
lines are written): the order is refused with a clear message and nothing of it is saved; the
shopper's retry with the same idempotency key then saves it once, whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, func, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session, select

from storefront.api.app import create_api
from storefront.api.database_errors import DATABASE_UNAVAILABLE
from storefront.config import Settings
from storefront.models import Order, OrderItem, OutboxJob
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"


class ConnectionCutter:
    """Ends the database connection of the statement that matches, once, from another connection."""

    def __init__(self, engine: Engine, statement_start: str) -> None:
        self.engine = engine
        self.statement_start = statement_start
        self.armed = False
        self.cut = 0
        self._admin = create_engine(engine.url, poolclass=NullPool)

    def __call__(self, conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if not self.armed or not statement.lstrip().upper().startswith(self.statement_start.upper()):
            return
        self.armed = False
        pid = conn.connection.dbapi_connection.info.backend_pid
        with self._admin.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        self.cut += 1

    def close(self) -> None:
        self._admin.dispose()


@pytest.fixture
def postgres(engine: Engine) -> Engine:
    if engine.dialect.name != "postgresql":
        pytest.skip("a lost server connection is a PostgreSQL fault (SQLite is a file in this process)")
    return engine


@pytest.fixture
def client(postgres: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    provider = seed_demo(postgres, tmp_path)
    return TestClient(create_api(Settings(), engine=postgres, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def cutter(postgres: Engine) -> Iterator[ConnectionCutter]:
    cut = ConnectionCutter(postgres, "INSERT INTO order_item")
    event.listen(postgres, "before_cursor_execute", cut)
    yield cut
    event.remove(postgres, "before_cursor_execute", cut)
    cut.close()


def counts(engine: Engine) -> tuple[int, int, int]:
    with Session(engine) as session:
        return tuple(  # type: ignore[return-value]
            session.exec(select(func.count()).select_from(model)).one() for model in (Order, OrderItem, OutboxJob)
        )


def test_an_order_whose_connection_is_lost_is_refused_whole_and_a_retry_saves_it_once(
    client: TestClient, postgres: Engine, cutter: ConnectionCutter
) -> None:
    tee = pick(postgres)
    body = order_payload((tee, 2))
    before = counts(postgres)
    cutter.armed = True
    response = client.post(ORDERS, json=body, headers={"Idempotency-Key": "lost-connection-1"})
    assert cutter.cut == 1
    assert response.status_code == 503
    assert response.json() == {"error": DATABASE_UNAVAILABLE, "details": None}
    assert counts(postgres) == before  # no order, no line, no job: nothing half-saved

    retry = client.post(ORDERS, json=body, headers={"Idempotency-Key": "lost-connection-1"})
    assert retry.status_code == 201, retry.text
    orders, items, _ = counts(postgres)
    assert (orders, items) == (before[0] + 1, before[1] + 1)
    number, token = retry.json()["order"]["id"], retry.json()["accessToken"]
    paid = client.post(
        f"{ORDERS}/{number}/process-payment",
        json={
            "paymentId": "pay_1700000000000_abc123",
            "shopId": "store",
            "paymentMethod": "card",
            "cardData": GOOD_CARD,
        },
        headers={"X-Order-Token": token},
    )
    assert paid.status_code == 200, paid.text


def test_a_payment_whose_connection_is_lost_while_it_is_claimed_is_refused_and_the_retry_pays_once(
    client: TestClient, postgres: Engine, cutter: ConnectionCutter
) -> None:
    tee = pick(postgres)
    placed = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "lost-connection-2"})
    assert placed.status_code == 201, placed.text
    number, token = placed.json()["order"]["id"], placed.json()["accessToken"]
    payment = {
        "paymentId": "pay_1700000000001_abc123",
        "shopId": "store",
        "paymentMethod": "card",
        "cardData": GOOD_CARD,
    }
    cutter.statement_start = "INSERT INTO payment_attempt"
    cutter.armed = True
    lost = client.post(f"{ORDERS}/{number}/process-payment", json=payment, headers={"X-Order-Token": token})
    assert cutter.cut == 1, lost.text
    assert lost.status_code == 503 and lost.json()["error"] == DATABASE_UNAVAILABLE
    again = client.post(f"{ORDERS}/{number}/process-payment", json=payment, headers={"X-Order-Token": token})
    assert again.status_code == 200, again.text
    with Session(postgres) as session:
        order = session.exec(select(Order).where(Order.number == number)).one()
        jobs = session.exec(select(func.count()).select_from(OutboxJob).where(OutboxJob.order_id == order.id)).one()
    assert order.payment_status == "paid" and jobs == 1
