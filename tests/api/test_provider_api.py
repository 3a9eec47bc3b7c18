"""GET /api/printify/shops, GET /api/printify/status and POST /api/printify/refresh-config."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.container import REFRESHES_PER_MINUTE, TOO_MANY_REFRESHES
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.errors import ProviderUnavailable
from tests.ordering import FakeClock

PASSWORD = "correct horse battery"


class CountingProvider:
    """The demo's shops, or `error` while it is set; counts list_shops calls."""

    def __init__(self, inner: DemoPrintProvider, error: Exception | None = None) -> None:
        self.inner, self.error, self.calls = inner, error, 0

    def list_shops(self) -> list[dict]:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.inner.list_shops()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("PRINTIFY_API_TOKEN", raising=False)
    monkeypatch.delenv("PRINTIFY_SHOP_ID", raising=False)
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    return Settings()


@pytest.fixture
def provider(tmp_path: Path) -> CountingProvider:
    return CountingProvider(DemoPrintProvider(media_dir=tmp_path))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(settings: Settings, engine: Engine, provider: CountingProvider, clock: FakeClock) -> TestClient:
    return TestClient(create_api(settings, engine=engine, provider=provider, clock=clock))  # type: ignore[arg-type]


def test_shops_lists_the_providers_shops(client: TestClient) -> None:
    shops = client.get("/api/printify/shops").json()
    assert [set(shop) >= {"id", "title", "sales_channel"} for shop in shops] == [True]


def test_status_reports_the_spec_fields(client: TestClient) -> None:
    body = client.get("/api/printify/status").json()
    assert set(body) == {"configured", "hasApiKey", "apiKeyLength", "timestamp"}
    assert (body["configured"], body["hasApiKey"], body["apiKeyLength"]) == (True, False, 0)


def test_refresh_config_reports_a_provider_that_is_down(client: TestClient, provider: CountingProvider) -> None:
    provider.error = ProviderUnavailable("Service Unavailable", status=503)
    response = client.post("/api/printify/refresh-config")
    assert response.status_code == 200
    assert response.json()["isConfigured"] is False
    assert "Service Unavailable" in response.json()["message"]


def test_shops_passes_a_provider_failure_on_as_an_error(client: TestClient, provider: CountingProvider) -> None:
    provider.error = ProviderUnavailable("Service Unavailable", status=503)
    response = client.get("/api/printify/shops")
    assert response.status_code == 502
    assert response.json()["error"] == "Service Unavailable"


def test_anonymous_calls_do_not_spend_the_providers_budget(client: TestClient, provider: CountingProvider) -> None:
    for _ in range(20):
        assert client.get("/api/printify/shops").status_code == 200
        assert client.get("/api/printify/status").status_code == 200
    assert provider.calls == 1  # one cached check serves them all
    refreshes = [client.post("/api/printify/refresh-config").status_code for _ in range(REFRESHES_PER_MINUTE + 1)]
    assert refreshes == [200] * REFRESHES_PER_MINUTE + [429]
    assert provider.calls == 1  # and refreshes close together reuse the last check
    refused = client.post("/api/printify/refresh-config")
    assert refused.json()["error"] == TOO_MANY_REFRESHES


def test_an_admin_refresh_checks_again_at_once(client: TestClient, provider: CountingProvider) -> None:
    token = client.post("/api/admin/login", json={"username": "owner", "password": PASSWORD}).json()["token"]
    client.get("/api/printify/status")
    for _ in range(REFRESHES_PER_MINUTE + 2):
        response = client.post("/api/printify/refresh-config", headers={"x-admin-token": token})
        assert response.status_code == 200
    assert provider.calls == 1 + REFRESHES_PER_MINUTE + 2


def test_a_refresh_with_a_wrong_admin_token_is_refused(client: TestClient, provider: CountingProvider) -> None:
    response = client.post("/api/printify/refresh-config", headers={"x-admin-token": "nope"})
    assert response.status_code == 401
    assert provider.calls == 0
