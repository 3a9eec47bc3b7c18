"""Concurrent checkouts through the HTTP API of the served store: every checkout places its order
twice at once with one Idempotency-Key (as a double click or a retry racing the first request
does), then pays twice at once with one paymentId; the database then says how many orders exist."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx
from sqlalchemy import func
from sqlmodel import Session, col, select

from storefront.db import make_engine
from storefront.models import Order, PaymentAttempt
from tests.ordering import GOOD_CARD, Pick, order_payload, pick

ORDERS = "/api/printify/orders"


@dataclass
class CheckoutRun:
    checkouts: int
    workers: int
    create_ms: list[float] = field(default_factory=list)
    pay_ms: list[float] = field(default_factory=list)
    #: Status codes of every request, by call ("create", "pay").
    statuses: dict[str, dict[int, int]] = field(default_factory=dict)
    #: Checkouts whose two create answers named two different orders.
    split_answers: int = 0
    #: Checkouts that got no order number at all.
    unplaced: int = 0
    #: Checkouts whose two answers carried two tokens (the later one replaces the first).
    reissued_tokens: int = 0
    #: Checkouts where no answered token opened the order.
    stale_tokens: int = 0
    #: Server errors logged by the workers during the run: SQLAlchemy's pool timing out.
    pool_timeouts: int = 0
    errors: list[str] = field(default_factory=list)
    # From the database, counting only this run's idempotency keys.
    orders: int = 0
    distinct_keys: int = 0
    distinct_numbers: int = 0
    paid: int = 0
    #: Charges sent to the payment gateway (payment attempts): one per order when a retry charges once.
    charges: int = 0
    wall_s: float = 0.0

    @property
    def duplicates(self) -> int:
        """Orders beyond one per checkout, plus checkouts answered with two different orders."""
        return max(0, self.orders - self.distinct_keys) + max(0, self.distinct_keys - self.checkouts) \
            + self.split_answers

    @staticmethod
    def percentiles(samples: list[float]) -> tuple[float, float]:
        if not samples:
            return float("nan"), float("nan")
        ordered = sorted(samples)
        return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)]


async def _timed(client: httpx.AsyncClient, url: str, json: dict, headers: dict, into: list[float],
                 statuses: Counter) -> httpx.Response | None:
    start = time.perf_counter()
    try:
        response = await client.post(url, json=json, headers=headers)
    except httpx.HTTPError as error:
        statuses[0] += 1
        raise RuntimeError(f"{url}: {error!r}") from error
    into.append((time.perf_counter() - start) * 1000)
    statuses[response.status_code] += 1
    return response


async def _checkout(client: httpx.AsyncClient, urls: Sequence[str], number: int, run_id: str, line: Pick,
                    run: CheckoutRun, creates: Counter, pays: Counter) -> None:
    first, second = urls[number % len(urls)], urls[(number + 1) % len(urls)]
    key = f"bench-{run_id}-{number}"
    payload = order_payload((line, 1))
    answers = await asyncio.gather(
        *(_timed(client, f"{base}{ORDERS}", payload, {"Idempotency-Key": key}, run.create_ms, creates)
          for base in (first, second)), return_exceptions=True)
    placed = [a for a in answers if isinstance(a, httpx.Response) and a.is_success]
    for answer in answers:
        if isinstance(answer, Exception):
            run.errors.append(str(answer)[:160])
        elif not answer.is_success:
            run.errors.append(f"create {answer.status_code}: {answer.text[:120]}")
    if not placed:
        run.unplaced += 1
        return
    numbers = {a.json()["order"]["id"] for a in placed}
    if len(numbers) > 1:
        run.split_answers += 1
    order_number = placed[0].json()["order"]["id"]
    # The request that lost the race answers as a repeat: the order's number and no token (the
    # winner's stays the only one). Pay with the token that opens the order.
    tokens = [a.json()["accessToken"] for a in placed if a.json()["accessToken"]]
    if not tokens:
        run.stale_tokens += 1
        return
    token = tokens[-1]
    for candidate in tokens:
        opened = await client.get(f"{first}/api/orders/{order_number}/status", headers={"X-Order-Token": candidate})
        if opened.is_success:
            token = candidate
            break
    else:
        run.stale_tokens += 1
    if len(set(tokens)) > 1:
        run.reissued_tokens += 1
    body = {"paymentId": f"pay_{int(time.time() * 1000)}_{run_id[:6]}{number}", "shopId": "store",
            "paymentMethod": "card", "cardData": GOOD_CARD}
    paid = await asyncio.gather(
        *(_timed(client, f"{base}{ORDERS}/{order_number}/process-payment", body, {"X-Order-Token": token},
                 run.pay_ms, pays) for base in (second, first)), return_exceptions=True)
    for answer in paid:
        if isinstance(answer, Exception):
            run.errors.append(str(answer)[:160])
        elif not answer.is_success:
            run.errors.append(f"pay {answer.status_code}: {answer.text[:120]}")


async def _all_checkouts(urls: Sequence[str], line: Pick, count: int, run_id: str, run: CheckoutRun) -> None:
    creates: Counter = Counter()
    pays: Counter = Counter()
    limits = httpx.Limits(max_connections=8 * count, max_keepalive_connections=8 * count)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        start = time.perf_counter()
        await asyncio.gather(*(_checkout(client, urls, n, run_id, line, run, creates, pays) for n in range(count)))
        run.wall_s = time.perf_counter() - start
    run.statuses = {"create": dict(creates), "pay": dict(pays)}


def run_checkouts(urls: Sequence[str], db_url: str, count: int) -> CheckoutRun:
    """`count` checkouts at once against the store's backends (each checkout's two requests go to
    two of them when there are several), then the orders counted in the store's database."""
    engine = make_engine(db_url)
    try:
        line = pick(engine)
        run_id = uuid.uuid4().hex[:10]
        run = CheckoutRun(checkouts=count, workers=len(urls))
        # Playwright's sync API owns the calling thread's event loop: the checkouts get a thread of their own.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, _all_checkouts(urls, line, count, run_id, run)).result()
        mine = col(Order.idempotency_key).like(f"bench-{run_id}-%")
        with Session(engine) as session:
            run.orders = session.exec(select(func.count()).select_from(Order).where(mine)).one()
            run.distinct_keys = session.exec(select(func.count(func.distinct(Order.idempotency_key))).where(mine)).one()
            run.distinct_numbers = session.exec(select(func.count(func.distinct(Order.number))).where(mine)).one()
            run.paid = session.exec(select(func.count()).select_from(Order).where(mine)
                                    .where(col(Order.payment_status) == "paid")).one()
            run.charges = session.exec(
                select(func.count()).select_from(PaymentAttempt)
                .join(Order, col(PaymentAttempt.order_id) == col(Order.id)).where(mine)).one()
    finally:
        engine.dispose()
    run.errors = run.errors[:5]
    return run
