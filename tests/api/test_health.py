"""/health (api/health.py): 200 with its checks while the database and Redis answer; 503 naming
the one that failed within one check when PostgreSQL or Redis goes away (a TCP proxy in front of
the real server is cut, then restored), 200 again when it returns; the queues' ages are shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.db import make_engine
from storefront.services.payments.gateway import TestPaymentGateway
from tests.fakes.tcp_proxy import TcpProxy
from tests.ordering import GOOD_CARD, FakeClock, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"


def _client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock | None = None,
            **env: str) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    provider = seed_demo(engine, tmp_path)
    extra = {"clock": clock} if clock else {}
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, **extra))


def test_a_healthy_store_answers_200_with_its_checks(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    response = _client(engine, tmp_path, monkeypatch).get("/health")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["failed"]) == ("ok", [])
    assert set(body["checks"]) == {"database", "fulfilment_outbox", "mail_queue", "catalogue_sync"}
    assert body["checks"]["fulfilment_outbox"] == {
        "ok": True,
        "oldest_waiting_seconds": 0.0,
        "most_attempts": 0,
        "late": False,
    }
    assert response.headers["cache-control"] == "no-store"


def test_a_paid_order_waiting_for_the_provider_shows_its_age(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    client = _client(engine, tmp_path, monkeypatch, clock)
    placed = client.post(ORDERS, json=order_payload((pick(engine), 1)), headers={"Idempotency-Key": "k1"}).json()
    paid = client.post(
        f"{ORDERS}/{placed['order']['id']}/process-payment",
        json={
            "paymentId": "pay_1700000000000_abc123",
            "shopId": "store",
            "paymentMethod": "card",
            "cardData": GOOD_CARD,
        },
        headers={"X-Order-Token": placed["accessToken"]},
    )
    assert paid.status_code == 200, paid.text
    clock.advance(45 * 60)
    body = client.get("/health").json()
    assert body["status"] == "ok"  # late is reported, not failed: the shop still takes orders
    assert body["checks"]["fulfilment_outbox"]["late"] is True
    assert body["checks"]["fulfilment_outbox"]["oldest_waiting_seconds"] >= 45 * 60 - 1
    assert body["checks"]["mail_queue"]["oldest_waiting_seconds"] >= 45 * 60 - 1


@pytest.fixture
def proxied_postgres(engine: Engine) -> Iterator[tuple[TcpProxy, Engine]]:
    """An engine on the test's PostgreSQL database through a TCP proxy the test can cut."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a database server that goes away is PostgreSQL's fault (SQLite is a file in this process)")
    url = engine.url
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432).start()
    proxied = make_engine(url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    yield proxy, proxied
    proxy.stop()
    proxied.dispose()


def test_health_turns_503_when_postgresql_stops_and_200_when_it_returns(
    proxied_postgres: tuple[TcpProxy, Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, proxied = proxied_postgres
    client = _client(proxied, tmp_path, monkeypatch)
    assert client.get("/health").status_code == 200
    proxy.stop()
    down = client.get("/health")
    assert down.status_code == 503
    assert down.json()["failed"] == ["database"]
    assert down.json()["checks"]["database"]["ok"] is False
    proxy.start()
    assert client.get("/health").status_code == 200


def test_health_names_redis_when_it_does_not_answer(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = TcpProxy("127.0.0.1", 6379).start()
    try:
        client = _client(engine, tmp_path, monkeypatch, REDIS_URL=f"redis://127.0.0.1:{proxy.port}/0")
        up = client.get("/health")
        assert up.status_code == 200
        assert up.json()["checks"]["redis"] == {"ok": True}
        proxy.stop()
        down = client.get("/health")
        assert (down.status_code, down.json()["failed"]) == (503, ["redis"])
        proxy.start()
        assert client.get("/health").status_code == 200
    finally:
        proxy.stop()
