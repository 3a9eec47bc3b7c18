"""Behind a proxy the rate limits count the client's own address, read from X-Forwarded-For only
when the request comes from one of TRUSTED_PROXIES; anyone else's header is ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings, SettingsError
from storefront.container import REFRESHES_PER_MINUTE
from storefront.services.printify.demo import DemoPrintProvider
from tests.ordering import FakeClock

REFRESH = "/api/printify/refresh-config"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("PRINTIFY_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")
    return Settings()


def _client(settings: Settings, engine: Engine, tmp_path: Path, peer: str) -> TestClient:
    app = create_api(settings, engine=engine, provider=DemoPrintProvider(media_dir=tmp_path), clock=FakeClock())
    return TestClient(app, client=(peer, 50000))


def _refreshes(client: TestClient, forwarded_for: str, times: int) -> list[int]:
    return [client.post(REFRESH, headers={"X-Forwarded-For": forwarded_for}).status_code for _ in range(times)]


@pytest.mark.parametrize("proxy", ["127.0.0.1", "10.20.30.40"])
def test_through_a_trusted_proxy_each_client_has_its_own_limit(
    settings: Settings, engine: Engine, tmp_path: Path, proxy: str
) -> None:
    client = _client(settings, engine, tmp_path, proxy)
    assert _refreshes(client, "203.0.113.5", REFRESHES_PER_MINUTE + 1) == [200] * REFRESHES_PER_MINUTE + [429]
    assert _refreshes(client, "198.51.100.7", 1) == [200]  # another shopper behind the same proxy


def test_a_forged_address_in_front_of_the_proxys_own_entry_is_not_believed(
    settings: Settings, engine: Engine, tmp_path: Path
) -> None:
    client = _client(settings, engine, tmp_path, "127.0.0.1")
    # The proxy appends the address it saw; what the client wrote before it counts for nothing.
    forged = [f"192.0.2.{n}, 203.0.113.5" for n in range(REFRESHES_PER_MINUTE + 1)]
    answers = [client.post(REFRESH, headers={"X-Forwarded-For": value}).status_code for value in forged]
    assert answers == [200] * REFRESHES_PER_MINUTE + [429]


def test_a_client_that_is_no_trusted_proxy_cannot_choose_its_address(
    settings: Settings, engine: Engine, tmp_path: Path
) -> None:
    client = _client(settings, engine, tmp_path, "198.18.0.9")
    answers = [client.post(REFRESH, headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
               for n in range(REFRESHES_PER_MINUTE + 1)]
    assert answers == [200] * REFRESHES_PER_MINUTE + [429]


def test_trusted_proxies_must_be_addresses_or_networks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTED_PROXIES", "127.0.0.1, my-balancer")
    with pytest.raises(SettingsError, match="TRUSTED_PROXIES") as refused:
        Settings()
    assert "my-balancer" in str(refused.value)
    monkeypatch.setenv("TRUSTED_PROXIES", " 10.0.0.0/8 ,::1, * ")
    assert Settings().trusted_proxies == "10.0.0.0/8,::1,*"
