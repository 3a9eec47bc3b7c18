"""POST /api/upload/images over HTTP on SQLite and PostgreSQL: admin only, every refusal stores
nothing, and a stored upload is served as WebP without its EXIF."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select
from starlette.datastructures import UploadFile

from storefront.api import uploads as upload_routes
from storefront.api.app import create_api
from storefront.api.static import IMMUTABLE, ONE_HOUR
from storefront.config import Settings
from storefront.models import ImageSource
from storefront.services.admin.auth import SESSION_REQUIRED
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import (
    IMAGE_TOO_LARGE,
    IMAGE_TOO_MANY_PIXELS,
    IMAGE_UNREADABLE,
    MAX_IMAGE_BYTES,
    WEBP_MAX_SIDE,
    rendition_name,
    rendition_widths,
)
from storefront.services.media.uploads import MAX_FILES_PER_REQUEST, NO_FILES, TOO_MANY_FILES
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers
from tests.unit.media.test_uploads import encoded, heic, heic_claiming, jpeg_with_exif, one_bit_png, png_claiming

UPLOAD = "/api/upload/images"

File = tuple[str, tuple[str, bytes, str]]


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    return Settings()


@pytest.fixture
def client(engine: Engine, settings: Settings) -> TestClient:
    return TestClient(create_api(settings, engine=engine, gateway=TestPaymentGateway()))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


def image(name: str, data: bytes, content_type: str = "image/jpeg") -> File:
    return ("images", (name, data, content_type))


def stored_files(settings: Settings) -> list[Path]:
    return sorted(path for path in settings.upload_dir.rglob("*") if path.is_file())


def sources(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(ImageSource)).one()


def assert_nothing_stored(settings: Settings, engine: Engine) -> None:
    assert stored_files(settings) == []
    assert sources(engine) == 0


def refused(client: TestClient, admin: dict[str, str], files: list[File], status: int = 422) -> dict[str, Any]:
    response = client.post(UPLOAD, files=files, headers=admin)
    assert response.status_code == status, response.text
    return response.json()


# --------------------------------------------------------------------------- the admin session


@pytest.mark.parametrize("headers", [{}, {"x-admin-token": "not-a-token"}, {"x-admin-token": ""}])
def test_uploading_needs_the_admin_session(
    client: TestClient, settings: Settings, engine: Engine, headers: dict[str, str]
) -> None:
    response = client.post(UPLOAD, files=[image("a.png", encoded(), "image/png")], headers=headers)
    assert response.status_code == 401
    assert response.json()["error"] == SESSION_REQUIRED
    assert_nothing_stored(settings, engine)


# --------------------------------------------------------------------------- refusals store nothing


def test_a_text_file_named_jpg_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    body = refused(client, admin, [image("holiday.jpg", b"not a picture at all\n")])
    assert body == {
        "error": f"holiday.jpg: {IMAGE_UNREADABLE}",
        "details": {"images": f"holiday.jpg: {IMAGE_UNREADABLE}"},
    }
    assert_nothing_stored(settings, engine)


def test_an_11_mb_upload_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    big = encoded(fmt="JPEG") + b"\x00" * (11 * 1024 * 1024)
    body = refused(client, admin, [image("big.jpg", big)])
    assert body["error"] == f"big.jpg: {IMAGE_TOO_LARGE}"
    assert_nothing_stored(settings, engine)


def test_a_file_is_read_no_further_than_one_byte_past_the_limit() -> None:
    upload = UploadFile(file=io.BytesIO(b"\xff" * (MAX_IMAGE_BYTES + 4096)), filename="big.jpg")
    read = asyncio.run(upload_routes._read(upload))
    assert (read.filename, len(read.data)) == ("big.jpg", MAX_IMAGE_BYTES + 1)


@pytest.mark.parametrize(
    "data", [png_claiming(20000, 20000), one_bit_png(8000, 8000)], ids=["header-claims-20000x20000", "1-bit-8000x8000"]
)
def test_a_decompression_bomb_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine, data: bytes
) -> None:
    assert len(data) < MAX_IMAGE_BYTES
    body = refused(client, admin, [image("bomb.png", data, "image/png")])
    assert body["error"] == f"bomb.png: {IMAGE_TOO_MANY_PIXELS}"
    assert_nothing_stored(settings, engine)


def test_eleven_files_are_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    files = [image(f"{n}.png", encoded(), "image/png") for n in range(MAX_FILES_PER_REQUEST + 1)]
    body = refused(client, admin, files)
    assert body == {"error": TOO_MANY_FILES, "details": {"images": TOO_MANY_FILES}}
    assert_nothing_stored(settings, engine)


def test_a_text_file_named_heic_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    body = refused(client, admin, [image("IMG_0001.HEIC", b"not a photo, just text\n", "image/heic")])
    assert body["error"] == f"IMG_0001.HEIC: {IMAGE_UNREADABLE}"
    assert_nothing_stored(settings, engine)


def test_a_heic_claiming_a_huge_canvas_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    body = refused(client, admin, [image("bomb.heic", heic_claiming(8000, 8000), "image/heic")])
    assert body["error"] == f"bomb.heic: {IMAGE_TOO_MANY_PIXELS}"
    assert_nothing_stored(settings, engine)


def test_one_bad_file_among_good_ones_stores_none_of_them(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    files = [image("a.png", encoded(), "image/png"), image("b.jpg", jpeg_with_exif()), image("notes.jpg", b"text")]
    assert refused(client, admin, files)["error"] == f"notes.jpg: {IMAGE_UNREADABLE}"
    assert_nothing_stored(settings, engine)


def test_a_request_without_images_is_refused(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    assert refused(client, admin, [("photos", ("a.png", encoded(), "image/png"))])["details"] == {"images": NO_FILES}
    response = client.post(UPLOAD, json={"images": ["a.png"]}, headers=admin)
    assert response.status_code == 422
    assert_nothing_stored(settings, engine)


def test_a_body_over_the_request_limit_is_refused_while_it_arrives(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upload_routes, "MAX_BODY_BYTES", 50_000)
    body = refused(client, admin, [image("a.jpg", encoded(fmt="JPEG") + b"\x00" * 60_000)], status=413)
    assert body["error"] == upload_routes.BODY_TOO_LARGE
    assert_nothing_stored(settings, engine)


# --------------------------------------------------------------------------- a good upload


def test_an_upload_is_stored_as_webp_without_exif_and_served(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    photo = jpeg_with_exif((700, 500))
    response = client.post(UPLOAD, files=[image("me.jpg", photo)], headers=admin)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["files"]
    url = entry["url"]
    assert url.startswith("/uploads/events/") and url.endswith(".webp")

    served = client.get(url)
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/webp"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["cache-control"] == ONE_HOUR
    assert served.content[:4] == b"RIFF" and served.content[8:12] == b"WEBP"
    assert b"SecretCam" not in served.content and b"Jane Shopper" not in served.content
    with Image.open(io.BytesIO(served.content)) as stored:
        assert stored.format == "WEBP"
        assert stored.size == (700, 500)
        assert dict(stored.getexif()) == {}
        assert "exif" not in stored.info
    assert (settings.upload_dir / url.removeprefix("/uploads/")).read_bytes() == served.content

    with Session(engine) as session:
        row = session.get(ImageSource, src_key(url))
    assert row is not None and (row.src, row.width, row.height) == (url, 700, 500)
    for width in rendition_widths(700):
        assert (settings.media_dir / rendition_name(row.digest, width)).is_file()
        rendition = client.get(f"/media/{rendition_name(row.digest, width)}")
        assert rendition.status_code == 200
        assert rendition.headers["content-type"] == "image/webp"
        assert rendition.headers["x-content-type-options"] == "nosniff"
        assert rendition.headers["cache-control"] == IMMUTABLE


def test_an_iphone_heic_photo_is_stored_upright_as_webp_with_its_renditions(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    photo = heic((700, 500), orientation=6)
    response = client.post(UPLOAD, files=[image("IMG_0001.HEIC", photo, "image/heic")], headers=admin)
    assert response.status_code == 200, response.text
    url = response.json()["files"][0]["url"]
    assert url.startswith("/uploads/events/") and url.endswith(".webp")
    served = client.get(url)
    assert served.headers["content-type"] == "image/webp"
    assert b"SecretCam" not in served.content
    with Image.open(io.BytesIO(served.content)) as stored:
        assert stored.format == "WEBP"
        assert stored.size == (500, 700)  # upright
    with Session(engine) as session:
        row = session.get(ImageSource, src_key(url))
    assert row is not None and (row.width, row.height) == (500, 700)
    for width in rendition_widths(500):
        with Image.open(settings.media_dir / rendition_name(row.digest, width)) as rendition:
            assert rendition.format == "WEBP" and rendition.width == width


def test_ten_images_are_stored_in_one_request(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    files = [image(f"{n}.png", encoded(colour=f"#{n:02x}3050"), "image/png") for n in range(MAX_FILES_PER_REQUEST)]
    response = client.post(UPLOAD, files=files, headers=admin)
    assert response.status_code == 200, response.text
    urls = [entry["url"] for entry in response.json()["files"]]
    assert len(set(urls)) == MAX_FILES_PER_REQUEST
    assert len(list((settings.upload_dir / "events").iterdir())) == MAX_FILES_PER_REQUEST
    assert sources(engine) == MAX_FILES_PER_REQUEST
    for url in urls:
        assert client.get(url).status_code == 200


def test_an_uploaded_image_can_be_used_by_an_event(client: TestClient, admin: dict[str, str]) -> None:
    response = client.post(UPLOAD, files=[image("poster.png", encoded((900, 600)), "image/png")], headers=admin)
    url = response.json()["files"][0]["url"]
    event = {
        "title": "Poster night",
        "description": "Bring a friend.",
        "location": "Denver, CO",
        "startDate": "2026-12-05T19:00",
        "images": [url],
    }
    created = client.post("/api/events", json=event, headers=admin)
    assert created.status_code == 201, created.text
    assert client.get("/api/events").json()[0]["images"] == [url]


def test_an_image_wider_than_webp_allows_is_shrunk_and_stored(
    client: TestClient, admin: dict[str, str], settings: Settings, engine: Engine
) -> None:
    response = client.post(UPLOAD, files=[image("panorama.png", encoded((17_000, 300)))], headers=admin)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["files"]
    with Image.open(settings.upload_dir / entry["url"].removeprefix("/uploads/")) as stored:
        assert stored.format == "WEBP" and stored.size == (WEBP_MAX_SIDE, 289)
    with Session(engine) as session:
        row = session.get(ImageSource, src_key(entry["url"]))
    assert row is not None and (row.width, row.height) == (WEBP_MAX_SIDE, 289)
    for width in rendition_widths(WEBP_MAX_SIDE):
        assert (settings.media_dir / rendition_name(row.digest, width)).is_file()
