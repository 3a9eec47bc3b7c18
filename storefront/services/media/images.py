"""Image checks and sized WebP renditions, written once under content-hashed names.

Every picture a shopper sees is a rendition made here: the source is checked by its content (not
its name or type header), decoded once, and written as WebP at each width of `RENDITION_WIDTHS`
up to its own width. A rendition's name holds the source's digest, so its URL never changes
meaning and can be cached by browsers for a year. HEIC/HEIF files (iPhone photos) decode like JPEG:
pillow-heif's opener is registered here, where every image that comes in is decoded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
import re
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pillow_heif
from PIL import Image, ImageOps, UnidentifiedImageError

from storefront.services.platform.errors import ValidationError

#: Widths a picture is rendered at (never wider than its source): a card is about 300 CSS px
#: wide, the product page about 600, and phones draw them at 2-3 device pixels per CSS pixel.
RENDITION_WIDTHS: tuple[int, ...] = (320, 640, 960, 1280)
#: The width a browser without srcset support loads, and the URL kept with a cart line.
DEFAULT_WIDTH = 640
#: Renditions are served from here (see api/app.py), with a year-long immutable cache lifetime.
MEDIA_URL = "/media"
MAX_IMAGE_BYTES = 10 * 1024 * 1024
#: Larger images are refused before decoding (a small file can declare a huge canvas).
MAX_IMAGE_PIXELS = 40_000_000
#: "HEIF" is pillow-heif's name for HEIC and HEIF files, which it recognises by the brand in their
#: `ftyp` box (heic, heix, heim, heis, hevc, mif1, msf1 and the like), never by a file name.
ACCEPTED_FORMATS = frozenset({"JPEG", "PNG", "GIF", "WEBP", "MPO", "HEIF"})
WEBP_QUALITY = 80
#: WebP's largest width or height: a larger image is shrunk to fit before it is written.
WEBP_MAX_SIDE = 16383
#: Digest characters kept in a file name: 96 bits, far beyond any collision a shop could meet.
DIGEST_LENGTH = 24
CUTOUT_SUFFIX = ".cutout.png"

# Only the primary picture of a HEIF file is ever shown: its thumbnails, depth maps and auxiliary
# images are not read at all (less to parse in a file from a stranger).
pillow_heif.register_heif_opener(thumbnails=False, depth_images=False, aux_images=False)

IMAGE_UNREADABLE = "The file is not an image we can read. Use a JPEG, PNG, GIF, WebP or HEIC image."
IMAGE_TOO_LARGE = "The image is larger than 10 MB."
IMAGE_TOO_MANY_PIXELS = "The image is too large: it may have at most 40 million pixels."
IMAGE_EMPTY = "The image file is empty."
IMAGE_TOO_COSTLY = "The image has too many pixels to work on. Use a smaller one (a JPEG of any size is fine)."

#: Bytes a decode holds at its peak for each pixel of the image: Pillow keeps 4 for a colour pixel;
#: libwebp and libheif also hold their own decoded copies until Pillow has its (measured in
#: tests/unit/tryon/test_image_memory.py).
DECODE_BYTES_PER_PIXEL: dict[str, int] = {"WEBP": 16, "HEIF": 10}
#: Added for a pixel not decoded as RGB(A) (palette, grey, CMYK): the conversion's own copy.
CONVERSION_BYTES_PER_PIXEL = 4
#: The modes Image.reduce works on directly; others are converted first.
_REDUCIBLE_MODES = frozenset({"L", "LA", "RGB", "RGBA"})


class ImageRejected(ValidationError):
    """The bytes are not an image this store accepts; the message says why, for people."""

    def __init__(self, message: str) -> None:
        super().__init__(message, {"image": message})


@dataclass(frozen=True, slots=True)
class PreparedImage:
    """A source image turned into renditions: its digest and its own size in pixels."""

    digest: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Picture:
    """What an <img> needs: a default src, the srcset of every rendition and the intrinsic size."""

    src: str
    srcset: str
    width: int
    height: int


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DIGEST_LENGTH]


def rendition_widths(source_width: int) -> tuple[int, ...]:
    """The widths rendered for a source this wide: each standard width below it, and its own
    width when it is narrower than the largest (so the sharpest rendition is the source's)."""
    widths = tuple(w for w in RENDITION_WIDTHS if w < source_width)
    return (*widths, source_width) if source_width <= RENDITION_WIDTHS[-1] else widths


def rendition_name(digest: str, width: int) -> str:
    return f"{digest}-{width}.webp"


def cutout_path(picture: Path) -> Path:
    """Where a transparent cut-out of the garment in a catalogue picture is kept beside it, when it
    has one (the demo catalogue draws one for every front mockup; the try-on uses it as it is)."""
    return picture.with_name(picture.stem + CUTOUT_SUFFIX)


def rendition_url(digest: str, width: int) -> str:
    return f"{MEDIA_URL}/{rendition_name(digest, width)}"


_RENDITION_URL = re.compile(rf"^{re.escape(MEDIA_URL)}/(?P<digest>[0-9a-f]+)-(?P<width>[0-9]+)\.webp$")


def smallest_rendition(url: str) -> str:
    """The smallest rendition of the picture `url` is a rendition of (what a thumbnail loads);
    `url` itself when it is none. Renditions stop only at the source's own width, so one at a width
    means every standard width below it was rendered too."""
    match = _RENDITION_URL.match(url)
    if match is None:
        return url
    return rendition_url(match["digest"], min(int(match["width"]), RENDITION_WIDTHS[0]))


def picture(prepared: PreparedImage) -> Picture:
    """The <img> attributes of a prepared image."""
    return picture_at(lambda width: rendition_url(prepared.digest, width), prepared.width, prepared.height)


def picture_at(url: Callable[[int], str], width: int, height: int) -> Picture:
    """The <img> attributes of renditions at `url(width)` of a source this large (the default src
    is the 640 px rendition, or the widest one below it)."""
    widths = rendition_widths(width)
    default = max((w for w in widths if w <= DEFAULT_WIDTH), default=widths[0])
    return Picture(
        src=url(default),
        srcset=", ".join(f"{url(w)} {w}w" for w in widths),
        width=width,
        height=height,
    )


def decode_cost(image: Image.Image) -> int:
    """The bytes decoding this opened (not yet loaded) image holds at its peak."""
    per_pixel = DECODE_BYTES_PER_PIXEL.get(image.format or "", 4)
    if image.mode not in ("RGB", "RGBA"):
        per_pixel += CONVERSION_BYTES_PER_PIXEL
    return image.width * image.height * per_pixel


def _draft(image: Image.Image, fit: int) -> None:
    """A JPEG is decoded at 1/2, 1/4 or 1/8 of its size when that still leaves at least half of
    `fit` on its long side (libjpeg scales while decoding, so the whole is never held)."""
    if image.format not in ("JPEG", "MPO") or max(image.size) <= fit:
        return
    scale = fit / 2 / max(image.size)
    image.draft(None, (max(1, math.ceil(image.width * scale)), max(1, math.ceil(image.height * scale))))


def _reduced(image: Image.Image, mode: str, fit: int) -> Image.Image:
    """At most `fit` pixels on the long side, by a whole factor (box average): the reduced copy is
    a quarter of the decoded one or less, and nothing else is allocated."""
    factor = math.ceil(max(image.size) / fit)
    if factor < 2:
        return image
    if image.mode not in _REDUCIBLE_MODES:
        image = image.convert(mode)
    return image.reduce(factor)


def open_image(data: bytes, *, fit: int | None = None, max_decode_bytes: int | None = None) -> Image.Image:
    """The decoded image, upright and in RGB(A); ImageRejected with a reason when it is not one.

    With `fit`, the image comes back at most `fit` pixels on its long side (and at least half of
    that when it was larger), made small while or right after decoding, before any copy; with
    `max_decode_bytes`, an image whose decode would hold more (`decode_cost`) is refused first."""
    if not data:
        raise ImageRejected(IMAGE_EMPTY)
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRejected(IMAGE_TOO_LARGE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
            if image.format not in ACCEPTED_FORMATS:
                raise ImageRejected(IMAGE_UNREADABLE)
            if image.width * image.height > MAX_IMAGE_PIXELS:
                raise ImageRejected(IMAGE_TOO_MANY_PIXELS)
            if fit is not None:
                _draft(image, fit)
            if max_decode_bytes is not None and decode_cost(image) > max_decode_bytes:
                raise ImageRejected(IMAGE_TOO_COSTLY)
            image.load()
    except ImageRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRejected(IMAGE_TOO_MANY_PIXELS) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError, RuntimeError):
        # RuntimeError: Pillow's AVIF reader opens any file with an `avif` brand and raises it
        # when the rest is not AVIF.
        raise ImageRejected(IMAGE_UNREADABLE) from None
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    mode = "RGBA" if has_alpha else "RGB"
    if fit is not None:
        image = _reduced(image, mode, fit)  # before turning and converting, which copy
    ImageOps.exif_transpose(image, in_place=True)  # phone photos carry their rotation in EXIF
    return image if image.mode == mode else image.convert(mode)


def fit_webp(image: Image.Image) -> Image.Image:
    """The image, shrunk (keeping its proportions) when a side is longer than WebP allows."""
    if max(image.size) <= WEBP_MAX_SIDE:
        return image
    scale = WEBP_MAX_SIDE / max(image.size)
    size = (
        min(WEBP_MAX_SIDE, max(1, round(image.width * scale))),
        min(WEBP_MAX_SIDE, max(1, round(image.height * scale))),
    )
    return image.resize(size, Image.Resampling.LANCZOS)


def write_webp(path: Path, image: Image.Image) -> None:
    """Save as WebP under a temporary name, then rename: a reader never sees half a file."""
    image = fit_webp(image)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            image.save(handle, format="WEBP", quality=WEBP_QUALITY, method=4)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def prepare_image(data: bytes, media_dir: Path) -> PreparedImage:
    """Check the bytes and write every missing rendition into `media_dir`; ImageRejected if bad.

    Renditions already on disk (the same content seen before) are not written again."""
    digest = digest_of(data)
    image = open_image(data)
    write_renditions(image, media_dir, lambda width: rendition_name(digest, width))
    return PreparedImage(digest=digest, width=image.width, height=image.height)


def write_renditions(
    image: Image.Image, directory: Path, name: Callable[[int], str], *, replace: bool = False
) -> tuple[int, ...]:
    """Write the image at each rendition width as `directory / name(width)`; returns the widths.

    Files already there are kept unless `replace` (their names say their content)."""
    directory.mkdir(parents=True, exist_ok=True)
    widths = rendition_widths(image.width)
    for width in widths:
        path = directory / name(width)
        if path.exists() and not replace:
            continue
        height = max(1, round(image.height * width / image.width))
        sized = image if width == image.width else image.resize((width, height), Image.Resampling.LANCZOS)
        write_webp(path, sized)
    return widths


def renditions_exist(prepared: PreparedImage, media_dir: Path) -> bool:
    return all((media_dir / rendition_name(prepared.digest, w)).is_file() for w in rendition_widths(prepared.width))
