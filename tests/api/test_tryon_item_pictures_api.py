"""POST /api/try-on given the try-on page's own item pictures (as the spec has a client fetch them
from their image paths) answers what the page answers for those items, on SQLite and PostgreSQL: the
picture is recognised and the store's prepared garment is worn."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from skimage import data as samples
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.api.app import create_api
from storefront.api.tryon import TRY_ON
from storefront.config import Settings
from storefront.services.media.demo_images import render_garment
from storefront.services.media.images import PreparedImage
from storefront.services.tryon import fitting, items
from storefront.services.tryon.data_urls import image_data_url
from storefront.services.tryon.local import LocalTryOnEngine
from tests.demo_pictures import draw_demo_pictures, prepare_demo_pictures, seed_prepared_demo
from tests.ordering import FakeClock


@pytest.fixture(scope="module")
def local_engine() -> LocalTryOnEngine:
    return LocalTryOnEngine()


@pytest.fixture(scope="module")
def uploads(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, PreparedImage]]:
    """An uploads folder with the demo pictures drawn and their renditions in its media folder."""
    folder = tmp_path_factory.mktemp("uploads")
    draw_demo_pictures(folder)
    return folder, prepare_demo_pictures(folder, folder / "media")


@pytest.fixture
def store(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    local_engine: LocalTryOnEngine,
    uploads: tuple[Path, dict[str, PreparedImage]],
) -> tuple[TestClient, Settings]:
    folder, prepared = uploads
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("UPLOAD_DIR", str(folder))
    seed_prepared_demo(engine, folder, prepared)
    settings = Settings()
    assert settings.media_dir == folder / "media"
    return TestClient(create_api(settings, engine=engine, tryon_engine=local_engine, clock=FakeClock())), settings


def test_the_page_s_item_pictures_give_the_page_s_result(
    store: tuple[TestClient, Settings], engine: Engine, local_engine: LocalTryOnEngine
) -> None:
    client, settings = store
    photo = fitting.prepare_photo(_jpeg(Image.fromarray(samples.astronaut())))  # as the page keeps it
    with Session(engine) as session:
        offered = items.available_items(session)
    assert len(offered) == 3
    for item in offered:
        shown = (settings.media_dir / item.image_url.removeprefix("/media/")).read_bytes()
        response = client.post(TRY_ON, json={"userPhoto": image_data_url(photo), "selectedItem": image_data_url(shown)})
        assert response.status_code == 200, response.text
        on_the_page = fitting.dress(
            local_engine, photo, items.garment_picture(item, settings.upload_dir, settings.media_dir)
        )
        assert response.json()["url"] == on_the_page, item.name
        # Not the result of the rendition cut as a foreign picture would be.
        assert on_the_page != fitting.dress(local_engine, photo, shown)


def _jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92)
    return out.getvalue()


def test_a_picture_the_store_did_not_make_is_still_worn(store: tuple[TestClient, Settings]) -> None:
    client, _ = store
    mockup = render_garment("tee", "#1d4ed8", "#f8fafc", "HWDKN", 640)
    item = "data:image/jpeg;base64," + base64.b64encode(_jpeg(mockup)).decode()
    person = "data:image/jpeg;base64," + base64.b64encode(_jpeg(Image.fromarray(samples.astronaut()))).decode()
    response = client.post(TRY_ON, json={"userPhoto": person, "selectedItem": item})
    assert response.status_code == 200, response.text
    with Image.open(io.BytesIO(base64.b64decode(response.json()["url"].split(",", 1)[1]))) as result:
        r, g, b = result.convert("RGB").getpixel((256, 430))
    assert b > 100 and b > r + 40
