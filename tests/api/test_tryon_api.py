"""POST /api/try-on over HTTP with the local engine, on SQLite and PostgreSQL (the per-address limit
is kept in the database): the result as a data URL of the photo's size, and the refusals (413 over
10 MB, 422 for a photo without a person, an upside-down one, an item picture that shows no top, or an input
that is no image data URL, 429 when one address tries too often)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from skimage import data as samples
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.api.tryon import BODY_TOO_LARGE, INVALID_BODY, MAX_BODY_BYTES, TRY_ON
from storefront.config import Settings
from storefront.services.media.demo_images import render_garment_cutout
from storefront.services.media.images import IMAGE_UNREADABLE, MAX_IMAGE_BYTES
from storefront.services.tryon.engine import NO_PERSON_FOUND, UPSIDE_DOWN
from storefront.services.tryon.garment import NOT_A_TOP
from storefront.services.tryon.local import LocalTryOnEngine
from storefront.services.tryon.throttle import TOO_MANY_TRY_ONS, TRY_ONS_PER_MINUTE
from tests.ordering import FakeClock


def data_url(image: Image.Image, fmt: str = "PNG") -> str:
    out = io.BytesIO()
    image.save(out, fmt)
    return f"data:image/{fmt.lower()};base64,{base64.b64encode(out.getvalue()).decode()}"


PERSON = data_url(Image.fromarray(samples.astronaut()), "JPEG")
LANDSCAPE = data_url(Image.fromarray(samples.coffee()), "JPEG")
TEE = data_url(render_garment_cutout("tee", "#1d4ed8", "#f8fafc", "HWDKN", 600))


@pytest.fixture(scope="module")
def local_engine() -> LocalTryOnEngine:
    """One engine for the module: its models load once, as in the store."""
    return LocalTryOnEngine()


@pytest.fixture
def client(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_engine: LocalTryOnEngine
) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    # A pinned clock: the limit counts per minute, and a real minute may turn mid-test.
    return TestClient(create_api(Settings(), engine=engine, tryon_engine=local_engine, clock=FakeClock()))


def test_a_person_and_an_item_give_the_person_wearing_it(client: TestClient) -> None:
    response = client.post(TRY_ON, json={"userPhoto": PERSON, "selectedItem": TEE})
    assert response.status_code == 200, response.text
    url = response.json()["url"]
    assert url.startswith(("data:image/jpeg;base64,", "data:image/png;base64,"))
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as result:
        assert result.size == (512, 512)
        shown = result.convert("RGB")
    # The chest (between the shoulders, below the chin) now shows the blue tee.
    r, g, b = shown.getpixel((256, 430))
    assert b > 100 and b > r + 40


def test_an_iphone_heic_photo_is_dressed_like_a_jpeg(client: TestClient) -> None:
    photo = data_url(Image.fromarray(samples.astronaut()), "HEIF").replace("data:image/heif;", "data:image/heic;")
    response = client.post(TRY_ON, json={"userPhoto": photo, "selectedItem": TEE})
    assert response.status_code == 200, response.text
    with Image.open(io.BytesIO(base64.b64decode(response.json()["url"].split(",", 1)[1]))) as result:
        assert result.format in ("JPEG", "PNG") and result.size == (512, 512)
        r, g, b = result.convert("RGB").getpixel((256, 430))
    assert b > 100 and b > r + 40


def test_a_text_file_sent_as_a_heic_photo_is_refused_with_422(client: TestClient) -> None:
    text = "data:image/heic;base64," + base64.b64encode(b"not a photo, just text").decode()
    response = client.post(TRY_ON, json={"userPhoto": text, "selectedItem": TEE})
    assert response.status_code == 422
    assert response.json() == {"error": IMAGE_UNREADABLE, "details": {"userPhoto": IMAGE_UNREADABLE}}


def test_a_photo_without_a_person_is_refused_with_422(client: TestClient) -> None:
    response = client.post(TRY_ON, json={"userPhoto": LANDSCAPE, "selectedItem": TEE})
    assert response.status_code == 422
    assert response.json() == {"error": NO_PERSON_FOUND, "details": {"userPhoto": NO_PERSON_FOUND}}


def test_an_upside_down_photo_is_refused_with_422_and_its_reason(client: TestClient) -> None:
    upside_down = data_url(Image.fromarray(samples.astronaut()).rotate(180), "JPEG")
    response = client.post(TRY_ON, json={"userPhoto": upside_down, "selectedItem": TEE})
    assert response.status_code == 422
    assert response.json() == {"error": UPSIDE_DOWN, "details": {"userPhoto": UPSIDE_DOWN}}


@pytest.mark.parametrize(
    "item",
    [LANDSCAPE, data_url(Image.fromarray(samples.logo()))],
    ids=["landscape", "logo"],
)
def test_an_item_picture_that_shows_no_top_is_refused_with_422_and_a_sentence(client: TestClient, item: str) -> None:
    response = client.post(TRY_ON, json={"userPhoto": PERSON, "selectedItem": item})
    assert response.status_code == 422
    assert response.json() == {"error": NOT_A_TOP, "details": {"selectedItem": NOT_A_TOP}}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"userPhoto": "https://example.com/me.jpg", "selectedItem": TEE}, "userPhoto"),
        ({"userPhoto": PERSON}, "selectedItem"),
        ({"userPhoto": PERSON, "selectedItem": "data:text/plain;base64,aGVsbG8="}, "selectedItem"),
    ],
)
def test_an_input_that_is_no_image_data_url_is_refused_at_its_field(
    client: TestClient, body: dict[str, str], field: str
) -> None:
    response = client.post(TRY_ON, json=body)
    assert response.status_code == 422
    assert list(response.json()["details"]) == [field]


def test_a_body_that_is_no_json_object_is_refused(client: TestClient) -> None:
    for content in (b"not json", b"[1, 2]"):
        response = client.post(TRY_ON, content=content, headers={"content-type": "application/json"})
        assert response.status_code == 422
        assert response.json()["error"] == INVALID_BODY


def test_a_photo_over_10_mb_is_refused_with_413(client: TestClient) -> None:
    big = "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8\xff" + b"\0" * MAX_IMAGE_BYTES).decode()
    response = client.post(TRY_ON, json={"userPhoto": big, "selectedItem": TEE})
    assert response.status_code == 413
    assert response.json()["details"] == {"userPhoto": "The photo is larger than 10 MB. Use a smaller one."}


def test_a_body_over_the_cap_is_refused_with_413_while_it_arrives(client: TestClient) -> None:
    def chunks():
        sent = 0
        while sent <= MAX_BODY_BYTES:
            yield b" " * 1024 * 1024
            sent += 1024 * 1024

    response = client.post(TRY_ON, content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"] == BODY_TOO_LARGE


def test_one_address_trying_too_often_gets_429(client: TestClient) -> None:
    body = {"userPhoto": "not a data url", "selectedItem": TEE}  # refused after it is counted, cheaply
    statuses = [client.post(TRY_ON, json=body).status_code for _ in range(TRY_ONS_PER_MINUTE + 1)]
    assert statuses[:-1] == [422] * TRY_ONS_PER_MINUTE
    assert statuses[-1] == 429
    assert client.post(TRY_ON, json=body).json()["error"] == TOO_MANY_TRY_ONS
