"""Copying the demo provider's catalogue into the cache, on SQLite and PostgreSQL."""

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.catalog.sync import parse_provider_time, sync_catalogue, upsert_product
from storefront.services.collections import COLLECTIONS
from storefront.services.printify.demo import DemoPrintProvider


@pytest.fixture
def provider(tmp_path: Path) -> DemoPrintProvider:
    return DemoPrintProvider(media_dir=tmp_path / "demo", media_url="/uploads/demo")


def test_seed_fills_every_collection_with_at_least_four_products(engine: Engine, provider: DemoPrintProvider) -> None:
    with Session(engine) as session:
        count = seed_catalogue_if_empty(session, provider)
        session.commit()
        placed = Counter(session.exec(select(CatalogProduct.collection_key)).all())
    assert count >= 20
    assert all(placed[c.key] >= 4 for c in COLLECTIONS), placed


def test_seed_does_nothing_when_the_catalogue_has_products(engine: Engine, provider: DemoPrintProvider) -> None:
    with Session(engine) as session:
        seed_catalogue_if_empty(session, provider)
        session.commit()
        assert seed_catalogue_if_empty(session, provider) == 0


def test_sync_stores_variants_with_cent_prices_sizes_and_enabled_flags(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    shop_id = provider.list_shops()[0]["id"]
    with Session(engine) as session:
        sync_catalogue(session, provider, shop_id)
        session.commit()
        variants = session.exec(select(CatalogVariant)).all()
    assert variants
    assert all(isinstance(v.price_cents, int) and v.price_cents > 0 for v in variants)
    assert {"S", "M", "L", "XL"} <= {v.size for v in variants}
    assert {True, False} == {v.is_enabled for v in variants}


def test_sync_stores_images_in_provider_order(engine: Engine, provider: DemoPrintProvider) -> None:
    shop_id = provider.list_shops()[0]["id"]
    first = provider.list_products(shop_id)["data"][0]
    with Session(engine) as session:
        sync_catalogue(session, provider, shop_id)
        session.commit()
        images = session.exec(
            select(CatalogImage).where(CatalogImage.product_id == first["id"]).order_by(CatalogImage.sort_order)
        ).all()
    assert [i.src for i in images] == [i["src"] for i in first["images"]]


def test_resync_replaces_variants_instead_of_duplicating_them(engine: Engine, provider: DemoPrintProvider) -> None:
    shop_id = provider.list_shops()[0]["id"]
    with Session(engine) as session:
        sync_catalogue(session, provider, shop_id)
        session.commit()
        before = len(session.exec(select(CatalogVariant)).all())
        sync_catalogue(session, provider, shop_id)
        session.commit()
        assert len(session.exec(select(CatalogVariant)).all()) == before


def test_sync_keeps_a_placement_made_by_staff(engine: Engine, provider: DemoPrintProvider) -> None:
    shop_id = provider.list_shops()[0]["id"]
    product = provider.list_products(shop_id)["data"][0]
    with Session(engine) as session:
        row = upsert_product(session, product, shop_id)
        row.collection_key, row.collection_assigned = "hwdpn", True
        session.commit()
        upsert_product(session, product, shop_id)
        session.commit()
        assert session.get(CatalogProduct, product["id"]).collection_key == "hwdpn"


def test_provider_timestamps_are_parsed_as_utc() -> None:
    parsed = parse_provider_time("2017-04-18 13:24:28+02:00")
    assert (parsed.hour, parsed.utcoffset()) == (11, timedelta(0))
    assert parse_provider_time("not a date") is None


def test_placement_reads_the_description_with_entities_decoded(engine: Engine, provider: DemoPrintProvider) -> None:
    product = {**provider.list_products(provider.list_shops()[0]["id"])["data"][0]}
    product.update(tags=["T-Shirt"], title="Classic Tee", description="<p>Made for the K&#39;s</p>")
    with Session(engine) as session:
        assert upsert_product(session, product, 1).collection_key == "hwdkn"
