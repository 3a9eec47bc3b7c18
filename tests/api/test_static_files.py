"""Generated images are served under /uploads by the API app."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.seed import collection_tile_url, prepare_media
from storefront.wiring import print_provider


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    settings = Settings()
    prepare_media(settings, print_provider(settings))
    return TestClient(create_api(settings))


def test_collection_tiles_are_served_as_png(client: TestClient) -> None:
    response = client.get(collection_tile_url("hwdrn"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_upload_is_not_found(client: TestClient) -> None:
    assert client.get("/uploads/collections/nope.png").status_code == 404
