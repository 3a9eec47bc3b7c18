"""The try-on page's Available Items on SQLite and PostgreSQL: three shown tops of different kinds
from the demo catalogue, the picture each garment is cut from (the demo's transparent cut-out,
else the largest rendition), and the store's own pictures recognised (for `POST /api/try-on`)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogImage, CatalogProduct
from storefront.services.media.images import PreparedImage, cutout_path, rendition_name, rendition_widths
from storefront.services.platform.errors import NotFoundError
from storefront.services.tryon import items
from tests.demo_pictures import draw_demo_pictures, prepare_demo_pictures, seed_prepared_demo


@pytest.fixture(scope="module")
def demo_uploads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uploads folder holding the demo provider's mockups and cut-outs (drawn once)."""
    uploads = tmp_path_factory.mktemp("uploads")
    draw_demo_pictures(uploads)
    return uploads


@pytest.fixture(scope="module")
def prepared(demo_uploads: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, PreparedImage]]:
    """Every demo picture's renditions, made once: the media folder and each source's result."""
    media = tmp_path_factory.mktemp("media")
    return media, prepare_demo_pictures(demo_uploads, media)


@pytest.fixture
def media(engine: Engine, demo_uploads: Path, prepared: tuple[Path, dict[str, PreparedImage]]) -> Path:
    """The demo catalogue seeded with its pictures prepared (as the image worker leaves them)."""
    media, results = prepared
    seed_prepared_demo(engine, demo_uploads, results)
    return media


def offered(engine: Engine) -> list[items.TryOnItem]:
    with Session(engine) as session:
        return items.available_items(session)


def test_three_shown_tops_of_different_kinds_are_offered(engine: Engine, media: Path) -> None:
    offer = offered(engine)
    assert len(offer) == items.ITEM_COUNT == 3
    assert {items.family(item.name, []) for item in offer} == {"tee", "hoodie", "sweatshirt"}
    collections = set()
    with Session(engine) as session:
        for item in offer:
            product = session.get(CatalogProduct, item.id)
            assert product is not None and product.is_active and product.is_published
            collections.add(product.collection_key)
            assert item.name == product.title
            assert item.image_url.startswith("/media/") and (media / item.image_url.removeprefix("/media/")).is_file()
    assert len(collections) == 3  # each from another collection: they differ in colour too


def test_the_product_a_shopper_came_from_leads_the_list(engine: Engine, media: Path) -> None:
    offer = offered(engine)
    with Session(engine) as session:
        older_tee = next(
            product for product in session.exec(select(CatalogProduct)).all()
            if items.family(product.title, []) == "tee" and product.id not in {item.id for item in offer}
            and product.is_active and product.is_published
        )
        led = items.available_items(session, first=older_tee.id)
        assert [item.id for item in led][0] == older_tee.id and len(led) == 3
        assert {items.family(item.name, []) for item in led} == {"tee", "hoodie", "sweatshirt"}
        assert items.find_item(session, older_tee.id).id == older_tee.id
        # A product that is no top (or unknown) changes nothing.
        assert [item.id for item in items.available_items(session, first="no-such-product")] == [i.id for i in offer]


def test_a_hidden_product_is_neither_offered_nor_found(engine: Engine, media: Path) -> None:
    first = offered(engine)[0]
    with Session(engine) as session:
        product = session.get(CatalogProduct, first.id)
        assert product is not None
        product.is_active = False
        session.add(product)
        session.commit()
    assert first.id not in {item.id for item in offered(engine)}
    with Session(engine) as session, pytest.raises(NotFoundError, match=items.ITEM_GONE):
        items.find_item(session, first.id)


def test_a_product_whose_picture_is_not_prepared_yet_is_not_offered(engine: Engine, media: Path) -> None:
    first = offered(engine)[0]
    with Session(engine) as session:
        for image in session.exec(select(CatalogImage).where(CatalogImage.product_id == first.id)).all():
            image.digest = ""
            session.add(image)
        session.commit()
    assert first.id not in {item.id for item in offered(engine)}


