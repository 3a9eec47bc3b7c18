"""GET /api/printify/shops, GET /api/printify/status and POST /api/printify/refresh-config."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.errors import ProviderUnavailable


class DownProvider:
    def list_shops(self) -> list[dict]:
        raise ProviderUnavailable("Service Unavailable", status=503)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("PRINTIFY_API_TOKEN", raising=False)
    return Settings()


def test_shops_lists_the_providers_shops(settings: Settings, tmp_path: Path) -> None:
    client = TestClient(create_api(settings, provider=DemoPrintProvider(media_dir=tmp_path)))
    shops = client.get("/api/printify/shops").json()
    assert [set(shop) >= {"id", "title", "sales_channel"} for shop in shops] == [True]


def test_status_reports_the_spec_fields(settings: Settings, tmp_path: Path) -> None:
    client = TestClient(create_api(settings, provider=DemoPrintProvider(media_dir=tmp_path)))
    body = client.get("/api/printify/status").json()
    assert set(body) == {"configured", "hasApiKey", "apiKeyLength", "timestamp"}
    assert (body["configured"], body["hasApiKey"], body["apiKeyLength"]) == (True, False, 0)


def test_refresh_config_reports_a_provider_that_is_down(settings: Settings) -> None:
    client = TestClient(create_api(settings, provider=DownProvider()))  # type: ignore[arg-type]
    response = client.post("/api/printify/refresh-config")
    assert response.status_code == 200
    assert response.json()["isConfigured"] is False
    assert "Service Unavailable" in response.json()["message"]


def test_shops_passes_a_provider_failure_on_as_an_error(settings: Settings) -> None:
    client = TestClient(create_api(settings, provider=DownProvider()))  # type: ignore[arg-type]
    response = client.get("/api/printify/shops")
    assert response.status_code == 502
    assert response.json()["error"] == "Service Unavailable"
