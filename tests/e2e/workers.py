"""Helpers for the multi-worker tests: a PostgreSQL database, orders over HTTP, Reflex over socket.io."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

import httpx
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bench.shoppers import NAMESPACE, SocketClient, event_frame
from storefront.config import PROJECT_ROOT
from tests.databases import temporary_database
from tests.e2e.conftest import PRINTIFY_SETTINGS, StoreProcess, StoreServer
from tests.fakes.printify_server import FakePrintifyServer
from tests.ordering import GOOD_CARD, Pick, order_payload
from tests.serving import SERVE_BUILT_ENV, wait_until_served

POSTGRES_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
ROOT_STATE = "reflex___state____state"
PRODUCTS_STATE = f"{ROOT_STATE}.storefront___state___catalog____products_state"

T = TypeVar("T")


def postgres_database() -> AbstractContextManager[str]:
    """A fresh, empty database on the local server (dropped afterwards); yields its URL."""
    return temporary_database(POSTGRES_SERVER, "two_workers")


def start_together(
    workers: list[tuple[StoreProcess, Path]], overrides: dict[str, str], before_serving: Callable[[], None]
) -> list[StoreServer]:
    """What StoreProcess.start(build=False) does, for several processes of one store at once: each runs
    `manage prepare` (one after the other: migrations are not run concurrently), then `before_serving()`,
    then every server process is launched at the same moment, so their start-up jobs overlap as in a
    deployment that starts its workers together; returns once all of them serve."""
    for process, data_dir in workers:
        env = {
            **os.environ,
            "DATA_DIR": str(data_dir),
            "PORT": str(process.port),
            "REFLEX_USE_NPM": "1",
            "PYTHONUNBUFFERED": "1",
            "OUTBOX_INTERVAL_SECONDS": "0.5",
        }
        for name in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", *PRINTIFY_SETTINGS):
            env.pop(name, None)
        env.update(overrides)
        env.update(SERVE_BUILT_ENV)
        process.env = env
        subprocess.run([sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT, env=env, check=True)
    before_serving()
    for process, data_dir in workers:
        with (data_dir / "store.log").open("a") as log:
            process._process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "--factory", "storefront.storefront:app",
                 "--host", "0.0.0.0", "--port", str(process.port), "--log-level", "info"],
                cwd=PROJECT_ROOT, env=process.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
    for process, data_dir in workers:
        assert process._process is not None
        wait_until_served(process.url, process._process, data_dir / "store.log")
    return [StoreServer(url=process.url, data_dir=data_dir) for process, data_dir in workers]


def poll(what: str, check: Callable[[], T], timeout: float, every: float = 0.25) -> T:
    """Call `check` until it returns something truthy; fail with `what` (and the last value) at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} not reached within {timeout:g} s (last: {value!r})")
        time.sleep(every)


# --------------------------------------------------------------------------- orders over HTTP


def place_paid_order(place_url: str, pay_url: str, item: Pick, key: str) -> str:
    """Place an order through one worker and pay it through another (or the same); returns its number."""
    created = httpx.post(f"{place_url}/api/printify/orders", json=order_payload((item, 1)),
                         headers={"Idempotency-Key": key}, timeout=30)
    assert created.status_code == 201, created.text
    number, token = created.json()["order"]["id"], created.json()["accessToken"]
    paid = httpx.post(
        f"{pay_url}/api/printify/orders/{number}/process-payment",
        json={"paymentId": f"pay_{key}", "shopId": "store", "paymentMethod": "card", "cardData": GOOD_CARD},
        headers={"X-Order-Token": token},
        timeout=30,
    )
    assert paid.status_code == 200, paid.text
    return number


def fulfilment_rows(engine: Engine, numbers: list[str]) -> dict[str, dict[str, Any]]:
    """Per order number: its provider id, attention reason and its send_order jobs."""
    with engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT o.number, o.printify_order_id, o.attention_reason, o.payment_status, j.kind, j.attempts, "
            "j.done_at, j.last_error, j.outcome_unknown, j.next_attempt_at "
            "FROM orders o LEFT JOIN outbox_job j ON j.order_id = o.id WHERE o.number = ANY(:numbers)"
        ), {"numbers": numbers}).mappings().all()
    result: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = result.setdefault(row["number"], {
            "printify_order_id": row["printify_order_id"], "attention_reason": row["attention_reason"],
            "payment_status": row["payment_status"], "jobs": {},
        })
        if row["kind"] is not None:
            entry["jobs"].setdefault(row["kind"], []).append({
                "attempts": row["attempts"], "done_at": row["done_at"], "last_error": row["last_error"],
                "outcome_unknown": row["outcome_unknown"], "next_attempt_at": row["next_attempt_at"],
            })
    return result


