"""Two processes of the store serve one shop: one PostgreSQL database, Reflex state in Redis, and one
Printify (a shared fake Printify server over real HTTP, as a real deployment shares Printify).

Worker A is the session's store process (port of the build), worker B a second process on a port of
its own. The built front end talks to the build's port only, so B is driven over HTTP and over a
socket.io client aimed at its own port, never through a page loaded from it. Several workers are only
supported with a real provider: the embedded demo provider keeps its orders in each process's memory.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import pytest
import redis
from sqlalchemy import text
from sqlalchemy.engine import Engine

from storefront.db import make_engine
from storefront.services.admin.auth import hash_token
from storefront.services.catalog.store_catalogue import SYNC_JOB, WAIT_FOR_HOLDER_SECONDS
from storefront.services.collections import COLLECTIONS
from storefront.services.orders.fulfilment import LEASE
from tests.e2e.conftest import StoreProcess, StoreServer
from tests.e2e.workers import (
    PRODUCTS_STATE,
    ROOT_STATE,
    assert_sent_once_to_the_provider,
    event_frame,
    fulfilment_rows,
    hydrated_client,
    place_paid_order,
    poll,
    postgres_database,
    send_and_wait,
    start_together,
    unsent,
)
from tests.fakes.printify_server import FakePrintifyServer, RecordedRequest
from tests.fakes.printify_shop import PRODUCTS, seeded_shop
from tests.ordering import Pick, pick
from tests.serving import free_port

pytestmark = pytest.mark.reconfigures_store

REDIS_DB = 5
REDIS_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"
ADMIN = {"username": "owner", "password": "two workers, one shop 42"}
WEBHOOK_SECRET = "two-workers-webhook-secret"
SENT_WITHIN_S = 45
SYNCED_WITHIN_S = 90
#: The first product-list answer of the start-up sync is held this long, so the two processes'
#: starts surely overlap the sync (a process that starts after a finished sync rightly syncs again).
SYNC_HELD_S = 5.0


@dataclass
class Workers:
    a: StoreServer
    b: StoreServer
    process_a: StoreProcess
    process_b: StoreProcess
    engine: Engine
    fake: FakePrintifyServer
    item: Pick
    #: pid of each worker's server process, by name ("A", "B").
    pids: dict[str, int] = field(default_factory=dict)
    #: How many requests the fake had received when the two server processes were launched.
    requests_before_start: int = 0


def _redis() -> redis.Redis:
    return redis.Redis.from_url(REDIS_URL)


def _products_path(fake: FakePrintifyServer) -> str:
    return f"/v1/shops/{fake.shop_id}/products.json"


def _catalogue_synced(engine: Engine, expected: int) -> bool:
    with engine.connect() as connection:
        finished = connection.execute(text("SELECT finished_at FROM job_lease WHERE name = :n"),
                                      {"n": SYNC_JOB}).scalar_one_or_none()
        count = connection.execute(text("SELECT count(*) FROM catalog_product")).scalar_one()
    return finished is not None and count == expected


@pytest.fixture(scope="module")
def workers(
    store: StoreServer, store_process: StoreProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    """Stop the session store, then serve one PostgreSQL shop on one fake Printify from two processes
    started together (the demo store comes back before the next test that needs it)."""
    _redis().flushdb()
    store_process.stop()
    process_b = StoreProcess(free_port())
    fake = seeded_shop()
    try:
        with postgres_database() as db_url:
            overrides = {
                "DB_URL": db_url,
                "REDIS_URL": REDIS_URL,
                "ADMIN_USERNAME": ADMIN["username"],
                "ADMIN_PASSWORD": ADMIN["password"],
                "UPLOAD_DIR": str(tmp_path_factory.mktemp("shared-uploads")),
                # 50 orders come from one address here: the card-testing limit and the hourly order
                # limit (which now holds over its whole hour) are not what is tested.
                "PAYMENT_REQUESTS_PER_MINUTE": "1000",
                "ORDERS_PER_HOUR": "100000",
                # One Printify for both (test_printify_store.py runs one store against the same fake).
                "PRINTIFY_API_TOKEN": fake.token,
                "PRINTIFY_API_BASE": fake.base_url,
                "PRINTIFY_SHOP_ID": str(fake.shop_id),
                "PRINTIFY_WEBHOOK_SECRET": WEBHOOK_SECRET,
            }
            engine = make_engine(db_url)
            marks: dict[str, int] = {}

            def before_serving() -> None:
                marks["requests"] = len(fake.requests)
                fake.answer_slowly(SYNC_HELD_S, method="GET", path=_products_path(fake), times=1)

            try:
                a, b = start_together([(store_process, tmp_path_factory.mktemp("worker-a")),
                                       (process_b, tmp_path_factory.mktemp("worker-b"))], overrides, before_serving)
                fake.webhook_url, fake.webhook_secret = f"{a.url}/api/printify/webhooks", WEBHOOK_SECRET
                # The catalogue comes from the fake's shop once one process has synced it.
                poll("the start-up catalogue sync", lambda: _catalogue_synced(engine, len(PRODUCTS)), SYNCED_WITHIN_S)
                pids = {"A": store_process._process.pid, "B": process_b._process.pid}  # type: ignore[union-attr]
                yield Workers(a, b, store_process, process_b, engine, fake, pick(engine), pids, marks["requests"])
            finally:
                process_b.stop()
                store_process.stop()
                engine.dispose()
    finally:
        fake.stop()
        _redis().flushdb()


def _login(url: str) -> str:
    response = httpx.post(f"{url}/api/admin/login", json=ADMIN, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["token"]


def _page_one_product_lists(workers: Workers) -> list[RecordedRequest]:
    """The GETs of the shop's product list, page 1, the fake received since the workers were launched.

    How they are told apart: the store lists the shop's products only to sync its catalogue
    (catalog/sync.py's product_pages, page 1 first; an admin's sync is on request), so each start-up sync is
    one page-1 GET (10 products fit one page). Both workers send the same headers (token, User-Agent)
    and the fake does not record the client's address, so which process synced is read from the sync
    job's lease holder ("host:pid:random", job_leases.PROCESS_HOLDER) against the workers' pids."""
    since = workers.fake.requests[workers.requests_before_start:]
    return [r for r in since if r.method == "GET" and r.path == _products_path(workers.fake)
            and r.query.get("page", "1") == "1"]


def test_one_worker_fetched_the_catalogue_at_start(workers: Workers) -> None:
    """Both processes started together on one database: one synced the catalogue (one product list
    served by the fake), the other took the sync as done (it never asked for the list)."""
    # The waiting process looks again every WAIT_FOR_HOLDER_SECONDS (the store does not log at info
    # level here): wait until it has surely looked after the sync finished, then count.
    with workers.engine.connect() as connection:
        since_finished = connection.execute(text(
            "SELECT extract(epoch FROM now() - finished_at) FROM job_lease WHERE name = :n"), {"n": SYNC_JOB}
        ).scalar_one()
    time.sleep(max(0.0, 2 * WAIT_FOR_HOLDER_SECONDS + 1 - float(since_finished)))
    lists = _page_one_product_lists(workers)
    assert len(lists) == 1, [(r.path, r.query, r.status) for r in lists]
    assert lists[0].status == 200
    with workers.engine.connect() as connection:
        holder = connection.execute(text("SELECT holder FROM job_lease WHERE name = :n"),
                                    {"n": SYNC_JOB}).scalar_one()
    pid = int(holder.split(":")[-2])
    assert pid in workers.pids.values(), f"the sync's holder {holder} is neither worker {workers.pids}"


def test_both_workers_list_the_fake_shops_catalogue_once(workers: Workers) -> None:
    """Both workers show the same products, the fake shop's, each once."""
    listed: dict[str, set[str]] = {}
    for collection in COLLECTIONS:
        pages = [httpx.get(f"{s.url}/api/products/category/{collection.key}", timeout=30)
                 for s in (workers.a, workers.b)]
        for response in pages:
            assert response.status_code == 200, response.text
        assert pages[0].json() == pages[1].json(), collection.key
        listed[collection.key] = {p["name"] if "name" in p else p["title"] for p in pages[0].json()["data"]}
    titles = [t for names in listed.values() for t in names]
    assert sorted(titles) == sorted(title for title, *_ in PRODUCTS), listed
    with workers.engine.connect() as connection:
        counts = connection.execute(text("SELECT count(*), count(DISTINCT id) FROM catalog_product")).one()
        titles_in_db = connection.execute(text("SELECT count(*), count(DISTINCT title) FROM catalog_product")).one()
    assert counts[0] == counts[1] == len(PRODUCTS)
    assert titles_in_db[0] == titles_in_db[1]
    events = [httpx.get(f"{s.url}/api/events", timeout=30) for s in (workers.a, workers.b)]
    for response in events:
        assert response.status_code == 200, response.text
    assert events[0].json() == events[1].json()


