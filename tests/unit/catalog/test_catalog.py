"""The storefront's read side of the catalogue cache, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.catalog import (
    PLACEHOLDER_IMAGE,
    PLACEHOLDER_PICTURE,
    SAMPLE_PRODUCTS,
    LinePrice,
    chosen_image,
    collection_counts,
    enabled_sizes,
    get_product,
    line_price,
    newest_products,
    pick_image,
    search_products,
)
from storefront.services.catalog.seed import seed_catalogue_if_empty
from storefront.services.catalog.sync import upsert_product
from storefront.services.collections import COLLECTIONS
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.printify.demo import DemoPrintProvider
from tests.renditions import remember_prepared, shown

SHOP_ID = 7
SIZE_IDS = {"S": 14, "M": 15, "L": 16, "XL": 17, "2XL": 18}
BLACK_ID = 601


def printify_product(
    product_id: str,
    title: str,
    *,
    description: str = "<p>A plain garment.</p>",
    variants: list[tuple[int, str, int, bool]] | None = None,
    images: list[dict[str, Any]] | None = None,
    created_at: str = "2024-05-01 10:00:00+00:00",
    published: bool = True,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """A Printify-shaped product; variants are (variant id, size, price in cents, enabled)."""
    rows = [(101, "M", 2500, True)] if variants is None else variants
    return {
        "id": product_id,
        "title": title,
        "description": description,
        "tags": tags if tags is not None else ["SWDNN", "T-Shirt"],
        "options": [
            {"name": "Colors", "type": "color", "values": [{"id": BLACK_ID, "title": "Black"}]},
            {"name": "Sizes", "type": "size", "values": [{"id": i, "title": s} for s, i in SIZE_IDS.items()]},
        ],
        "variants": [
            {
                "id": vid,
                "sku": f"{product_id}-{vid}",
                "price": price,
                "title": f"Black / {size}",
                "is_enabled": enabled,
                "options": [BLACK_ID, SIZE_IDS[size]],
            }
            for vid, size, price, enabled in rows
        ],
        "images": images if images is not None else [],
        "created_at": created_at,
        "updated_at": created_at,
        "visible": published,
        "is_published": published,
    }


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


@pytest.fixture
def demo(session: Session, tmp_path: Path) -> Session:
    """A session on a database holding the demo catalogue (25 published products and 2 drafts)."""
    seed_catalogue_if_empty(session, DemoPrintProvider(media_dir=tmp_path / "demo", media_url="/uploads/demo"))
    session.commit()
    return session


def add(session: Session, product: dict[str, Any]) -> CatalogProduct:
    row = upsert_product(session, product, SHOP_ID)
    session.commit()
    return row


def names(summaries: list[Any]) -> set[str]:
    return {s.name for s in summaries}


# --------------------------------------------------------------------------- search


def test_search_matches_title_case_insensitively(demo: Session) -> None:
    assert names(search_products(demo, query="  cLaSsIc TEE ")) == {f"{c.label} Classic Tee" for c in COLLECTIONS}


def test_search_ignores_description_by_default(demo: Session) -> None:
    assert search_products(demo, query="kangaroo pocket") == []


def test_search_matches_description_when_asked(demo: Session) -> None:
    found = search_products(demo, query="KANGAROO pocket", match_description=True)
    assert names(found) == {f"{c.label} Signature Hoodie" for c in COLLECTIONS}


@pytest.mark.parametrize(("query", "expected"), [("100%", "100% Cotton Tee"), ("tee_s", "Tee_Shirt")])
def test_like_wildcards_in_the_query_are_literal(session: Session, query: str, expected: str) -> None:
    for i, title in enumerate(["100% Cotton Tee", "1000 Cotton Tee", "Tee_Shirt", "Tee Shirt", "TeeXShirt"]):
        add(session, printify_product(f"p{i}", title))
    assert names(search_products(session, query=query)) == {expected}


def test_empty_query_lists_every_shown_product(demo: Session) -> None:
    assert len(search_products(demo, query="   ")) == 25


def test_unpublished_products_are_never_listed(demo: Session) -> None:
    listed = names(search_products(demo))
    assert not listed & {"SWDNN Prototype Hoodie", "HWDKN Archive Tee"}


def test_inactive_products_are_never_listed(session: Session) -> None:
    add(session, printify_product("shown", "Shown Tee"))
    add(session, printify_product("hidden", "Hidden Tee")).is_active = False
    session.commit()
    assert names(search_products(session)) == {"Shown Tee"}


def test_collection_filter_keeps_only_that_collection(demo: Session) -> None:
    found = search_products(demo, collection_key="hwdpn")
    assert len(found) == 5 and {s.collection_key for s in found} == {"hwdpn"}


def test_results_are_newest_first_then_by_title(session: Session) -> None:
    add(session, printify_product("old", "Old Tee", created_at="2023-01-01 00:00:00+00:00"))
    add(session, printify_product("new-b", "B Tee", created_at="2024-06-01 00:00:00+00:00"))
    add(session, printify_product("new-a", "A Tee", created_at="2024-06-01 00:00:00+00:00"))
    add(session, printify_product("undated", "Undated Tee", created_at=""))
    assert [s.name for s in search_products(session)] == ["A Tee", "B Tee", "Old Tee", "Undated Tee"]


def test_limit_and_offset_page_through_results(session: Session) -> None:
    for day in range(1, 6):
        add(session, printify_product(f"d{day}", f"Day {day} Tee", created_at=f"2024-06-0{day} 00:00:00+00:00"))
    assert [s.name for s in search_products(session, limit=2, offset=1)] == ["Day 4 Tee", "Day 3 Tee"]


def test_newest_products_returns_the_newest_shown_products(demo: Session) -> None:
    assert newest_products(demo, limit=4) == search_products(demo)[:4]


def test_search_loads_a_page_with_at_most_three_queries(demo: Session, engine: Engine) -> None:
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        found = search_products(demo, limit=20)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(found) == 20 and len(statements) <= 3


# --------------------------------------------------------------------------- summaries


def test_summary_description_is_plain_text(session: Session) -> None:
    add(session, printify_product("p", "Tee", description="<p>Soft &amp; warm</p>\n<p>  cotton <b>tee</b></p>"))
    assert search_products(session)[0].description == "Soft & warm cotton tee"


def test_price_is_the_first_enabled_variant_in_provider_order(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=[(1, "S", 3000, False), (2, "M", 2500, True)]))
    assert search_products(session)[0].price_cents == 2500


def test_product_whose_variants_are_all_disabled_has_no_price(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=[(1, "S", 3000, False), (2, "M", 2500, False)]))
    summary = search_products(session)[0]
    assert (summary.price_cents, summary.has_variants, summary.sizes) == (None, False, ())


def test_summary_lists_the_sizes_offered(session: Session) -> None:
    add(
        session,
        printify_product("p", "Tee", variants=[(1, "L", 2600, True), (2, "S", 2500, True), (3, "M", 2500, False)]),
    )
    assert search_products(session)[0].sizes == ("S", "L")


def test_product_without_variants_has_no_price(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=[]))
    summary = search_products(session)[0]
    assert (summary.price_cents, summary.has_variants) == (None, False)


def test_summary_image_prefers_the_preview_image(session: Session) -> None:
    images = [{"src": "/front.png", "position": "front"}, {"src": "/preview.png", "position": "preview"}]
    add(session, printify_product("p", "Tee", images=images))
    assert search_products(session)[0].picture == PLACEHOLDER_PICTURE  # not prepared yet: never hot-linked
    remember_prepared(session, ["/front.png", "/preview.png"])
    assert search_products(session)[0].image_url == shown("/preview.png")


# --------------------------------------------------------------------------- counts


def test_counts_shown_products_per_collection(demo: Session) -> None:
    assert collection_counts(demo) == {c.key: 5 for c in COLLECTIONS}


def test_counts_list_every_collection_even_when_empty(session: Session) -> None:
    add(session, printify_product("p", "Zeta Tee", tags=["HWDZN"]))
    assert collection_counts(session) == {c.key: (1 if c.key == "hwdzn" else 0) for c in COLLECTIONS}


# --------------------------------------------------------------------------- pure helpers


def test_pick_image_prefers_preview() -> None:
    images = [CatalogImage(product_id="p", src="/a.png", position="front", sort_order=0),
              CatalogImage(product_id="p", src="/b.png", position="preview", sort_order=1)]
    assert chosen_image(images) is images[1]


def test_pick_image_falls_back_to_the_first_by_sort_order() -> None:
    images = [CatalogImage(product_id="p", src="/second.png", position="front", sort_order=2),
              CatalogImage(product_id="p", src="/first.png", position="back", sort_order=1)]
    assert chosen_image(images) is images[1]


def test_pick_image_without_images_is_the_placeholder() -> None:
    assert chosen_image([]) is None
    assert pick_image([]) == PLACEHOLDER_PICTURE


def test_pick_image_shows_the_renditions_once_prepared() -> None:
    image = CatalogImage(product_id="p", src="/a.png", position="front", sort_order=0)
    assert pick_image([image]) == PLACEHOLDER_PICTURE
    image.digest, image.width, image.height = "abc", 1000, 800
    shown_picture = pick_image([image])
    assert (shown_picture.src, shown_picture.width, shown_picture.height) == ("/media/abc-640.webp", 1000, 800)
    assert shown_picture.srcset.endswith("/media/abc-1000.webp 1000w")


def test_enabled_sizes_follow_size_order_with_unknown_sizes_last() -> None:
    sizes = ["One", "XL", "2XL", "S", "Kids", "M", "S"]
    variants = [CatalogVariant(product_id="p", variant_id=i, price_cents=1, size=s, sort_order=i)
                for i, s in enumerate(sizes)]
    assert enabled_sizes(variants) == ("S", "M", "XL", "2XL", "One", "Kids")


def test_enabled_sizes_ignore_disabled_variants() -> None:
    variants = [CatalogVariant(product_id="p", variant_id=1, price_cents=1, size="S", is_enabled=False),
                CatalogVariant(product_id="p", variant_id=2, price_cents=1, size="M", is_enabled=True)]
    assert enabled_sizes(variants) == ("M",)


# --------------------------------------------------------------------------- get_product


def test_get_product_returns_the_cached_product_with_sizes(session: Session) -> None:
    add(session, printify_product("p", "Tee", description="<p>Soft</p>",
                                  variants=[(1, "L", 2600, True), (2, "S", 2500, True), (3, "M", 2500, False)]))
    detail = get_product(session, "p")
    assert (detail.sizes, detail.description_html, detail.is_sample) == (("S", "L"), "<p>Soft</p>", False)


def test_detail_prices_each_size_as_the_cart_will(session: Session) -> None:
    variants = [(1, "S", 3000, False), (2, "S", 2400, True), (3, "M", 2500, True), (4, "M", 2700, True),
                (5, "XL", 2900, True)]
    add(session, printify_product("p", "Tee", variants=variants))
    detail = get_product(session, "p")
    assert detail.size_prices == {"S": 2400, "M": 2500, "XL": 2900}
    assert detail.size_prices == {size: line_price(session, "p", size).price_cents for size in detail.sizes}
    assert detail.price_cents == 2400


def test_demo_card_and_detail_prices_match_what_the_cart_charges(demo: Session) -> None:
    for summary in search_products(demo):
        detail = get_product(demo, summary.id)
        charged = {size: line_price(demo, summary.id, size).price_cents for size in summary.sizes}
        assert summary.price_cents == charged[summary.sizes[0]], summary.name
        assert detail.size_prices == charged, summary.name


def test_sample_sizes_all_cost_the_sample_price(session: Session) -> None:
    sample = get_product(session, "sample-2")
    assert sample.size_prices == dict.fromkeys(sample.sizes, 4999)


def test_get_product_falls_back_to_the_sample_products(session: Session) -> None:
    assert [get_product(session, f"sample-{i}").price_cents for i in (1, 2, 3)] == [2499, 4999, 1999]


def test_samples_are_swdnn_placeholders_in_sizes_s_to_xl() -> None:
    assert {(s.is_sample, s.collection_key, s.image_url, s.sizes) for s in SAMPLE_PRODUCTS} == {
        (True, "swdnn", PLACEHOLDER_IMAGE, ("S", "M", "L", "XL"))
    }


def test_get_product_of_an_unknown_id_raises_not_found(session: Session) -> None:
    with pytest.raises(NotFoundError, match="^Product not found$"):
        get_product(session, "nope")


def test_get_product_of_an_inactive_product_raises_not_found(session: Session) -> None:
    add(session, printify_product("p", "Tee")).is_active = False
    session.commit()
    with pytest.raises(NotFoundError, match="^Product not found$"):
        get_product(session, "p")


def test_get_product_of_an_unpublished_product_raises_not_found(session: Session) -> None:
    add(session, printify_product("p", "Tee", published=False))
    with pytest.raises(NotFoundError, match="^Product not found$"):
        get_product(session, "p")


# --------------------------------------------------------------------------- line_price

VARIANTS = [(1, "S", 2400, False), (2, "M", 2500, True), (3, "M", 2700, True), (4, "XL", 2900, True)]


def test_line_price_is_the_first_enabled_variant_of_that_size(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=VARIANTS))
    assert line_price(session, "p", "M") == LinePrice(price_cents=2500, variant_id="2")


@pytest.mark.parametrize("size", ["One Size", "", "L", "m"])
def test_line_price_of_a_size_no_variant_has_is_rejected(session: Session, size: str) -> None:
    add(session, printify_product("p", "Tee", variants=VARIANTS))
    with pytest.raises(ValidationError, match="^Size not available$"):
        line_price(session, "p", size)


def test_line_price_of_a_size_with_only_disabled_variants_is_rejected(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=VARIANTS))
    with pytest.raises(ValidationError, match="^Size not available$") as caught:
        line_price(session, "p", "S")
    assert caught.value.field_errors == {"size": "Size not available"}


def test_line_price_of_a_sample_product_raises_not_found(session: Session) -> None:
    with pytest.raises(NotFoundError, match="^Product not found$"):
        line_price(session, "sample-1", "M")


def test_line_price_of_a_hidden_product_raises_not_found(session: Session) -> None:
    add(session, printify_product("p", "Tee", variants=VARIANTS)).is_active = False
    session.commit()
    with pytest.raises(NotFoundError, match="^Product not found$"):
        line_price(session, "p", "M")
