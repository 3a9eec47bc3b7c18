"""Catalogue image renditions on SQLite and PostgreSQL: every image prepared once, from disk or over
real HTTP (the fake Printify's mockups), faults retried later, bad images refused with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogImage, ImageSource
from storefront.services.catalog import catalog, listing
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.catalog.sync import sync_catalogue, upsert_product
from storefront.services.media.catalog_images import CatalogImagePreparer, src_key
from storefront.services.media.image_sources import ImageSourceLoader
from storefront.services.media.images import IMAGE_UNREADABLE, rendition_name, rendition_widths
from storefront.services.printify.demo import DemoPrintProvider
from tests.fakes.printify_server import FakePrintifyServer

#: The fake Printify serves its mockups on loopback, which the loader refuses unless told.
FAKE_NETWORKS = ("127.0.0.1",)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class CountingLoader(ImageSourceLoader):
    """The real loader, counting what it reads."""

    def __init__(self, upload_dir: Path, client: httpx.Client | None = None) -> None:
        super().__init__(upload_dir, client)
        self.loaded: list[str] = []

    def load(self, src: str) -> bytes:
        self.loaded.append(src)
        return super().load(src)


@pytest.fixture(scope="module")
def demo_uploads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uploads folder holding the demo provider's mockups (drawn once for the module)."""
    uploads = tmp_path_factory.mktemp("uploads")
    DemoPrintProvider(media_dir=uploads / "demo", media_url="/uploads/demo").ensure_images()
    return uploads


def images_of(engine: Engine) -> list[CatalogImage]:
    with Session(engine) as session:
        return list(session.exec(select(CatalogImage)).all())


def preparer_for(
    engine: Engine, loader: ImageSourceLoader, media: Path, clock: Clock | None = None
) -> CatalogImagePreparer:
    return CatalogImagePreparer(lambda: Session(engine), loader, media, clock=clock or Clock())


def test_every_demo_catalogue_image_gets_renditions_and_every_page_shows_them(
    engine: Engine, demo_uploads: Path, tmp_path: Path
) -> None:
    media = tmp_path / "media"
    with Session(engine) as session:
        seed_catalogue_if_empty(session, DemoPrintProvider(media_dir=demo_uploads / "demo", media_url="/uploads/demo"))
        session.commit()
    before = images_of(engine)
    assert before and all(image.digest == "" for image in before)

    loader = CountingLoader(demo_uploads)
    report = preparer_for(engine, loader, media).prepare_due()

    sources = {image.src for image in before}
    assert (report.prepared, report.failed, report.waiting) == (len(sources), 0, 0)
    assert sorted(loader.loaded) == sorted(sources)  # each address read once, however many products share it
    for image in images_of(engine):
        assert image.digest and image.width > 0 and image.height > 0
        for width in rendition_widths(image.width):
            assert (media / rendition_name(image.digest, width)).is_file()
    with Session(engine) as session:
        page = listing.product_page(session, limit=100)
        detail = catalog.get_product(session, page.cards[0].id)
    pictures = [card.picture for card in page.cards] + [detail.picture] + [c.picture for c in detail.colors]
    for shown in pictures:
        assert shown.src.startswith("/media/")
        for entry in shown.srcset.split(", "):
            url, width = entry.split(" ")
            assert (media / url.removeprefix("/media/")).is_file() and width.endswith("w")


def test_a_resync_reuses_the_renditions_without_reading_any_image_again(
    engine: Engine, demo_uploads: Path, tmp_path: Path
) -> None:
    media = tmp_path / "media"
    provider = DemoPrintProvider(media_dir=demo_uploads / "demo", media_url="/uploads/demo")
    with Session(engine) as session:
        seed_catalogue_if_empty(session, provider)
        session.commit()
    preparer_for(engine, CountingLoader(demo_uploads), media).prepare_due()
    digests = {(image.product_id, image.src): image.digest for image in images_of(engine)}

    with Session(engine) as session:  # the sync replaces every image row
        sync_catalogue(session, provider, int(provider.list_shops()[0]["id"]))
        session.commit()
    again = CountingLoader(demo_uploads)
    report = preparer_for(engine, again, media).prepare_due()

    assert {(image.product_id, image.src): image.digest for image in images_of(engine)} == digests
    assert (report.prepared, again.loaded) == (0, [])


def test_an_image_not_yet_prepared_shows_the_placeholder_never_the_providers_address(engine: Engine) -> None:
    from tests.unit.catalog.test_catalog import add, printify_product

    with Session(engine) as session:
        add(session, printify_product("p1", "Tee"))
        product = listing.product_page(session).cards[0]
    assert product.picture == catalog.PLACEHOLDER_PICTURE


@pytest.fixture
def fake() -> Iterator[FakePrintifyServer]:
    server = FakePrintifyServer().start(serve_images=True)
    yield server
    server.stop()


def sync_fake(engine: Engine, fake: FakePrintifyServer) -> None:
    with Session(engine) as session:
        for product in fake.products[fake.shop_id].values():
            upsert_product(session, product, fake.shop_id)
        session.commit()


