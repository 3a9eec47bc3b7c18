"""Image uploads (event photos, try-on photos): checked by content, re-encoded, stored whole or not at all.

JPEG, PNG, GIF, WebP and HEIC/HEIF (iPhone photos) are read (`services/media/images.py`).

Every file of a request is checked before any is written, so a refused upload stores nothing. A
stored file is the decoded image written again as WebP (no EXIF, GPS or other metadata survives)
under a random name in `UPLOAD_DIR/<folder>/`, and its sized renditions go to the media folder
like every catalogue image (`services/media/images.py`), remembered in `image_source` under the
upload's URL so pages can send a `srcset` for it.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PIL import Image
from sqlmodel import Session

from storefront.models import ImageSource, utcnow
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import (
    ImageRejected,
    PreparedImage,
    digest_of,
    fit_webp,
    open_image,
    rendition_name,
    rendition_widths,
    write_renditions,
    write_webp,
)
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.rate_limit import RateLimiter

MAX_FILES_PER_REQUEST = 10
UPLOADS_URL = "/uploads"
#: The kinds of upload a handler of the pages takes: the upload gate (api/body_limit.py) caps and
#: counts each kind, and state/upload_handlers.py says which handler takes which.
PHOTO_UPLOAD = "photo"
IMAGES_UPLOAD = "images"
TOO_MANY_FILES = f"You can upload at most {MAX_FILES_PER_REQUEST} images at a time."
NO_FILES = "Choose at least one image to upload."
#: Photo-picker uploads (up to 10 images each) per client address and minute, counted before the
#: body is read: the picker is staff's, but anyone may name its handler to Reflex's /_upload.
IMAGE_UPLOADS_PER_MINUTE = 20
TOO_MANY_UPLOADS = "Too many uploads from your address. Please wait a minute and try again."
UPLOAD_KEY_PREFIX = "upload:"


def upload_limiter(session_factory: Callable[[], Session], clock: Callable[[], datetime] = utcnow) -> RateLimiter:
    """Photo-picker uploads per client address and minute."""
    return RateLimiter(
        session_factory, limit=IMAGE_UPLOADS_PER_MINUTE, window_seconds=60, message=TOO_MANY_UPLOADS, clock=clock
    )


def upload_key(client_address: str) -> str:
    """The counter key of one client address's photo-picker uploads."""
    return f"{UPLOAD_KEY_PREFIX}{client_address or 'unknown'}"


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """A file as it arrived: its name (for messages only) and its bytes."""

    filename: str
    data: bytes


@dataclass(frozen=True, slots=True)
class StoredImage:
    """An upload as stored: its URL and its renditions."""

    url: str
    prepared: PreparedImage


def _named(filename: str, message: str) -> str:
    return f"{filename}: {message}" if filename else message


def decode_upload(file: UploadedFile, *, fit: int | None = None, max_decode_bytes: int | None = None) -> Image.Image:
    """The file decoded (a HEIC photo like any other), or ValidationError naming it and saying why
    it is refused; `fit` and `max_decode_bytes` as for `open_image`."""
    try:
        return open_image(file.data, fit=fit, max_decode_bytes=max_decode_bytes)
    except ImageRejected as rejected:
        message = _named(file.filename, str(rejected))
        raise ValidationError(message, {"images": message}) from None


def check_uploads(files: Sequence[UploadedFile]) -> None:
    """ValidationError naming the first file refused and why; nothing when every file is good.

    Each file is decoded and let go in turn, so a request holds one decoded image at a time."""
    if not files:
        raise ValidationError(NO_FILES, {"images": NO_FILES})
    if len(files) > MAX_FILES_PER_REQUEST:
        raise ValidationError(TOO_MANY_FILES, {"images": TOO_MANY_FILES})
    for file in files:
        decode_upload(file)


def store_uploads(
    session: Session, files: Sequence[UploadedFile], upload_dir: Path, media_dir: Path, folder: str
) -> list[StoredImage]:
    """Check every file, then store each re-encoded with its renditions; the caller commits.

    Nothing is written when any file is refused; the files (and new renditions) written before a
    later step fails are removed again."""
    check_uploads(files)
    directory = upload_dir / folder
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    stored: list[StoredImage] = []
    try:
        for file in files:
            image = fit_webp(decode_upload(file))  # stored as WebP, whose sides stop at 16,383 px
            name = f"{secrets.token_urlsafe(18)}.webp"
            path = directory / name
            write_webp(path, image)
            written.append(path)
            digest = digest_of(path.read_bytes())
            renditions = [media_dir / rendition_name(digest, w) for w in rendition_widths(image.width)]
            written += [r for r in renditions if not r.exists()]  # those seen before stay either way
            write_renditions(image, media_dir, functools.partial(rendition_name, digest))
            prepared = PreparedImage(digest=digest, width=image.width, height=image.height)
            url = f"{UPLOADS_URL}/{folder}/{name}"
            session.add(
                ImageSource(
                    src_key=src_key(url), src=url, digest=digest, width=image.width, height=image.height,
                    prepared_at=utcnow(),
                )
            )
            stored.append(StoredImage(url=url, prepared=prepared))
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return stored