def test_the_garment_is_the_demo_cutout_else_the_largest_rendition(
    engine: Engine, media: Path, demo_uploads: Path
) -> None:
    item = offered(engine)[0]
    cutout = cutout_path(demo_uploads / item.src.removeprefix("/uploads/"))
    picture = items.garment_picture(item, demo_uploads, media)
    assert picture == cutout.read_bytes()
    with Image.open(io.BytesIO(picture)) as image:
        assert image.mode == "RGBA" and image.getextrema()[3][0] == 0

    moved = cutout.with_name("moved.png")
    cutout.rename(moved)
    try:
        picture = items.garment_picture(item, demo_uploads, media)
    finally:
        moved.rename(cutout)
    with Image.open(io.BytesIO(picture)) as image:
        assert image.format == "WEBP" and image.width == item.width


def test_a_picture_outside_the_uploads_folder_is_never_read_as_a_cutout(
    engine: Engine, media: Path, demo_uploads: Path, tmp_path: Path
) -> None:
    item = offered(engine)[0]
    outside = tmp_path / "outside.png"
    Image.new("RGBA", (4, 4)).save(cutout_path(outside))
    sneaky = items.TryOnItem(
        id=item.id, name=item.name, image_url=item.image_url,
        src="/uploads/" + os.path.relpath(outside, demo_uploads),
        digest=item.digest, width=item.width,
    )
    assert sneaky.src.startswith("/uploads/..") and cutout_path(outside).is_file()
    picture = items.garment_picture(sneaky, demo_uploads, media)
    with Image.open(io.BytesIO(picture)) as image:
        assert image.format == "WEBP"  # the rendition, not the file outside


def test_a_picture_gone_from_disk_says_the_item_is_gone(engine: Engine, media: Path, tmp_path: Path) -> None:
    item = offered(engine)[0]
    with pytest.raises(NotFoundError, match=items.ITEM_GONE):
        items.garment_picture(item, tmp_path / "empty-uploads", tmp_path / "empty-media")


@pytest.mark.parametrize(
    ("title", "tags", "kind"),
    [
        ("SWDNN Classic Tee", [], "tee"),
        ("Logo T-Shirt", [], "tee"),
        ("Signature Hoodie", [], "hoodie"),
        ("Winter Crewneck", [], "sweatshirt"),
        ("The Blue One", ["Sweatshirt"], "sweatshirt"),
        ("Coffee Mug", ["Mugs"], None),
        ("Poster", ["Home & Living"], None),
    ],
)
def test_tops_are_told_by_title_then_tags(title: str, tags: list[str], kind: str | None) -> None:
    assert items.family(title, tags) == kind


def test_each_rendition_and_the_source_of_an_item_picture_are_recognised(
    engine: Engine, media: Path, demo_uploads: Path
) -> None:
    for item in offered(engine):
        source = (demo_uploads / item.src.removeprefix("/uploads/")).read_bytes()
        renditions = [(media / rendition_name(item.digest, w)).read_bytes() for w in rendition_widths(item.width)]
        with Session(engine) as session:
            for picture in (source, *renditions):
                found = items.recognised_item(session, picture, media)
                assert found is not None and found.id == item.id
            # And the garment handed to the engine is the one the page uses.
            assert items.store_garment(session, renditions[0], demo_uploads, media) == items.garment_picture(
                item, demo_uploads, media
            )


def test_a_picture_the_store_did_not_make_is_not_recognised(engine: Engine, media: Path, demo_uploads: Path) -> None:
    item = offered(engine)[0]
    shown = (media / item.image_url.removeprefix("/media/")).read_bytes()
    with Image.open(io.BytesIO(shown)) as image:
        again = io.BytesIO()
        image.save(again, "WEBP", quality=70)  # the same picture, encoded anew
    back = next(
        src for src in (f"/uploads/demo/{p.name}" for p in (demo_uploads / "demo").glob("*back*.png"))
    )
    with Session(engine) as session:
        assert items.recognised_item(session, again.getvalue(), media) is None
        flipped = shown[:100] + bytes([shown[100] ^ 1]) + shown[101:]  # one bit changed, same length
        assert items.recognised_item(session, flipped, media) is None
        assert items.store_garment(session, again.getvalue(), demo_uploads, media) is None
        # A product's other picture (its back) is not the item's picture.
        assert (
            items.recognised_item(session, (demo_uploads / back.removeprefix("/uploads/")).read_bytes(), media) is None
        )
