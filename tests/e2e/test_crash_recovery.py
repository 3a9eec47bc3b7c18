"""Faults: the store is killed (`kill -9`) while orders are being paid and sent to the provider and
while emails are being sent, then started again. Every paid order reaches the provider exactly once
(one create-order request, one order there, the one the database names), every order is paid once,
every email reaches the mail server (a message whose server's answer the kill cut may arrive twice,
with the same Message-ID: SMTP has no way to ask whether it arrived), and a backup taken during the
load restores to the orders the store had when it was taken.

Runs the store's backend alone (no front end is built) on its embedded SQLite database, with the
fake Printify shop and a real SMTP server on loopback; no browser."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tarfile
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.engine import Engine

from storefront.config import PROJECT_ROOT
from storefront.db import make_engine
from storefront.services.operations.backups import archives_in
from tests.e2e.conftest import PRINTIFY_SETTINGS
from tests.e2e.workers import hydrated_client, poll
from tests.fakes.printify_server import FakePrintifyServer
from tests.fakes.printify_shop import PRODUCTS, seeded_shop
from tests.fakes.smtp_server import SmtpInbox, smtp_server
from tests.ordering import GOOD_CARD, order_payload, pick
from tests.serving import free_port, stop_process

ORDERS = 60
#: Both outboxes hold a claim this long (services/orders/fulfilment.py, services/mail/outbox.py):
#: what the killed process had claimed is taken over after it, so the wait is bounded by it.
SETTLED_WITHIN_S = 240
STARTED_WITHIN_S = 120
#: A shopper's retries outlast a restart and the payment claim a killed process held (2 minutes).
RETRIED_WITHIN_S = 200


class Store:
    """The backend process of one store, started and killed by the test."""

    def __init__(self, data_dir: Path, env: dict[str, str]) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "PORT": str(self.port)}
        self.process: subprocess.Popen | None = None
        self.log = data_dir / "store.log"

    def manage(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "storefront.manage", *args], cwd=PROJECT_ROOT, env=env or self.env,
            capture_output=True, text=True, check=True,
        )

    def start(self) -> None:
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "--factory", "storefront.storefront:app",
                 "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
                cwd=PROJECT_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        poll("the store answering /health", self._healthy, STARTED_WITHIN_S)

    def _healthy(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the store exited:\n{self.log.read_text()[-4000:]}")
        try:
            return httpx.get(f"{self.url}/health", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, 9)
        self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[Store, FakePrintifyServer, SmtpInbox]]:
    fake = seeded_shop()
    try:
        with smtp_server() as (smtp_url, inbox):
            env = {key: value for key, value in os.environ.items()
                   if key not in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", "BACKUP_DIR", *PRINTIFY_SETTINGS)}
            env.update({
                "DATA_DIR": str(tmp_path / "data"),
                "PYTHONUNBUFFERED": "1",
                "__REFLEX_SKIP_COMPILE": "true",
                "REFLEX_ENV_MODE": "prod",
                "OUTBOX_INTERVAL_SECONDS": "0.2",
                "PAYMENT_REQUESTS_PER_MINUTE": "1000",
                "ORDERS_PER_HOUR": "100000",
                "PRINTIFY_API_TOKEN": fake.token,
                "PRINTIFY_API_BASE": fake.base_url,
                "PRINTIFY_SHOP_ID": str(fake.shop_id),
                "PRINTIFY_WEBHOOK_SECRET": "crash-test-webhook-secret",
                "SMTP_URL": smtp_url,
                # Scheduled backups: the first is taken as the store starts (none was ever finished).
                "BACKUP_DIR": str(tmp_path / "scheduled"),
            })
            (tmp_path / "data").mkdir()
            store = Store(tmp_path / "data", env)
            store.manage("migrate")
            store.start()
            try:
                yield store, fake, inbox
            finally:
                store.stop()
    finally:
        fake.stop()


def _engine(data_dir: Path) -> Engine:
    return make_engine(f"sqlite:///{data_dir / 'storefront.db'}")


def _retrying(call, also: tuple[int, ...] = ()):  # type: ignore[no-untyped-def]
    """Call until the store answers something other than a lost connection, 503 or one of `also`
    (as a shopper's browser retries while the store restarts); the answer."""
    def attempt():  # type: ignore[no-untyped-def]
        try:
            response = call()
        except httpx.TransportError:
            return None
        return None if response.status_code in (503, *also) else response
    return poll("an answer from the store", attempt, RETRIED_WITHIN_S, every=0.2)


def _shop(store: Store, item, key: str) -> tuple[str, bool]:  # type: ignore[no-untyped-def]
    """Place an order and pay it, retrying through the restart with the same keys; its number, and
    whether it was paid (an order whose first answer the kill cut is kept, but its access token went
    with that answer: the shopper cannot pay it, and it stays unpaid)."""
    created = _retrying(lambda: httpx.post(f"{store.url}/api/printify/orders", json=order_payload((item, 1)),
                                           headers={"Idempotency-Key": key}, timeout=30))
    assert created.status_code in (200, 201), created.text
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    if token is None:
        return number, False
    # 409: a payment the kill cut in the middle holds the order until its claim runs out.
    paid = _retrying(lambda: httpx.post(
        f"{store.url}/api/printify/orders/{number}/process-payment",
        json={"paymentId": f"pay_{key}", "shopId": "store", "paymentMethod": "card", "cardData": GOOD_CARD},
        headers={"X-Order-Token": token}, timeout=30,
    ), also=(409,))
    assert paid.status_code == 200, paid.text
    return number, True


def _settled(engine: Engine) -> bool:
    with engine.connect() as connection:
        waiting_jobs = connection.execute(text("SELECT count(*) FROM outbox_job WHERE done_at IS NULL")).scalar_one()
        unsent_orders = connection.execute(text(
            "SELECT count(*) FROM orders WHERE payment_status = 'paid' AND printify_order_id IS NULL")).scalar_one()
        unsent_mail = connection.execute(text("SELECT count(*) FROM mail_message WHERE sent_at IS NULL")).scalar_one()
    return waiting_jobs == 0 and unsent_orders == 0 and unsent_mail == 0


def test_a_store_killed_mid_payment_mid_send_and_mid_mail_loses_and_repeats_nothing(
    shop: tuple[Store, FakePrintifyServer, SmtpInbox], tmp_path: Path
) -> None:
    store, fake, inbox = shop
    engine = _engine(store.data_dir)
    poll("the catalogue synced from the fake shop", lambda: _count(engine, "catalog_product") == len(PRODUCTS), 90)
    poll("the scheduled backup taken at start", lambda: archives_in(tmp_path / "scheduled"), 60)
    item = pick(engine)
    # Answers held, so the kill finds a create-order call and an email in flight.
    fake.answer_slowly(1.5, times=None, method="POST", path=f"/shops/{fake.shop_id}/orders.json")
    inbox.answer_after = 0.5
    keys = [f"crash-{i}-{uuid.uuid4().hex[:8]}" for i in range(ORDERS)]
    backup_dir = tmp_path / "backups"
    with ThreadPoolExecutor(max_workers=4) as pool:
        numbers_future = pool.map(lambda key: _shop(store, item, key), keys)
        poll("a quarter of the orders paid", lambda: _paid(engine) >= ORDERS // 4, 120)
        # While orders are being placed, paid and sent: the backup runs beside the store.
        backup = subprocess.Popen([sys.executable, "-m", "storefront.manage", "backup", str(backup_dir)],
                                  cwd=PROJECT_ROOT, env=store.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        poll("half of the orders paid", lambda: _paid(engine) >= ORDERS // 2, 120)
        assert fake.requests_to("POST", "/orders.json"), "no create-order call was made before the kill"
        store.kill()
        killed_with = {"paid": _paid(engine), "mails": len(inbox.messages)}
        assert backup.wait(timeout=120) == 0, backup.stdout.read() if backup.stdout else ""
        store.start()
        outcomes = dict(numbers_future)
    numbers = [number for number, paid in outcomes.items() if paid]
    print(f"killed with {killed_with['paid']} of {ORDERS} orders paid and {killed_with['mails']} emails delivered;"
          f" {ORDERS - len(numbers)} orders placed whose answer the kill cut (left unpaid)")
    poll("every order sent and every email delivered", lambda: _settled(engine), SETTLED_WITHIN_S)

    with engine.connect() as connection:
        rows = {row.number: row for row in connection.execute(text(
            "SELECT o.number, o.payment_status, o.printify_order_id, o.total_cents,"
            " (SELECT count(*) FROM payment_attempt a WHERE a.order_id = o.id AND a.status = 'approved') AS charges"
            " FROM orders o"))}
        message_ids = set(connection.execute(text("SELECT message_id FROM mail_message")).scalars())
    assert sorted(rows) == sorted(outcomes) and len(numbers) >= ORDERS - 4
    assert {n: (r.payment_status, r.charges) for n, r in rows.items() if (r.payment_status, r.charges)
            != (("paid", 1) if outcomes[n] else ("pending", 0))} == {}
    # At the provider: one create-order request and one order for each, the one the database names.
    creates = Counter(
        (request.json() or {}).get("external_id")
        for request in fake.requests_to("POST", f"/shops/{fake.shop_id}/orders.json")
    )
    at_provider = Counter(order["metadata"].get("shop_order_id") for order in fake.all_orders())
    assert {n: creates[n] for n in numbers if creates[n] != 1} == {}
    assert {n: at_provider[n] for n in numbers if at_provider[n] != 1} == {}
    assert not set(at_provider) & (set(outcomes) - set(numbers))  # an unpaid order is never sent
    ids = {order["metadata"]["shop_order_id"]: order["id"] for order in fake.all_orders()}
    assert {n: (ids[n], rows[n].printify_order_id) for n in numbers if ids[n] != rows[n].printify_order_id} == {}
    # Every email reached the server; one whose answer the kill cut may have come twice, same Message-ID.
    delivered = Counter(inbox.message_ids())
    assert set(delivered) == message_ids
    assert len(message_ids) >= len(numbers)  # an order confirmation for each paid order at least
    assert sum(1 for count in delivered.values() if count > 1) <= 1, delivered.most_common(3)

    # The store serves after the restart, and its figures show every order.
    assert _orders_shown(store) == len(outcomes)
    # A shopper's page connected over Reflex's websocket: counted while open, its events timed.
    # In its own thread: the browser tests before this one leave an event loop running in this one.
    with ThreadPoolExecutor(max_workers=1) as thread:
        assert thread.submit(asyncio.run, _while_a_page_is_open(store)).result() == (1.0, True)

    # The backup taken during the load restores to the orders the store had then.
    (archive,) = backup_dir.iterdir()
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    restored_dir = tmp_path / "restored"
    restored_dir.mkdir()
    store.stop()
    again = Store(restored_dir, {**store.env, "DATA_DIR": str(restored_dir)})
    again.manage("restore", str(archive))
    restored = _engine(restored_dir)
    with restored.connect() as connection:
        then = {
            row.number: row.total_cents for row in connection.execute(text("SELECT number, total_cents FROM orders"))
        }
    assert len(then) == manifest["database"]["counts"]["orders"] >= ORDERS // 4
    assert {n: total for n, total in then.items() if rows[n].total_cents != total} == {}
    # The restored store serves, and sends nothing the first one had sent after the backup was taken.
    creates_before = len(fake.requests_to("POST", f"/shops/{fake.shop_id}/orders.json"))
    try:
        again.start()
        poll("the restored store's outbox settled", lambda: _settled(restored), SETTLED_WITHIN_S)
        assert _orders_shown(again) == len(then)
    finally:
        again.stop()
        restored.dispose()
        engine.dispose()
    assert len(fake.requests_to("POST", f"/shops/{fake.shop_id}/orders.json")) == creates_before


def _count(engine: Engine, table_and_filter: str) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text(f"SELECT count(*) FROM {table_and_filter}")).scalar_one())


def _orders_shown(store: Store) -> float:
    """The orders /metrics counts (asked from 127.0.0.1, which METRICS_ALLOWED_NETWORKS lets in)."""
    metrics = httpx.get(f"{store.url}/metrics", timeout=10)
    assert metrics.status_code == 200, metrics.text
    return sum(
        sample.value for family in text_string_to_metric_families(metrics.text) for sample in family.samples
        if sample.name == "storefront_orders"
    )


def _paid(engine: Engine) -> int:
    return _count(engine, "orders WHERE payment_status = 'paid'")


def _figures(store: Store) -> dict[str, float]:
    metrics = httpx.get(f"{store.url}/metrics", timeout=10).text
    return {
        sample.name + json.dumps(sample.labels, sort_keys=True): sample.value
        for family in text_string_to_metric_families(metrics) for sample in family.samples
    }


async def _while_a_page_is_open(store: Store) -> tuple[float, bool]:
    """The websockets /metrics counts while one page is connected and hydrated, and whether the
    hydrate event's handler was timed."""
    client, _ = await hydrated_client(store.url, f"crash-test-{uuid.uuid4().hex}")
    try:
        figures = await asyncio.to_thread(_figures, store)
    finally:
        await client.close()
    timed = any(
        name.startswith("storefront_event_handler_seconds_count") and value > 0 for name, value in figures.items()
    )
    return figures["storefront_websocket_connections{}"], timed
