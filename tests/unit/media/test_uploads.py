"""Image uploads: checked by content, re-encoded as WebP without metadata, stored whole or not at all
(on SQLite and PostgreSQL where the database is involved)."""

from __future__ import annotations

import io
import re
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from storefront.models import ImageSource
from storefront.services.media import uploads
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import (
    IMAGE_EMPTY,
    IMAGE_TOO_LARGE,
    IMAGE_TOO_MANY_PIXELS,
    IMAGE_UNREADABLE,
    MAX_IMAGE_BYTES,
    rendition_name,
)
from storefront.services.media.uploads import (
    MAX_FILES_PER_REQUEST,
    NO_FILES,
    TOO_MANY_FILES,
    UploadedFile,
    check_uploads,
    decode_upload,
    store_uploads,
)
from storefront.services.platform.errors import ValidationError

EXIF_MAKE, EXIF_ARTIST, EXIF_ORIENTATION = 0x010F, 0x013B, 0x0112


def encoded(size: tuple[int, int] = (64, 48), fmt: str = "PNG", colour: str = "crimson", **save_args: object) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format=fmt, **save_args)
    return buffer.getvalue()


def jpeg_with_exif(size: tuple[int, int] = (60, 40), orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[EXIF_MAKE] = "SecretCam"
    exif[EXIF_ARTIST] = "Jane Shopper"
    exif[EXIF_ORIENTATION] = orientation
    return encoded(size, "JPEG", exif=exif.tobytes())


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims a huge canvas (its pixel data is not there)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


def one_bit_png(width: int, height: int) -> bytes:
    """A real, complete 1-bit PNG: millions of pixels in a few kilobytes."""
    buffer = io.BytesIO()
    Image.new("1", (width, height), 0).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def heic(size: tuple[int, int] = (60, 40), orientation: int = 1, colour: str = "crimson") -> bytes:
    """An iPhone-style HEIC photo (HEVC in a HEIF box, brand `heic`) with camera EXIF, made with pillow-heif."""
    exif = Image.Exif()
    exif[EXIF_MAKE] = "SecretCam"
    exif[EXIF_ORIENTATION] = orientation
    return encoded(size, "HEIF", colour, exif=exif.tobytes())


def heic_claiming(width: int, height: int) -> bytes:
    """A real 64 x 64 HEIC whose `ispe` box claims a larger canvas (the pixels are not there)."""
    data = encoded((64, 64), "HEIF")
    at = data.index(b"ispe") + 8  # after the box type, version and flags
    return data[:at] + struct.pack(">II", width, height) + data[at + 8 :]


def with_brand(data: bytes, brand: bytes) -> bytes:
    """The same file with another major brand in its `ftyp` box."""
    assert data[4:8] == b"ftyp"
    return data[:8] + brand + data[12:]


def refused(files: list[UploadedFile]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        check_uploads(files)
    return caught.value


def stored_files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file())


# --------------------------------------------------------------------------- checks (no database)


def test_jpeg_png_gif_and_webp_are_accepted() -> None:
    files = [UploadedFile(f"a.{fmt.lower()}", encoded(fmt=fmt)) for fmt in ("JPEG", "PNG", "GIF", "WEBP")]
    check_uploads(files)
    assert [decode_upload(file).size for file in files] == [(64, 48)] * 4


def test_a_text_file_named_jpg_is_refused_by_its_content() -> None:
    error = refused([UploadedFile("holiday.jpg", b"just some text, not a picture\n")])
    assert error.message == f"holiday.jpg: {IMAGE_UNREADABLE}"
    assert error.field_errors == {"images": f"holiday.jpg: {IMAGE_UNREADABLE}"}


def test_a_file_over_10_mb_is_refused() -> None:
    error = refused([UploadedFile("big.png", encoded()[:16] + b"\x00" * MAX_IMAGE_BYTES)])
    assert error.message == f"big.png: {IMAGE_TOO_LARGE}"


def test_an_empty_file_is_refused() -> None:
    assert refused([UploadedFile("empty.png", b"")]).message == f"empty.png: {IMAGE_EMPTY}"


def test_a_png_claiming_20000_by_20000_pixels_is_refused_before_decoding() -> None:
    assert (
        refused([UploadedFile("bomb.png", png_claiming(20000, 20000))]).message == f"bomb.png: {IMAGE_TOO_MANY_PIXELS}"
    )


def test_a_tiny_8000_by_8000_image_is_refused_for_its_pixels_not_its_bytes() -> None:
    data = one_bit_png(8000, 8000)
    assert len(data) < 100_000  # 64 million pixels, yet small enough to pass the byte limit
    assert refused([UploadedFile("flat.png", data)]).message == f"flat.png: {IMAGE_TOO_MANY_PIXELS}"


def test_an_iphone_heic_photo_is_accepted() -> None:
    photo = UploadedFile("IMG_0001.HEIC", heic())
    check_uploads([photo])
    assert decode_upload(photo).size == (60, 40)


@pytest.mark.parametrize("brand", [b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1"])
def test_a_heif_file_is_recognised_by_its_ftyp_brand_not_its_name(brand: bytes) -> None:
    assert decode_upload(UploadedFile("photo.jpg", with_brand(heic(), brand))).size == (60, 40)


def test_a_text_file_named_heic_is_refused_by_its_content() -> None:
    error = refused([UploadedFile("IMG_0001.HEIC", b"just some text, not a picture\n")])
    assert error.message == f"IMG_0001.HEIC: {IMAGE_UNREADABLE}"


def test_a_heic_whose_picture_data_is_cut_short_is_refused() -> None:
    data = heic((128, 96))
    assert refused([UploadedFile("cut.heic", data[:-40])]).message == f"cut.heic: {IMAGE_UNREADABLE}"


@pytest.mark.parametrize(("width", "height"), [(8000, 8000), (20000, 20000)], ids=["over-our-cap", "over-pillows-cap"])
def test_a_heic_claiming_too_many_pixels_is_refused_before_decoding(width: int, height: int) -> None:
    error = refused([UploadedFile("bomb.heic", heic_claiming(width, height))])
    assert error.message == f"bomb.heic: {IMAGE_TOO_MANY_PIXELS}"


def test_more_than_ten_files_are_refused_and_ten_are_not() -> None:
    files = [UploadedFile(f"{n}.png", encoded()) for n in range(MAX_FILES_PER_REQUEST)]
    check_uploads(files)  # ten pass
    error = refused([*files, UploadedFile("11.png", encoded())])
    assert error.message == TOO_MANY_FILES
    assert error.field_errors == {"images": TOO_MANY_FILES}


def test_no_file_at_all_is_refused() -> None:
    assert refused([]).field_errors == {"images": NO_FILES}


def test_one_bad_file_refuses_the_whole_request_naming_it() -> None:
    error = refused([UploadedFile("good.png", encoded()), UploadedFile("notes.gif", b"GIF89a but not really")])
    assert error.message == f"notes.gif: {IMAGE_UNREADABLE}"


# --------------------------------------------------------------------------- storing


def _sources(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(ImageSource)).one()


def test_a_stored_upload_is_webp_without_exif_under_a_random_name(engine: Engine, tmp_path: Path) -> None:
    upload_dir, media_dir = tmp_path / "uploads", tmp_path / "uploads" / "media"
    with Session(engine) as session:
        stored = store_uploads(
            session, [UploadedFile("jane-holiday.jpg", jpeg_with_exif())], upload_dir, media_dir, "events"
        )
        session.commit()
    (image,) = stored
    assert image.url.startswith("/uploads/events/") and image.url.endswith(".webp")
    # The shopper's file name is dropped for 24 random URL-safe characters (a two-letter name
    # like "me" turned up inside the random part by chance once, so the name here is long).
    stem = image.url.rsplit("/", 1)[1].removesuffix(".webp")
    assert re.fullmatch(r"[A-Za-z0-9_-]{24}", stem) and "holiday" not in stem
    path = upload_dir / image.url.removeprefix("/uploads/")
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    assert b"SecretCam" not in data and b"Jane Shopper" not in data and b"EXIF" not in data
    with Image.open(path) as webp:
        assert webp.format == "WEBP"
        assert dict(webp.getexif()) == {}
        assert "exif" not in webp.info
        assert webp.size == (60, 40)
    assert (image.prepared.width, image.prepared.height) == (60, 40)
    assert (media_dir / rendition_name(image.prepared.digest, 60)).is_file()
    with Session(engine) as session:
        row = session.get(ImageSource, src_key(image.url))
    assert row is not None
    assert (row.src, row.digest, row.width, row.height) == (image.url, image.prepared.digest, 60, 40)


def test_a_phone_photo_is_stored_upright(engine: Engine, tmp_path: Path) -> None:
    with Session(engine) as session:
        (image,) = store_uploads(
            session,
            [UploadedFile("side.jpg", jpeg_with_exif((60, 40), orientation=6))],
            tmp_path,
            tmp_path / "media",
            "events",
        )
    assert (image.prepared.width, image.prepared.height) == (40, 60)


def test_a_heic_photo_is_stored_as_upright_webp_without_its_exif(engine: Engine, tmp_path: Path) -> None:
    with Session(engine) as session:
        (image,) = store_uploads(
            session,
            [UploadedFile("IMG_0002.HEIC", heic((60, 40), orientation=6))],
            tmp_path,
            tmp_path / "media",
            "events",
        )
    assert image.url.endswith(".webp")
    data = (tmp_path / image.url.removeprefix("/uploads/")).read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP" and b"SecretCam" not in data
    assert (image.prepared.width, image.prepared.height) == (40, 60)  # turned upright, as a JPEG is
    with Image.open(tmp_path / "media" / rendition_name(image.prepared.digest, 40)) as rendition:
        assert rendition.format == "WEBP" and rendition.size == (40, 60)


def test_two_uploads_of_the_same_photo_get_different_names(engine: Engine, tmp_path: Path) -> None:
    photo = UploadedFile("a.png", encoded())
    with Session(engine) as session:
        first, second = store_uploads(session, [photo, photo], tmp_path, tmp_path / "media", "events")
        session.commit()
    assert first.url != second.url
    assert len(stored_files(tmp_path / "events")) == 2


def test_a_refused_batch_stores_nothing(engine: Engine, tmp_path: Path) -> None:
    files = [UploadedFile("good.png", encoded()), UploadedFile("bad.jpg", b"plain text")]
    with Session(engine) as session:
        with pytest.raises(ValidationError):
            store_uploads(session, files, tmp_path / "uploads", tmp_path / "uploads" / "media", "events")
        session.commit()
    assert stored_files(tmp_path / "uploads") == []
    assert _sources(engine) == 0


def test_files_written_before_a_failure_are_removed(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real_renditions = uploads.write_renditions

    def failing_renditions(*args: object, **kwargs: object) -> tuple[int, ...]:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full")
        return real_renditions(*args, **kwargs)  # the first file's renditions are really written

    monkeypatch.setattr(uploads, "write_renditions", failing_renditions)
    files = [UploadedFile("a.png", encoded(colour="navy")), UploadedFile("b.png", encoded())]
    with Session(engine) as session, pytest.raises(OSError):
        store_uploads(session, files, tmp_path, tmp_path / "media", "events")
    assert len(calls) == 2
    assert stored_files(tmp_path / "events") == []
    assert list((tmp_path / "media").iterdir()) == []
