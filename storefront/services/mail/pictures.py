"""Pictures in emails: JPEG copies of the WebP renditions, which Outlook on the desktop does not show.

A rendition's JPEG copy sits beside it in the media folder, named after it (`<digest>-128.jpg`), so
it is written once and served like every rendition, with a year-long cache lifetime."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from PIL import Image

from storefront.services.media.images import MEDIA_URL

log = logging.getLogger(__name__)

#: Emails show a line's picture at 64 CSS px: twice that for sharp screens.
EMAIL_WIDTH = 128
JPEG_QUALITY = 85
#: Formats every mail program shows.
EMAIL_SAFE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif")
_RENDITION = re.compile(rf"^{re.escape(MEDIA_URL)}/(?P<digest>[0-9a-f]+)-(?P<width>\d+)\.webp$")


def email_picture_name(digest: str) -> str:
    return f"{digest}-{EMAIL_WIDTH}.jpg"


def email_picture(url: str, media_dir: Path) -> str:
    """The address of a JPEG or PNG picture for an image address: a rendition's JPEG copy (written
    now if missing), a JPEG/PNG/GIF address as it is, '' when there is none to show."""
    path = url.split("?", 1)[0]
    if path.lower().endswith(EMAIL_SAFE_SUFFIXES):
        return url
    match = _RENDITION.match(path)
    if match is None:
        return ""
    target = media_dir / email_picture_name(match["digest"])
    if not target.is_file():
        source = media_dir / f"{match['digest']}-{match['width']}.webp"
        try:
            _write_jpeg(source, target)
        except (OSError, ValueError):
            log.warning("No email picture from %s", source, exc_info=True)
            return ""
    return f"{MEDIA_URL}/{target.name}"


def _write_jpeg(source: Path, target: Path) -> None:
    with Image.open(source) as image:
        image.load()
        picture = image.convert("RGBA")
    if picture.width > EMAIL_WIDTH:
        height = max(1, round(picture.height * EMAIL_WIDTH / picture.width))
        picture = picture.resize((EMAIL_WIDTH, height), Image.Resampling.LANCZOS)
    flat = Image.new("RGB", picture.size, (255, 255, 255))  # JPEG has no transparency: on white
    flat.paste(picture, mask=picture.getchannel("A"))
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    flat.save(temporary, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    temporary.replace(target)  # whole or absent: a concurrent reader never sees half a file
