"""The embedded store catalogue: what the store-catalogue pages show without a Shopify store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storefront import wiring
from storefront.config import Settings
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    PRODUCT_NOT_FOUND,
    STATUS_DEMO,
    StorePage,
)
from storefront.services.shopify.demo import (
    DemoStoreCatalogue,
    decode_cursor,
    encode_cursor,
)


@pytest.fixture
def demo(tmp_path: Path) -> DemoStoreCatalogue:
    return DemoStoreCatalogue(tmp_path / "shopify", "/uploads/demo/shopify", image_size=48)


def _all_pages(demo: DemoStoreCatalogue, limit: int, **filters: object) -> list[StorePage]:
    pages, cursor = [], ""
    while True:
        page = asyncio.run(demo.products(cursor=cursor, limit=limit, **filters))  # type: ignore[arg-type]
        pages.append(page)
        if not page.next_cursor:
            return pages
        cursor = page.next_cursor


def test_status_is_demo_with_a_message(demo: DemoStoreCatalogue) -> None:
    status = asyncio.run(demo.status())
    assert status.status == STATUS_DEMO
    assert "SHOPIFY_STORE_DOMAIN" in status.message


def test_catalogue_has_a_dozen_products_with_variants_and_options(demo: DemoStoreCatalogue) -> None:
    products = asyncio.run(demo.products(limit=250)).products
    assert 10 <= len(products) <= 14
    assert len({p.id for p in products}) == len(products)
    assert sum(1 for p in products if len(p.variants) > 1) >= 8
    assert all(p.vendor and p.product_type and p.tags and p.body_html for p in products)
    assert all(len(v.options) == len(p.option_names) for p in products for v in p.variants)


def test_one_product_has_a_single_default_title_variant(demo: DemoStoreCatalogue) -> None:
    products = asyncio.run(demo.products(limit=250)).products
    singles = [p for p in products if [v.title for v in p.variants] == ["Default Title"]]
    assert len(singles) == 1
    assert singles[0].option_names == ("Title",)


def test_one_product_has_no_price(demo: DemoStoreCatalogue) -> None:
    products = asyncio.run(demo.products(limit=250)).products
    assert [p.title for p in products if p.price_cents is None] == ["Custom Team Jersey"]


def test_prices_are_cents_with_size_upcharges(demo: DemoStoreCatalogue) -> None:
    tee = next(p for p in asyncio.run(demo.products(query="classic crew")).products)
    prices = {v.title: v.price_cents for v in tee.variants}
    assert prices["Black / M"] == 2400
    assert prices["Black / XL"] == 2600


def test_search_matches_titles_case_insensitively(demo: DemoStoreCatalogue) -> None:
    titles = [p.title for p in asyncio.run(demo.products(query="  HOODIE ")).products]
    assert titles == ["Pullover Hoodie", "Zip-Up Hoodie"]


def test_search_without_matches_is_an_empty_last_page(demo: DemoStoreCatalogue) -> None:
    page = asyncio.run(demo.products(query="no such thing"))
    assert page.products == () and page.next_cursor == ""


def test_three_collections_by_title(demo: DemoStoreCatalogue) -> None:
    titles = [c.title for c in asyncio.run(demo.collections())]
    assert titles == ["Gift Ideas", "Hoodies & Sweatshirts", "Summer Essentials"]


def test_collection_filter_keeps_its_products_only(demo: DemoStoreCatalogue) -> None:
    smart = next(c for c in asyncio.run(demo.collections()) if c.title == "Hoodies & Sweatshirts")
    products = asyncio.run(demo.products(collection_id=smart.id, limit=250)).products
    assert {p.product_type for p in products} == {"Hoodie", "Sweatshirt"}
    assert len(products) == 4


def test_collection_filter_and_search_combine(demo: DemoStoreCatalogue) -> None:
    gifts = next(c for c in asyncio.run(demo.collections()) if c.title == "Gift Ideas")
    titles = [p.title for p in asyncio.run(demo.products(collection_id=gifts.id, query="cap")).products]
    assert titles == ["Embroidered Dad Cap"]


def test_an_unknown_collection_has_no_products(demo: DemoStoreCatalogue) -> None:
    assert asyncio.run(demo.products(collection_id=1)).products == ()


def test_paging_walks_every_product_once(demo: DemoStoreCatalogue) -> None:
    everything = [p.id for p in asyncio.run(demo.products(limit=250)).products]
    pages = _all_pages(demo, limit=5)
    walked = [p.id for page in pages for p in page.products]
    assert walked == everything
    assert [len(page.products) for page in pages[:-1]] == [5] * (len(pages) - 1)


def test_paging_within_a_search(demo: DemoStoreCatalogue) -> None:
    pages = _all_pages(demo, limit=2, query="tee")
    titles = [p.title for page in pages for p in page.products]
    assert len(titles) == len(set(titles)) == 5
    assert all("tee" in t.lower() for t in titles)


def test_cursors_are_opaque_and_checked() -> None:
    assert decode_cursor(encode_cursor(24)) == 24
    assert "24" not in encode_cursor(24)
    for bad in ("%%%", "bm9wZQ", "b2Zmc2V0Oi0x", "b2Zmc2V0Ong", "\u00e9"):
        with pytest.raises(ValidationError):
            decode_cursor(bad)


def test_product_lookup(demo: DemoStoreCatalogue) -> None:
    first = asyncio.run(demo.products(limit=1)).products[0]
    assert asyncio.run(demo.product(first.id)) == first


def test_unknown_product_is_not_found(demo: DemoStoreCatalogue) -> None:
    with pytest.raises(NotFoundError) as caught:
        asyncio.run(demo.product(42))
    assert caught.value.message == PRODUCT_NOT_FOUND


def test_a_description_needs_the_sanitiser(demo: DemoStoreCatalogue) -> None:
    bodies = [p.body_html for p in asyncio.run(demo.products(limit=250)).products]
    assert any("<script>" in b and "onerror=" in b for b in bodies)


def test_images_are_drawn_locally_once(demo: DemoStoreCatalogue, tmp_path: Path) -> None:
    products = asyncio.run(demo.products(limit=250)).products
    srcs = [image.src for p in products for image in p.images]
    assert srcs and all(src.startswith("/uploads/demo/shopify/") for src in srcs)
    for src in srcs:
        assert (tmp_path / "shopify" / src.rsplit("/", 1)[1]).is_file()
    assert demo.ensure_images() == 0
    assert all(p.image is not None for p in products)


def test_drawing_is_deterministic(tmp_path: Path) -> None:
    one = DemoStoreCatalogue(tmp_path / "one", image_size=32)
    two = DemoStoreCatalogue(tmp_path / "two", image_size=32)
    assert one.ensure_images() == two.ensure_images() > 0
    for path in (tmp_path / "one").iterdir():
        assert path.read_bytes() == (tmp_path / "two" / path.name).read_bytes()


@pytest.mark.parametrize("token_setting", ["SHOPIFY_STOREFRONT_TOKEN", "SHOPIFY_STOREFRONT_PRIVATE_TOKEN",
                                           "SHOPIFY_ACCESS_TOKEN"])
def test_wiring_serves_the_demo_until_the_domain_and_a_token_are_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token_setting: str
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    for name in ("SHOPIFY_STOREFRONT_TOKEN", "SHOPIFY_STOREFRONT_PRIVATE_TOKEN", "SHOPIFY_ACCESS_TOKEN"):
        monkeypatch.setenv(name, "")
    for domain, token in (("", ""), ("shop.myshopify.com", ""), ("", "shpat_x")):
        monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", domain)
        monkeypatch.setenv(token_setting, token)
        catalogue = wiring.store_catalogue(Settings())
        assert isinstance(catalogue, DemoStoreCatalogue)
        assert catalogue.media_dir == Settings().upload_dir / "demo" / "shopify"
    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", "shop.myshopify.com")
    monkeypatch.setenv(token_setting, "a-token")
    connected = wiring.store_catalogue(Settings())
    assert not isinstance(connected, DemoStoreCatalogue)
    assert connected.admin == (token_setting == "SHOPIFY_ACCESS_TOKEN")  # type: ignore[attr-defined]
    asyncio.run(connected.aclose())  # type: ignore[attr-defined]


def test_the_demo_sells_nothing_at_checkout(tmp_path: Path) -> None:
    from storefront.services.platform.errors import ValidationError
    from storefront.services.shopify.catalogue import CheckoutLine
    from storefront.services.shopify.demo import DEMO_CHECKOUT

    demo = DemoStoreCatalogue(media_dir=tmp_path)
    with pytest.raises(ValidationError) as caught:
        asyncio.run(demo.checkout([CheckoutLine("gid://shopify/ProductVariant/1", "1", 1, "Tee - M")]))
    assert caught.value.message == DEMO_CHECKOUT
