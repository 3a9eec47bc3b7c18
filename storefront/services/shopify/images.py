"""Store-catalogue images as pages draw them. Shopify resizes on request: the client asks for
renditions with `url(transform:)` and they make the srcset (nothing is copied in); a
cdn.shopify.com image without renditions gets its `width` URL parameter; others are drawn as given."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from storefront.services.catalog.catalog import PLACEHOLDER_PICTURE
from storefront.services.media.images import Picture
from storefront.services.shopify.catalogue import StoreImage

#: Widths asked of Shopify's image CDN for a card's srcset.
CDN_WIDTHS = (320, 640, 960)
CDN_HOST = "cdn.shopify.com"
#: Drawn size when the store gives none (the placeholder is 800 x 800).
DEFAULT_IMAGE_SIZE = 800


def with_width(src: str, width: int) -> str:
    """A cdn.shopify.com image address asking for `width` pixels (other parameters kept)."""
    parts = urlsplit(src)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "width"]
    query.append(("width", str(width)))
    return urlunsplit(parts._replace(query=urlencode(query)))


def is_cdn_image(src: str) -> bool:
    try:
        return (urlsplit(src).hostname or "").lower() == CDN_HOST
    except ValueError:
        return False


def store_picture(image: StoreImage | None) -> Picture:
    """A product image as pages draw it: the placeholder when there is none; for Shopify's CDN,
    renditions at 320/640/960 px (no wider than the source when its width is known)."""
    if image is None or not image.src:
        return PLACEHOLDER_PICTURE
    width, height = (image.width, image.height) if image.width > 0 and image.height > 0 else (0, 0)
    width, height = width or DEFAULT_IMAGE_SIZE, height or DEFAULT_IMAGE_SIZE
    if image.renditions:
        usable = [(w, url) for w, url in image.renditions if not image.width or w <= image.width] or [
            image.renditions[0]
        ]
        srcset = ", ".join(f"{url} {w}w" for w, url in usable)
        return Picture(src=usable[min(1, len(usable) - 1)][1], srcset=srcset, width=width, height=height)
    if not is_cdn_image(image.src):
        return Picture(src=image.src, srcset="", width=width, height=height)
    widths = [w for w in CDN_WIDTHS if not image.width or w <= image.width] or [CDN_WIDTHS[0]]
    srcset = ", ".join(f"{with_width(image.src, w)} {w}w" for w in widths)
    return Picture(
        src=with_width(image.src, widths[min(1, len(widths) - 1)]), srcset=srcset, width=width, height=height
    )