def test_an_admin_session_is_shared_by_both_workers(workers: Workers) -> None:
    token = _login(workers.a.url)
    headers = {"x-admin-token": token}
    on_b = httpx.get(f"{workers.b.url}/api/admin/session", headers=headers, timeout=30)
    assert on_b.status_code == 200, on_b.text
    assert on_b.json()["username"] == ADMIN["username"]
    assert httpx.get(f"{workers.b.url}/api/orders", headers=headers, timeout=30).status_code == 200

    logout = httpx.post(f"{workers.b.url}/api/admin/logout", headers=headers, timeout=30)
    assert logout.status_code == 200, logout.text
    for url in (workers.a.url, workers.b.url):
        assert httpx.get(f"{url}/api/admin/session", headers=headers, timeout=30).status_code == 401
        assert httpx.get(f"{url}/api/orders", headers=headers, timeout=30).status_code == 401


def test_an_order_paid_through_a_is_in_bs_order_book(workers: Workers) -> None:
    number = place_paid_order(workers.a.url, workers.a.url, workers.item, f"book-{uuid.uuid4().hex}")
    headers = {"x-admin-token": _login(workers.b.url)}
    listed = httpx.get(f"{workers.b.url}/api/orders", params={"limit": 100}, headers=headers, timeout=30)
    assert listed.status_code == 200, listed.text
    orders = {o["id"]: o for o in listed.json()["data"]}
    assert number in orders, f"{number} not among {list(orders)}"
    assert orders[number]["paymentStatus"] == "paid"
    with workers.engine.connect() as connection:
        status = connection.execute(text("SELECT status FROM orders WHERE number = :n"), {"n": number}).scalar_one()
    assert orders[number]["status"] == status
    # B reads the status A's worker (or its own) gives the order once it reaches the provider.
    sent = poll("the order sent to the provider", lambda: fulfilment_rows(workers.engine, [number])[number]
                ["printify_order_id"], SENT_WITHIN_S)
    assert poll("B's order book showing the provider id", lambda: next(
        (o["printifyOrderId"] for o in httpx.get(f"{workers.b.url}/api/orders", params={"limit": 100},
                                                  headers=headers, timeout=30).json()["data"] if o["id"] == number),
        None), 10) == sent


