"""The demo catalogue with its pictures prepared, as the image worker leaves them (for the try-on
tests of the page's items and of `POST /api/try-on` given those items' pictures)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogImage
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.media.image_sources import ImageSourceLoader
from storefront.services.media.images import PreparedImage, prepare_image
from storefront.services.printify.demo import DemoPrintProvider


def draw_demo_pictures(uploads: Path) -> None:
    """The demo provider's mockups and cut-outs drawn into `uploads / "demo"`."""
    DemoPrintProvider(media_dir=uploads / "demo", media_url="/uploads/demo").ensure_images()


def prepare_demo_pictures(uploads: Path, media: Path) -> dict[str, PreparedImage]:
    """Every demo picture's renditions written into `media`: each source's result."""
    loader = ImageSourceLoader(uploads)
    sources = {f"/uploads/demo/{path.name}" for path in (uploads / "demo").glob("*.png")}
    return {src: prepare_image(loader.load(src), media) for src in sources if ".cutout" not in src}


def seed_prepared_demo(engine: Engine, uploads: Path, prepared: dict[str, PreparedImage]) -> None:
    """The demo catalogue seeded, each picture marked prepared."""
    with Session(engine) as session:
        seed_catalogue_if_empty(session, DemoPrintProvider(media_dir=uploads / "demo", media_url="/uploads/demo"))
        for image in session.exec(select(CatalogImage)).all():
            done = prepared[image.src]
            image.digest, image.width, image.height = done.digest, done.width, done.height
            session.add(image)
        session.commit()