def unsent(rows: dict[str, dict[str, Any]], numbers: list[str]) -> list[str]:
    """The orders whose send_order job is not done yet (or that have no provider id)."""
    return [
        n for n in numbers
        if n not in rows or not rows[n]["printify_order_id"]
        or not all(job["done_at"] for job in rows[n]["jobs"].get("send_order", [{"done_at": None}]))
    ]


def provider_orders(fake: FakePrintifyServer, numbers: list[str]) -> dict[str, dict[str, list[Any]]]:
    """Per order number, the provider's own view: the create-order requests the fake received with that
    external_id (whatever it answered) and the orders it holds for it (their ids)."""
    result: dict[str, dict[str, list[Any]]] = {n: {"creates": [], "orders": []} for n in numbers}
    for request in fake.requests_to("POST", f"/v1/shops/{fake.shop_id}/orders.json"):
        external_id = (request.json() or {}).get("external_id")
        if external_id in result:
            result[external_id]["creates"].append(request.status)
    for order in fake.all_orders():
        external_id = order["metadata"].get("shop_order_id")
        if external_id in result:
            result[external_id]["orders"].append(order["id"])
    return result


def assert_sent_once_to_the_provider(fake: FakePrintifyServer, rows: dict[str, dict[str, Any]],
                                     numbers: list[str]) -> None:
    """Each order reached the fake in exactly one create-order request (answered 200) and is exactly one
    order there, the one whose id the database holds."""
    seen = provider_orders(fake, numbers)
    wrong = {n: seen[n] for n in numbers if seen[n]["creates"] != [200] or len(seen[n]["orders"]) != 1}
    assert not wrong, f"{len(wrong)} of {len(numbers)} orders not created exactly once at the provider: {wrong}"
    mismatched = {n: (seen[n]["orders"][0], rows[n]["printify_order_id"]) for n in numbers
                  if seen[n]["orders"][0] != rows[n]["printify_order_id"]}
    assert not mismatched, f"provider order id differs from the stored one: {mismatched}"


# --------------------------------------------------------------------------- Reflex over socket.io


def _update(message: str) -> dict[str, Any] | None:
    """The state update of one socket.io event frame, or None for any other frame."""
    prefix = f"42{NAMESPACE},"
    if not message.startswith(prefix):
        return None
    body = json.loads(message[len(prefix):])
    if not isinstance(body, list) or len(body) < 2 or body[0] != "event":
        return None
    update = body[1]
    if isinstance(update, str):
        update = json.loads(update)
    return update if isinstance(update, dict) else None


async def _read_until(client: SocketClient, done: Callable[[dict[str, dict[str, Any]]], bool], state: dict,
                      timeout: float) -> dict[str, dict[str, Any]]:
    """Merge the deltas that arrive into `state` until `done(state)`; fail at the deadline."""
    seen: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while not done(state):
                message = await client.receive_text()
                seen.append(message[:160])
                update = _update(message)
                if update:
                    for name, values in (update.get("delta") or {}).items():
                        state.setdefault(name, {}).update(values)
    except TimeoutError:
        raise AssertionError(f"the awaited state did not arrive in {timeout:g} s; last frames: {seen[-5:]}") from None
    return state


async def hydrated_client(base_url: str, token: str, timeout: float = 30) -> tuple[SocketClient, dict]:
    """Connect to `base_url`'s event namespace as client `token`, hydrate; returns the client and its state."""
    client = await SocketClient.connect(base_url, token)
    await client.receive_text()  # engine.io open
    await client.send_text(f"40{NAMESPACE},{{}}")
    await client.send_text(event_frame(f"{ROOT_STATE}.hydrate_and_load", {}, "/"))
    state = await _read_until(client, lambda s: s.get(ROOT_STATE, {}).get("is_hydrated_rx_state_") is True, {}, timeout)
    return client, state


async def send_and_wait(client: SocketClient, state: dict, name: str, payload: dict[str, Any],
                        done: Callable[[dict[str, dict[str, Any]]], bool], timeout: float = 30) -> dict:
    """Send one event and merge the deltas until `done(state)`."""
    await client.send_text(event_frame(name, payload, "/"))
    return await _read_until(client, done, state, timeout)