def test_reflex_state_made_on_a_is_hydrated_on_b(workers: Workers) -> None:
    """A search made on A (server-side state, unlike the cart, which lives in the browser's local
    storage: the typed text stays on the server and its count of matches is sent) is in the state B
    hydrates for the same client token. A new client's listing state counts no match yet."""
    token = str(uuid.uuid4())
    query = ""  # every product of the store matches

    def searched(state: dict) -> bool:
        return (state.get(PRODUCTS_STATE, {}).get("total_rx_state_") or 0) > 0

    async def scenario() -> dict:
        client, state = await hydrated_client(workers.a.url, token)
        try:
            assert not searched(state)
            await send_and_wait(client, state, f"{PRODUCTS_STATE}.set_query", {"value": query}, searched)
        finally:
            await client.close()
        # The token is free again once A has seen the socket go (else B would hand out a new token).
        record = f"token_manager_socket_record_{token}"
        deadline = time.monotonic() + 15
        while _redis().exists(record) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        client, state = await hydrated_client(workers.b.url, token)
        await client.close()
        return state

    # Playwright's sync API may own this thread's event loop (other browser tests ran first).
    with ThreadPoolExecutor(max_workers=1) as pool:
        state_on_b = pool.submit(asyncio.run, scenario()).result()
    assert searched(state_on_b), state_on_b.get(PRODUCTS_STATE)
    keys = [k.decode() for k in _redis().scan_iter(match=f"*{token}*")]
    assert any(not k.startswith("token_manager_") for k in keys), keys


