"""The provider check behind the configuration banner and /api/printify/status."""

import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from storefront.config import Settings
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.errors import ProviderUnauthorized
from storefront.services.printify.provider_status import (
    DEPLOYMENT_TITLE,
    LOCAL_TITLE,
    MIN_REFRESH_INTERVAL,
    STATUS_TTL,
    ProviderHealth,
    ShopNotFound,
    StoreShop,
    banner_decision,
    check_provider,
    choose_shop,
    refresh_message,
)
from tests.ordering import FakeClock


class CountingProvider:
    """Answers list_shops with `shops`, or raises `error`; counts the calls."""

    def __init__(self, shops: list[dict] | None = None, error: Exception | None = None) -> None:
        self.shops, self.error, self.calls = shops or [], error, 0

    def list_shops(self) -> list[dict]:
        self.calls += 1
        if self.error:
            raise self.error
        return self.shops


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PRINTIFY_API_TOKEN", "secret-token")
    return Settings()


def test_the_demo_provider_counts_as_configured(tmp_path: Path, settings: Settings) -> None:
    status = check_provider(settings, DemoPrintProvider(media_dir=tmp_path), FakeClock().now)
    assert status.configured and status.error == ""


def test_a_failing_provider_is_not_configured_and_says_why(settings: Settings) -> None:
    status = check_provider(settings, CountingProvider(error=ProviderUnauthorized("Unauthenticated")), FakeClock().now)
    assert not status.configured
    assert "Unauthenticated" in status.error


def test_the_status_response_has_the_key_length_but_never_the_key(settings: Settings) -> None:
    status = check_provider(settings, CountingProvider(shops=[{"id": 1}]), FakeClock().now)
    response = status.as_response()
    assert (response["hasApiKey"], response["apiKeyLength"]) == (True, len("secret-token"))
    assert "secret-token" not in str(response)


def test_the_check_is_reused_within_its_ttl(settings: Settings) -> None:
    provider, clock = CountingProvider(shops=[{"id": 1}]), FakeClock()
    health = ProviderHealth(settings, provider, clock)
    health.status()
    clock.now += STATUS_TTL - timedelta(seconds=1)
    health.status()
    assert provider.calls == 1


def run_now(work: Callable[[], None]) -> None:
    """Background work done before the caller goes on (tests see its effect at once)."""
    work()


def test_the_check_runs_again_after_its_ttl_or_on_refresh(settings: Settings) -> None:
    provider, clock = CountingProvider(shops=[{"id": 1}]), FakeClock()
    health = ProviderHealth(settings, provider, clock, background=run_now)
    health.status()
    clock.now += MIN_REFRESH_INTERVAL
    health.status(refresh=True)
    clock.now += STATUS_TTL
    health.status()
    assert provider.calls == 3


def test_a_stale_status_is_answered_at_once_and_checked_again_in_the_background(settings: Settings) -> None:
    provider, clock = CountingProvider(shops=[{"id": 1}]), FakeClock()
    pending: list[Callable[[], None]] = []
    health = ProviderHealth(settings, provider, clock, background=pending.append)
    first = health.status()
    clock.now += STATUS_TTL
    provider.error = ProviderUnauthorized("Unauthenticated.")
    assert health.status() is first and health.status() is first  # no waiting on the provider
    assert provider.calls == 1 and len(pending) == 1  # one background check, not one per caller
    pending.pop()()
    assert provider.calls == 2
    assert not health.status().configured


def test_refreshes_in_quick_succession_ask_the_provider_once(settings: Settings) -> None:
    provider, clock = CountingProvider(shops=[{"id": 1}]), FakeClock()
    health = ProviderHealth(settings, provider, clock)
    for _ in range(50):
        health.status(refresh=True)
    assert provider.calls == 1
    clock.now += MIN_REFRESH_INTERVAL - timedelta(seconds=1)
    health.status(refresh=True)
    assert provider.calls == 1
    health.status(refresh=True, force=True)  # an admin's refresh
    assert provider.calls == 2


def test_a_shop_id_the_account_lacks_is_not_configured_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PRINTIFY_API_TOKEN", "secret-token")
    monkeypatch.setenv("PRINTIFY_SHOP_ID", "999")
    provider = CountingProvider(shops=[{"id": 1, "title": "Main"}])
    status = check_provider(Settings(), provider, FakeClock().now)
    assert not status.configured
    assert status.error == "PRINTIFY_SHOP_ID 999 is not a shop of this Printify account (its shops: 1 (Main))"
    with pytest.raises(ShopNotFound):
        StoreShop(Settings(), provider)()


def test_the_store_shop_is_the_configured_one_else_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    shops = [{"id": 1, "title": "Main"}, {"id": 2, "title": "Second"}]
    assert choose_shop(shops) == 1
    assert choose_shop(shops, "2") == 2
    monkeypatch.setenv("PRINTIFY_SHOP_ID", "2")
    provider = CountingProvider(shops=shops)
    shop = StoreShop(Settings(), provider)
    assert (shop(), shop(), provider.calls) == (2, 2, 1)


def test_a_failing_check_is_logged_once_until_it_changes(settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    provider, clock = CountingProvider(error=ProviderUnauthorized("Unauthenticated.")), FakeClock()
    health = ProviderHealth(settings, provider, clock, background=run_now)
    with caplog.at_level(logging.INFO, logger="storefront.services.printify.provider_status"):
        health.status()
        clock.now += STATUS_TTL
        health.status()
        provider.error = None
        provider.shops = [{"id": 1}]
        clock.now += STATUS_TTL
        health.status()
    assert [r.getMessage() for r in caplog.records] == [
        "The print provider is not usable: Unauthenticated.",
        "The print provider answers again",
    ]


def test_the_banner_is_hidden_when_no_check_fails() -> None:
    assert not banner_decision(False, False, "localhost:3000").visible


def test_one_failing_check_shows_a_warning() -> None:
    decision = banner_decision(True, False, "localhost:3000")
    assert (decision.visible, decision.variant) == (True, "warning")


def test_both_failing_checks_show_a_destructive_banner() -> None:
    assert banner_decision(True, True, "localhost").variant == "destructive"


@pytest.mark.parametrize("host", ["localhost:3000", "127.0.0.1", "dev.shop.example.com", "shop.local"])
def test_local_and_dev_hosts_get_the_api_configuration_title(host: str) -> None:
    assert banner_decision(True, False, host).title == LOCAL_TITLE == "API Configuration Issue"


def test_deployed_hosts_get_the_deployment_title() -> None:
    assert banner_decision(True, False, "shop.example.com").title == DEPLOYMENT_TITLE
    assert DEPLOYMENT_TITLE == "Deployment API Configuration Required"


def test_the_refresh_message_says_what_is_wrong(settings: Settings) -> None:
    failed = check_provider(settings, CountingProvider(error=ProviderUnauthorized("Unauthenticated")), FakeClock().now)
    assert "Unauthenticated" in refresh_message(failed)
