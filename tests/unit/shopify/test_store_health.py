"""The store platform's check behind the configuration banner and the store product page."""

from __future__ import annotations

import asyncio

import pytest

from storefront.services.shopify.catalogue import StoreStatus
from storefront.services.shopify.health import (
    MIN_REFRESH_INTERVAL,
    STATUS_TTL,
    UNREACHABLE,
    StoreHealth,
    store_failed,
    store_state_label,
)

CONNECTED = StoreStatus("connected", "Connected to Shop", shop_name="Shop", domain="shop.example.com")
REFUSED = StoreStatus("error", "Shopify refused the access token (HTTP 401)")


class CountingStore:
    """A store catalogue whose status is set by the test; counts the checks."""

    def __init__(self, status: StoreStatus | Exception) -> None:
        self.answer = status
        self.checks = 0

    async def status(self) -> StoreStatus:
        self.checks += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("status", "failed", "label"),
    [
        (CONNECTED, False, "Connected"),
        (StoreStatus("demo", "Demo mode"), False, "Demo"),
        (REFUSED, True, "Failed"),
    ],
)
def test_only_an_error_fails_the_store_platform_test(status: StoreStatus, failed: bool, label: str) -> None:
    assert store_failed(status) is failed
    assert store_state_label(status) == label


def test_a_status_is_reused_until_it_is_a_minute_old() -> None:
    store, clock = CountingStore(CONNECTED), Clock()
    health = StoreHealth(store, clock=clock)
    assert asyncio.run(health.status()) == CONNECTED
    store.answer = REFUSED
    clock.now += STATUS_TTL - 1
    assert asyncio.run(health.status()) == CONNECTED
    assert store.checks == 1
    clock.now += 1
    assert asyncio.run(health.status()) == REFUSED
    assert store.checks == 2


def test_a_refresh_asks_again_but_not_twice_within_the_minimum_interval() -> None:
    store, clock = CountingStore(REFUSED), Clock()
    health = StoreHealth(store, clock=clock)
    asyncio.run(health.status())
    store.answer = CONNECTED
    clock.now += MIN_REFRESH_INTERVAL - 1
    assert asyncio.run(health.status(refresh=True)) == REFUSED
    clock.now += 1
    assert asyncio.run(health.status(refresh=True)) == CONNECTED
    assert store.checks == 2


def test_a_check_that_raises_is_a_failed_store() -> None:
    health = StoreHealth(CountingStore(RuntimeError("boom")), clock=Clock())
    status = asyncio.run(health.status())
    assert store_failed(status)
    assert status.message == UNREACHABLE


class SlowStore(CountingStore):
    """A store whose status check waits until the test lets it answer."""

    def __init__(self, status: StoreStatus) -> None:
        super().__init__(status)
        self.gate: asyncio.Event | None = None

    async def status(self) -> StoreStatus:
        assert self.gate is not None
        await self.gate.wait()
        return await super().status()


def test_a_burst_when_the_minute_is_up_asks_the_store_once() -> None:
    store, clock = SlowStore(CONNECTED), Clock()
    health = StoreHealth(store, clock=clock)

    async def main() -> list[StoreStatus]:
        store.gate = asyncio.Event()
        store.gate.set()
        await health.status()
        clock.now += STATUS_TTL
        store.gate.clear()
        store.answer = REFUSED
        burst = [asyncio.create_task(health.status()) for _ in range(50)]
        await asyncio.sleep(0)  # every call has started; the first one is waiting on the store
        store.gate.set()
        return await asyncio.gather(*burst)

    answers = asyncio.run(main())
    assert store.checks == 2
    assert answers.count(REFUSED) == 1 and answers.count(CONNECTED) == 49