def mockup_requests(fake: FakePrintifyServer) -> list[str]:
    return [r.path for r in fake.requests if r.path.startswith("/mockups/")]


def test_provider_images_are_fetched_over_http_once_and_served_as_renditions(
    engine: Engine, fake: FakePrintifyServer, tmp_path: Path
) -> None:
    fake.add_product("Crimson Tee")
    fake.add_product("Navy Tee")
    sync_fake(engine, fake)
    preparer = preparer_for(engine, ImageSourceLoader(tmp_path, allowed_networks=FAKE_NETWORKS), tmp_path / "media")

    report = preparer.prepare_due()
    fetched = mockup_requests(fake)
    sync_fake(engine, fake)  # a second sync of the same images
    preparer.prepare_due()

    sources = {image.src for image in images_of(engine)}
    assert all(src.startswith(fake.image_base) for src in sources)
    assert report.prepared == len(sources) and sorted(fetched) == sorted({s.split(str(fake.port))[1] for s in sources})
    assert mockup_requests(fake) == fetched  # nothing fetched twice
    assert all(image.digest and image.width == 600 for image in images_of(engine))


def test_a_provider_outage_delays_an_image_and_it_is_fetched_once_the_retry_time_comes(
    engine: Engine, fake: FakePrintifyServer, tmp_path: Path
) -> None:
    fake.add_product("Crimson Tee")
    sync_fake(engine, fake)
    clock = Clock()
    preparer = preparer_for(
        engine, ImageSourceLoader(tmp_path, allowed_networks=FAKE_NETWORKS), tmp_path / "media", clock
    )
    fake.fail_with(503, path="/mockups/", times=None)

    failed = preparer.prepare_due()
    fake.clear_faults()
    too_soon = preparer.prepare_due()
    clock.now += timedelta(minutes=2)
    later = preparer.prepare_due()

    count = len({image.src for image in images_of(engine)})
    assert (failed.prepared, failed.failed) == (0, count)
    assert (too_soon.prepared, too_soon.failed, too_soon.waiting) == (0, 0, count)
    assert (later.prepared, later.failed) == (count, 0)
    with Session(engine) as session:
        assert all(s.last_error == "" and s.attempts == 1 for s in session.exec(select(ImageSource)).all())


def test_a_timeout_is_retried_later_like_an_outage(engine: Engine, fake: FakePrintifyServer, tmp_path: Path) -> None:
    fake.add_product("Crimson Tee")
    sync_fake(engine, fake)
    fake.answer_slowly(1.0, path="/mockups/", times=None)
    loader = ImageSourceLoader(tmp_path, client=httpx.Client(timeout=0.2), allowed_networks=FAKE_NETWORKS)
    report = preparer_for(engine, loader, tmp_path / "media").prepare_due()
    with Session(engine) as session:
        errors = {s.last_error for s in session.exec(select(ImageSource)).all()}
    assert report.prepared == 0 and report.failed > 0
    assert errors == {f"unavailable: ReadTimeout fetching {src}" for src in {i.src for i in images_of(engine)}}


def test_a_malformed_image_is_refused_with_its_reason_and_the_product_shows_the_placeholder(
    engine: Engine, fake: FakePrintifyServer, tmp_path: Path
) -> None:
    product = fake.add_product("Crimson Tee")
    sync_fake(engine, fake)
    fake.answer_malformed(path="/mockups/", times=None)
    report = preparer_for(
        engine, ImageSourceLoader(tmp_path, allowed_networks=FAKE_NETWORKS), tmp_path / "media"
    ).prepare_due()

    with Session(engine) as session:
        source = session.get(ImageSource, src_key(product["images"][0]["src"]))
        card = listing.product_page(session).cards[0]
    assert report.failed == len(product["images"]) and report.prepared == 0
    assert source is not None and source.last_error == f"rejected: {IMAGE_UNREADABLE}"
    assert card.picture == catalog.PLACEHOLDER_PICTURE


def test_lost_rendition_files_are_made_again(engine: Engine, fake: FakePrintifyServer, tmp_path: Path) -> None:
    fake.add_product("Crimson Tee")
    sync_fake(engine, fake)
    media = tmp_path / "media"
    preparer = preparer_for(engine, ImageSourceLoader(tmp_path, allowed_networks=FAKE_NETWORKS), media)
    preparer.prepare_due()
    for path in media.iterdir():
        path.unlink()

    lost = preparer.forget_missing_files()
    report = preparer.prepare_due()

    count = len({image.src for image in images_of(engine)})
    assert (lost, report.prepared) == (count, count)
    assert all(any(media.glob(f"{image.digest}-*.webp")) for image in images_of(engine))


def test_an_upload_address_outside_the_uploads_folder_is_refused(tmp_path: Path) -> None:
    from storefront.services.media.images import ImageRejected

    (tmp_path / "secret.png").write_bytes(b"x")
    with pytest.raises(ImageRejected):
        ImageSourceLoader(tmp_path / "uploads").load("/uploads/../secret.png")
    with pytest.raises(ImageRejected):
        ImageSourceLoader(tmp_path).load("file:///etc/passwd")