ADMIN_STATE = f"{ROOT_STATE}.storefront___state___admin___session____admin_state"


def test_redis_holds_no_admin_token_and_a_failing_handler_logs_none(workers: Workers) -> None:
    """The page sends the browser's token once; the state in Redis keeps its hash only, and a
    handler that fails on it (Reflex then logs the whole event) leaves no token in the log."""
    raw = _login(workers.a.url)
    client_token = str(uuid.uuid4())

    def resumed(state: dict) -> bool:
        return state.get(ADMIN_STATE, {}).get("session_checked_rx_state_") is True

    async def scenario() -> None:
        client, state = await hydrated_client(workers.a.url, client_token)
        try:
            await send_and_wait(client, state, f"{ADMIN_STATE}.resume_session", {"kept": raw}, resumed)
            # Not a parameter of the handler: it fails, with the token in its payload.
            await client.send_text(event_frame(f"{ADMIN_STATE}.resume_session", {"kept": raw, "cardNumber": raw}, "/"))
            poll("the failing handler logged", lambda: "resume_session" in _log(workers.a), 15)
        finally:
            await client.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, scenario()).result()
    store = _redis()

    def stored() -> bytes:
        return b"".join(_stored_bytes(store, key) for key in store.scan_iter(match=f"*{client_token}*"))

    # A keeps the state it served leased in memory for a moment (REFLEX_OPLOCK_HOLD_TIME) before
    # writing it to Redis.
    poll("the state written to Redis", lambda: hash_token(raw).encode() in stored(), 15)
    values = stored()
    assert raw.encode() not in values
    assert raw not in _log(workers.a) and hash_token(raw) not in _log(workers.a)


def test_both_outbox_workers_send_every_order_exactly_once(workers: Workers) -> None:
    urls = [workers.a.url, workers.b.url]
    numbers = [
        place_paid_order(urls[i % 2], urls[i % 2], workers.item, f"both-{i}-{uuid.uuid4().hex}") for i in range(20)
    ]
    rows = poll("all 20 orders sent", lambda: (lambda r: r if not unsent(r, numbers) else None)(
        fulfilment_rows(workers.engine, numbers)), SENT_WITHIN_S)
    provider_ids = [rows[n]["printify_order_id"] for n in numbers]
    assert len(set(provider_ids)) == 20
    for n in numbers:
        jobs = rows[n]["jobs"]["send_order"]
        assert len(jobs) == 1 and jobs[0]["attempts"] == 1 and jobs[0]["last_error"] is None, (n, jobs)
    assert_sent_once_to_the_provider(workers.fake, rows, numbers)


def test_both_workers_send_every_order_to_production(workers: Workers) -> None:
    """The second outbox step (send to production) of orders sent by either worker completes, unflagged."""
    urls = [workers.a.url, workers.b.url]
    numbers = [
        place_paid_order(urls[i % 2], urls[i % 2], workers.item, f"prod-{i}-{uuid.uuid4().hex}") for i in range(10)
    ]

    def settled() -> dict | None:
        rows = fulfilment_rows(workers.engine, numbers)
        done = all(job["done_at"] for n in numbers for jobs in rows.get(n, {}).get("jobs", {}).values() for job in jobs)
        return rows if done and not unsent(rows, numbers) and all(
            "send_to_production" in rows[n]["jobs"] for n in numbers) else None

    rows = poll("both outbox steps of 10 orders done", settled, SENT_WITHIN_S)
    flagged = {n: (rows[n]["attention_reason"], rows[n]["jobs"]) for n in numbers if rows[n]["attention_reason"]}
    assert not flagged, f"{len(flagged)} of 10 orders flagged: {flagged}"
    assert_sent_once_to_the_provider(workers.fake, rows, numbers)
    at_fake = {o["metadata"]["shop_order_id"]: o for o in workers.fake.all_orders()}
    not_in_production = {n: at_fake[n]["status"] for n in numbers if at_fake[n]["sent_to_production_at"] is None}
    assert not not_in_production, f"orders not sent to production at the provider: {not_in_production}"
    # Each order was sent to production once, whichever worker did it.
    sends = [r.path for r in workers.fake.requests_to("POST", "/send_to_production.json")]
    for n in numbers:
        assert sends.count(f"/v1/shops/{workers.fake.shop_id}/orders/{at_fake[n]['id']}/send_to_production.json") == 1


