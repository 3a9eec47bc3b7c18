"""Demo data: generated images and the first copy of the catalogue in an empty database."""

from __future__ import annotations

from sqlmodel import Session

from storefront.collections import COLLECTIONS, SWDNN
from storefront.config import Settings
from storefront.services.catalog_sync import catalogue_is_empty, sync_catalogue
from storefront.services.demo_images import ensure_png, render_collection_tile
from storefront.services.printify.provider import PrintProvider

COLLECTION_TILE_URL = "/uploads/collections/{key}.png"
HERO_IMAGE_URL = "/uploads/collections/hero.png"
#: The hero shows the main collection's garments without the tile's title banner.
HERO_CROP = (0, 0, 800, 460)


def collection_tile_url(key: str) -> str:
    return COLLECTION_TILE_URL.format(key=key)


def prepare_media(settings: Settings, provider: PrintProvider) -> int:
    """Render whatever generated image is missing (collection tiles, demo mockups)."""
    written = 0
    tiles = settings.upload_dir / "collections"
    for collection in COLLECTIONS:
        written += ensure_png(
            tiles / f"{collection.key}.png", lambda c=collection: render_collection_tile(c)
        )
    written += ensure_png(tiles / "hero.png", lambda: render_collection_tile(SWDNN).crop(HERO_CROP))
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
