"""Generated images and renditions are served by the API app, each with its cache lifetime."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from storefront.api.app import create_api
from storefront.api.static import IMMUTABLE, ONE_HOUR
from storefront.config import Settings
from storefront.services.catalog.seed import HERO_IMAGE_URL, collection_tile_picture, prepare_media
from storefront.services.media.images import prepare_image
from storefront.wiring import print_provider


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    settings = Settings()
    prepare_media(settings, print_provider(settings))
    return settings


@pytest.fixture
def client(settings: Settings) -> TestClient:
    return TestClient(create_api(settings))


def test_every_rendition_of_a_collection_tile_is_served_as_webp(client: TestClient) -> None:
    tile = collection_tile_picture("hwdrn")
    urls = [entry.split(" ")[0] for entry in tile.srcset.split(", ")]
    assert tile.src in urls and len(urls) == 3
    for url in [*urls, HERO_IMAGE_URL]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["content-type"] == "image/webp"
        assert response.headers["cache-control"] == ONE_HOUR
        assert response.content[8:12] == b"WEBP"


def test_renditions_are_served_with_a_year_long_immutable_lifetime(client: TestClient, settings: Settings) -> None:
    prepared = prepare_image((settings.upload_dir / "collections" / "hwdrn.png").read_bytes(), settings.media_dir)
    response = client.get(f"/media/{prepared.digest}-320.webp")
    assert response.status_code == 200
    assert response.headers["cache-control"] == IMMUTABLE


def test_unknown_upload_is_not_found(client: TestClient) -> None:
    assert client.get("/uploads/collections/nope.png").status_code == 404
    assert client.get("/media/nope-320.webp").status_code == 404
