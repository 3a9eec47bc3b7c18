"""Demo data: generated images and the first copy of the catalogue in an empty database."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PIL import Image
from sqlmodel import Session

from storefront.config import Settings
from storefront.services.catalog.sync import catalogue_is_empty, sync_catalogue
from storefront.services.collections import COLLECTIONS, SWDNN
from storefront.services.media.demo_images import ensure_png, render_collection_tile
from storefront.services.media.images import Picture, picture_at, write_renditions
from storefront.services.printify.provider import PrintProvider

#: Generated tiles keep their names when redrawn, so they are served from /uploads (an hour's cache).
TILES_URL = "/uploads/collections"
TILE_SIZE = (800, 600)
#: The hero shows the main collection's garments without the tile's title banner.
HERO_CROP = (0, 0, 800, 460)
HERO_NAME = "hero"


def _tile_file(name: str, width: int) -> str:
    return f"{name}-{width}.webp"


def tile_picture(name: str, size: tuple[int, int] = TILE_SIZE) -> Picture:
    """The renditions of a generated tile ('hero' or a collection key)."""
    return picture_at(lambda width: f"{TILES_URL}/{_tile_file(name, width)}", *size)


def collection_tile_picture(key: str) -> Picture:
    return tile_picture(key)


#: The hero is a full-width backdrop: its widest rendition.
HERO_IMAGE_URL = f"{TILES_URL}/{_tile_file(HERO_NAME, HERO_CROP[2] - HERO_CROP[0])}"


def _ensure_tile(directory: Path, name: str, render: Callable[[], Image.Image]) -> int:
    """Draw a tile (PNG source) unless it exists, and its WebP renditions when any is missing."""
    written = int(ensure_png(directory / f"{name}.png", render))
    with Image.open(directory / f"{name}.png") as source:
        image = source.convert("RGB")
    write_renditions(image, directory, lambda width: _tile_file(name, width), replace=bool(written))
    return written


def prepare_media(settings: Settings, provider: PrintProvider) -> int:
    """Render whatever generated image is missing (collection tiles, demo mockups)."""
    written = 0
    tiles = settings.upload_dir / "collections"
    for collection in COLLECTIONS:
        written += _ensure_tile(tiles, collection.key, functools.partial(render_collection_tile, collection, TILE_SIZE))
    written += _ensure_tile(tiles, HERO_NAME, lambda: render_collection_tile(SWDNN, TILE_SIZE).crop(HERO_CROP))
    ensure_images = getattr(provider, "ensure_images", None)
    if callable(ensure_images):
        written += ensure_images()
    return written


def seed_catalogue_if_empty(session: Session, provider: PrintProvider) -> int:
    """Copy every shop of the provider into an empty catalogue cache; returns products copied."""
    if not catalogue_is_empty(session):
        return 0
    count = 0
    for shop in provider.list_shops():
        count += sync_catalogue(session, provider, int(shop["id"]))
    return count
