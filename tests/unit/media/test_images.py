"""Image checks and renditions: sized WebP files under content-hashed names, bad images refused."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from storefront.services.media import images
from storefront.services.media.images import ImageRejected, picture, prepare_image, rendition_widths


def encoded(size: tuple[int, int], fmt: str = "PNG", colour: str = "crimson", **save_args: object) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format=fmt, **save_args)
    return buffer.getvalue()


def _with_brand(data: bytes, brand: bytes) -> bytes:
    """The same file with another major brand in its `ftyp` box."""
    return data[:8] + brand + data[12:]


def test_every_rendition_width_up_to_the_source_is_written_as_webp(tmp_path: Path) -> None:
    prepared = prepare_image(encoded((800, 600)), tmp_path)
    assert (prepared.width, prepared.height) == (800, 600)
    written = sorted(tmp_path.iterdir())
    assert [p.name for p in written] == sorted(f"{prepared.digest}-{w}.webp" for w in (320, 640, 800))
    for path in written:
        with Image.open(path) as rendition:
            width = int(path.stem.rsplit("-", 1)[1])
            assert rendition.format == "WEBP"
            assert rendition.size == (width, round(600 * width / 800))


def test_a_large_source_stops_at_the_widest_rendition_and_a_small_one_is_not_enlarged() -> None:
    assert rendition_widths(4000) == (320, 640, 960, 1280)
    assert rendition_widths(1280) == (320, 640, 960, 1280)
    assert rendition_widths(700) == (320, 640, 700)
    assert rendition_widths(200) == (200,)


def test_the_name_follows_the_content_and_a_second_preparation_writes_nothing(tmp_path: Path) -> None:
    first = prepare_image(encoded((400, 400)), tmp_path)
    stamps = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    again = prepare_image(encoded((400, 400)), tmp_path)
    other = prepare_image(encoded((400, 400), colour="navy"), tmp_path)
    assert again == first
    assert other.digest != first.digest
    assert all(tmp_path.joinpath(name).stat().st_mtime_ns == stamp for name, stamp in stamps.items())


def test_a_picture_offers_every_rendition_and_defaults_to_the_640_one() -> None:
    shown = picture(images.PreparedImage(digest="abc", width=1000, height=1000))
    assert shown.src == "/media/abc-640.webp"
    assert (
        shown.srcset
        == "/media/abc-320.webp 320w, /media/abc-640.webp 640w, /media/abc-960.webp 960w, /media/abc-1000.webp 1000w"
    )
    assert (shown.width, shown.height) == (1000, 1000)
    assert picture(images.PreparedImage(digest="s", width=300, height=200)).src == "/media/s-300.webp"


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "GIF", "WEBP", "HEIF"])
def test_the_common_formats_are_accepted(fmt: str, tmp_path: Path) -> None:
    assert prepare_image(encoded((64, 48), fmt), tmp_path).width == 64


def test_transparency_is_kept(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.new("RGBA", (100, 100), (255, 0, 0, 0)).save(buffer, format="PNG")
    prepared = prepare_image(buffer.getvalue(), tmp_path)
    with Image.open(tmp_path / f"{prepared.digest}-100.webp") as rendition:
        assert rendition.mode == "RGBA"
        assert rendition.getpixel((5, 5))[3] == 0


def test_a_phone_photo_is_turned_upright_by_its_exif_orientation(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    prepared = prepare_image(encoded((300, 100), "JPEG", exif=exif), tmp_path)
    assert (prepared.width, prepared.height) == (100, 300)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", images.IMAGE_EMPTY),
        (b"<html>not an image</html>", images.IMAGE_UNREADABLE),
        (b'{"data": [{"id": "truncated"', images.IMAGE_UNREADABLE),
        (encoded((200, 200))[:60], images.IMAGE_UNREADABLE),
        (encoded((64, 64), "BMP"), images.IMAGE_UNREADABLE),
        (encoded((64, 64), "AVIF"), images.IMAGE_UNREADABLE),
        (_with_brand(encoded((64, 64), "HEIF"), b"avif"), images.IMAGE_UNREADABLE),
    ],
    ids=["empty", "html", "truncated-json", "truncated-png", "bmp", "avif", "heic-branded-avif"],
)
def test_a_bad_image_is_refused_with_a_clear_message(data: bytes, message: str, tmp_path: Path) -> None:
    with pytest.raises(ImageRejected) as refused:
        prepare_image(data, tmp_path)
    assert refused.value.message == message
    assert refused.value.field_errors == {"image": message}
    assert list(tmp_path.iterdir()) == []


def test_an_image_over_10_mb_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    with pytest.raises(ImageRejected, match="larger than 10 MB"):
        prepare_image(b"\x89PNG" + b"\0" * images.MAX_IMAGE_BYTES, tmp_path)


def test_a_small_file_declaring_a_huge_canvas_is_refused(tmp_path: Path) -> None:
    bomb = encoded((10_000, 5_000), "PNG", colour="white")  # 50 million pixels in a few kilobytes
    assert len(bomb) < 1_000_000
    with pytest.raises(ImageRejected) as refused:
        prepare_image(bomb, tmp_path)
    assert refused.value.message == images.IMAGE_TOO_MANY_PIXELS


def test_a_source_taller_than_webp_allows_still_gets_its_renditions(tmp_path: Path) -> None:
    prepared = prepare_image(encoded((700, 17_000)), tmp_path)  # 640 wide is 15,543 tall; 700 is 17,000
    for width in rendition_widths(700):
        with Image.open(tmp_path / images.rendition_name(prepared.digest, width)) as rendition:
            assert rendition.format == "WEBP" and max(rendition.size) <= images.WEBP_MAX_SIDE


@pytest.mark.parametrize("source_width", [200, 320, 500, 800, 3000])
def test_a_thumbnail_loads_the_smallest_rendition_of_a_picture(tmp_path: Path, source_width: int) -> None:
    prepared = prepare_image(encoded((source_width, 100)), tmp_path)
    smallest = images.smallest_rendition(picture(prepared).src)
    assert smallest == images.rendition_url(prepared.digest, min(rendition_widths(source_width)))
    assert (tmp_path / smallest.rsplit("/", 1)[1]).is_file()


def test_an_address_that_is_no_rendition_is_its_own_thumbnail() -> None:
    assert images.smallest_rendition("/images/product-placeholder.jpg") == "/images/product-placeholder.jpg"
    assert images.smallest_rendition("https://cdn.example/a-640.webp") == "https://cdn.example/a-640.webp"
