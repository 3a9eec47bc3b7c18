"""Try-on requests: data URLs in and out, the shopper's photo made ready (upright, small, no
metadata), size and type refusals, and the engine's failures turned into the typed errors."""

from __future__ import annotations

import base64
import io
import logging

import pytest
from PIL import Image

from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ValidationError
from storefront.services.tryon import fitting
from storefront.services.tryon.data_urls import MAX_ENCODED_LENGTH, decode_data_url, image_data_url
from storefront.services.tryon.engine import (
    ENGINE_FAILED,
    GARMENT_FIELD,
    PERSON_FIELD,
    EngineFailed,
    InputTooLarge,
    NoPersonFound,
    UnsupportedImage,
    decode_inputs,
)


def encoded(image: Image.Image, fmt: str = "PNG", **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def data_url(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


PNG = encoded(Image.new("RGB", (40, 30), (200, 30, 40)))


# ---------------------------------------------------------------- data URLs


def test_a_data_url_round_trips_and_names_its_type_from_the_bytes() -> None:
    jpeg = encoded(Image.new("RGB", (8, 8)), "JPEG")
    assert decode_data_url(data_url(PNG), PERSON_FIELD) == PNG
    assert decode_data_url(data_url(PNG, "image/png;name=me.png"), PERSON_FIELD) == PNG  # with a parameter
    assert image_data_url(PNG).startswith("data:image/png;base64,")
    assert image_data_url(jpeg).startswith("data:image/jpeg;base64,")
    assert decode_data_url(image_data_url(jpeg), GARMENT_FIELD) == jpeg


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "The photo is required."),
        ("", "The photo is required."),
        (42, "The photo is required."),
        ("https://example.com/me.png", "The photo must be an image data URL"),
        ("data:image/png,not-base64", "The photo must be an image data URL"),
        ("data:image/png;base64,@@@@", "The photo is not valid base64 data."),
    ],
)
def test_a_photo_that_is_not_a_base64_data_url_is_refused_at_its_field(value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as refused:
        decode_data_url(value, PERSON_FIELD)
    assert refused.value.status_code == 422 and PERSON_FIELD in refused.value.field_errors


def test_an_oversized_data_url_is_refused_with_413_before_it_is_decoded() -> None:
    too_long = "data:image/png;base64," + "A" * (MAX_ENCODED_LENGTH + 8)
    with pytest.raises(InputTooLarge, match="The item image is larger than 10 MB") as refused:
        decode_data_url(too_long, GARMENT_FIELD)
    assert refused.value.status_code == 413 and refused.value.field_errors == {GARMENT_FIELD: refused.value.message}
    just_over = "data:image/png;base64," + base64.b64encode(b"\0" * (MAX_IMAGE_BYTES + 1)).decode()
    with pytest.raises(InputTooLarge, match="The photo is larger than 10 MB"):
        decode_data_url(just_over, PERSON_FIELD)


# ---------------------------------------------------------------- the photo kept for the page


def test_the_kept_photo_is_upright_small_and_without_metadata() -> None:
    # A 3000 x 2000 landscape sensor image the camera marked "rotate 90 degrees" (orientation 6).
    sideways = Image.new("RGB", (3000, 2000), (10, 120, 200))
    sideways.paste((250, 250, 0), (0, 0, 300, 300))  # a mark in the sensor's top-left corner
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "Camera maker"
    kept = fitting.prepare_photo(encoded(sideways, "JPEG", exif=exif, quality=90))
    with Image.open(io.BytesIO(kept)) as image:
        assert image.format == "JPEG"
        assert image.size == (683, 1024)  # upright: taller than wide, long side 1024
        assert not image.getexif()
        # Rotated 90 degrees clockwise, the sensor's top-left corner is now at the top right.
        assert image.convert("RGB").getpixel((image.width - 10, 10))[2] < 100


def test_an_iphone_heic_photo_is_kept_upright_as_a_small_jpeg_without_metadata() -> None:
    sideways = Image.new("RGB", (1500, 1000), (10, 120, 200))
    sideways.paste((250, 250, 0), (0, 0, 300, 300))  # a mark in the sensor's top-left corner
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "Camera maker"
    # pillow-heif turns the orientation into the file's own rotation (`irot`), as an iPhone stores it.
    kept = fitting.prepare_photo(encoded(sideways, "HEIF", exif=exif.tobytes(), quality=80))
    with Image.open(io.BytesIO(kept)) as image:
        assert image.format == "JPEG"
        assert image.size == (683, 1024)
        assert not image.getexif()
        assert image.convert("RGB").getpixel((image.width - 10, 10))[2] < 100


def test_a_small_photo_keeps_its_size_and_transparency_goes_on_white() -> None:
    clear = Image.new("RGBA", (300, 400), (0, 0, 0, 0))
    with Image.open(io.BytesIO(fitting.prepare_photo(encoded(clear)))) as image:
        assert image.size == (300, 400) and image.convert("RGB").getpixel((5, 5)) == (255, 255, 255)


def test_a_photo_over_10_mb_or_not_an_image_is_refused_with_a_reason() -> None:
    with pytest.raises(InputTooLarge) as too_large:
        fitting.prepare_photo(b"\xff\xd8\xff" + b"\0" * MAX_IMAGE_BYTES)
    assert too_large.value.status_code == 413
    with pytest.raises(UnsupportedImage, match="not an image we can read") as refused:
        fitting.prepare_photo(b"hello, this is text")
    assert PERSON_FIELD in refused.value.field_errors


# ---------------------------------------------------------------- running an engine


class _Engine:
    """An engine following the interface whose outcome the test chooses."""

    def __init__(self, outcome: Exception | None = None) -> None:
        self.outcome = outcome
        self.calls = 0

    def generate(self, person: bytes, garment: bytes) -> bytes:
        self.calls += 1
        person_image, _ = decode_inputs(person, garment)
        if self.outcome is not None:
            raise self.outcome
        return encoded(person_image, "PNG")  # lossless, as the local engine answers


def test_the_result_comes_back_as_a_data_url_of_the_photo_size_as_jpeg_when_opaque() -> None:
    url = fitting.dress_data_urls(_Engine(), data_url(PNG), data_url(PNG))
    assert url.startswith("data:image/jpeg;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as image:
        assert image.size == (40, 30)
        r, g, b = image.convert("RGB").getpixel((20, 15))
    assert abs(r - 200) < 8 and g < 45 and b < 55


def test_a_result_with_transparency_stays_png() -> None:
    clear = encoded(Image.new("RGBA", (40, 30), (200, 30, 40, 100)))
    url = fitting.dress_data_urls(_Engine(), data_url(clear), data_url(PNG))
    assert url.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as image:
        assert image.mode == "RGBA" and image.getpixel((0, 0))[3] == 100


def test_the_photo_problems_reach_the_shopper_as_they_are(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=fitting.__name__), pytest.raises(NoPersonFound):
        fitting.dress(_Engine(NoPersonFound()), PNG, PNG)
    assert fitting.FAILED_TO_PROCESS in caplog.text


def test_an_unexpected_engine_error_is_logged_and_becomes_engine_failed(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.ERROR, logger=fitting.__name__),
        pytest.raises(EngineFailed, match=ENGINE_FAILED) as failed,
    ):
        fitting.dress(_Engine(RuntimeError("model crashed")), PNG, PNG)
    assert failed.value.status_code == 502
    assert fitting.FAILED_TO_PROCESS in caplog.text and "model crashed" in caplog.text


def test_an_item_image_that_is_no_image_is_refused_at_its_field() -> None:
    engine = _Engine()
    with pytest.raises(UnsupportedImage) as refused:
        fitting.dress_data_urls(engine, data_url(PNG), data_url(b"GIF89a-broken", "image/gif"))
    assert GARMENT_FIELD in refused.value.field_errors