# Slow (up to ~60 s): runs last, as it kills worker A.
def test_when_a_dies_b_sends_its_orders_exactly_once(workers: Workers) -> None:
    # Placed in parallel, so A's outbox has little time to send them before it dies.
    with ThreadPoolExecutor(max_workers=10) as pool:
        numbers = list(pool.map(lambda i: place_paid_order(
            workers.a.url, workers.a.url, workers.item, f"kill-{i}-{uuid.uuid4().hex}"), range(10)))
    process = workers.process_a._process
    assert process is not None
    os.killpg(process.pid, 9)
    process.wait(timeout=30)
    workers.process_a._process = None
    killed_at = time.monotonic()
    left_for_b = unsent(fulfilment_rows(workers.engine, numbers), numbers)
    print(f"orders not yet sent when A was killed: {len(left_for_b)} of 10")

    def stranded(rows: dict) -> list[str]:
        """Orders A claimed and died sending: reserved for the rest of the outbox lease (two minutes
        from A's last heartbeat), never lost."""
        horizon = datetime.now(UTC) + LEASE / 2
        return [
            n for n in unsent(rows, numbers)
            if all(job["outcome_unknown"] and not job["done_at"] and job["next_attempt_at"] > horizon
                   for job in rows[n]["jobs"].get("send_order", [{"outcome_unknown": False}]))
        ]

    def settled() -> dict | None:
        rows = fulfilment_rows(workers.engine, numbers)
        return rows if set(unsent(rows, numbers)) == set(stranded(rows)) else None

    rows = poll("every order sent by B, or held under the claim A died with", settled, SENT_WITHIN_S)
    held = stranded(rows)
    sent = [n for n in numbers if n not in held]
    print(f"sent after A was killed: {len(sent)}; held under A's claim until its lease runs out: {len(held)}")
    assert time.monotonic() - killed_at < SENT_WITHIN_S + 1
    assert len({rows[n]["printify_order_id"] for n in sent}) == len(sent)
    for n in sent:
        jobs = rows[n]["jobs"]["send_order"]
        assert len(jobs) == 1 and jobs[0]["done_at"] and jobs[0]["last_error"] is None, (n, jobs)
    assert_sent_once_to_the_provider(workers.fake, rows, sent)
    # A held order is kept whole (paid, queued once, flagged as maybe sent): after the lease the
    # outbox looks it up at the provider before sending (tests/unit/orders/test_outbox_workers.py).
    for n in held:
        assert rows[n]["payment_status"] == "paid" and len(rows[n]["jobs"]["send_order"]) == 1, rows[n]
    assert httpx.get(f"{workers.b.url}/ping", timeout=10).status_code == 200


def _log(server: StoreServer) -> str:
    return (server.data_dir / "store.log").read_text(errors="replace")


def _stored_bytes(store: redis.Redis, key: bytes) -> bytes:
    """What Redis holds under `key`, uncompressed (DUMP would give it LZF-compressed)."""
    kind = store.type(key)
    if kind == b"string":
        return store.get(key) or b""
    if kind == b"hash":
        return b"".join(k + v for k, v in store.hgetall(key).items())
    return b"".join(store.lrange(key, 0, -1)) if kind == b"list" else b"".join(store.smembers(key))
