"""The back office's catalogue services, on SQLite and PostgreSQL: lists, summaries, and every
product action being complete or refused with nothing changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, delete, select, update

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.admin import admin_catalog, base_price, product_forms, product_margins, product_rows
from storefront.services.admin.product_forms import ProductForm
from storefront.services.catalog import catalog, sync as catalog_sync
from storefront.services.catalog.sync import SyncProgress, upsert_product
from storefront.services.collections import COLLECTIONS
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.errors import ProviderError, ProviderNotFound, ProviderUnavailable, provider_reason
from storefront.services.printify.provider import validation_error
from tests.designs import design_data_url
from tests.ordering import seed_demo

SHOP = 1
REFUSAL = "title: Refused for this test."


class Refusing:
    """The demo provider, but the named methods fail like the provider refusing; records calls."""

    def __init__(self, inner: DemoPrintProvider, *refused: str, error: ProviderError | None = None) -> None:
        self.inner = inner
        self.refused = set(refused)
        self.error = error or validation_error(REFUSAL)
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.inner, name)
        if not callable(target):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if name in self.refused:
                raise self.error
            return target(*args, **kwargs)

        return call


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


@pytest.fixture
def session(engine: Engine, provider: DemoPrintProvider) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


def _cached(engine: Engine, product_id: str) -> tuple[CatalogProduct, list[int]]:
    """The cached product and its variant prices, read in a fresh session."""
    with Session(engine) as fresh:
        product = fresh.get(CatalogProduct, product_id)
        assert product is not None
        fresh.expunge(product)
        prices = list(
            fresh.exec(
                select(CatalogVariant.price_cents)
                .where(CatalogVariant.product_id == product_id)
                .order_by(CatalogVariant.sort_order)
            ).all()
        )
    return product, prices


def _shown_id(session: Session, key: str = "hwdkn") -> str:
    return catalog.search_products(session, collection_key=key)[0].id


def _form(**overrides: Any) -> ProductForm:
    values: dict[str, Any] = {
        "title": "HWDZN Summer Tee",
        "description": "A light tee for hot summer days.",
        "blueprint_id": 384,
        "print_provider_id": 29,
        "design": design_data_url(),
    }
    values.update(overrides)
    return ProductForm(**values)


# --------------------------------------------------------------------------- the product list


def test_the_list_holds_every_product_of_the_shop_hidden_and_unpublished_too(
    session: Session, provider: DemoPrintProvider
) -> None:
    page = product_rows.product_page(session, shop_id=SHOP, limit=100)
    assert page.total == provider.list_products(SHOP)["total"] == len(page.rows)
    assert {row.status for row in page.rows} == {"published", "unpublished"}
    assert all(row.is_published == (row.status == "published") for row in page.rows)


def test_the_list_pages_in_a_stable_order(session: Session) -> None:
    everything = [row.id for row in product_rows.product_page(session, shop_id=SHOP, limit=100).rows]
    paged: list[str] = []
    for offset in range(0, len(everything), 10):
        page = product_rows.product_page(session, shop_id=SHOP, limit=10, offset=offset)
        paged += [row.id for row in page.rows]
        assert page.has_more == (offset + 10 < len(everything))
    assert paged == everything


def test_the_publish_select_lists_unpublished_products_first_in_the_usual_order(session: Session) -> None:
    everything = product_rows.product_page(session, shop_id=SHOP, limit=100).rows
    first = product_rows.product_page(session, shop_id=SHOP, limit=100, unpublished_first=True).rows
    drafts = [row.id for row in everything if not row.is_published]
    assert drafts, "the demo catalogue has drafts"
    assert [row.id for row in first] == drafts + [row.id for row in everything if row.is_published]


def test_search_matches_title_or_description_case_insensitively(session: Session) -> None:
    by_title = product_rows.product_page(session, shop_id=SHOP, query="hOOdIe", limit=100)
    assert by_title.total and all(
        "hoodie" in row.title.lower() or "hoodie" in row.description.lower() for row in by_title.rows
    )
    by_description = product_rows.product_page(session, shop_id=SHOP, query="KANGAROO POCKET", limit=100)
    assert by_description.total and all("kangaroo pocket" not in row.title.lower() for row in by_description.rows)
    assert product_rows.product_page(session, shop_id=SHOP, query="no such product").total == 0


def test_a_row_carries_the_editor_fields(session: Session, provider: DemoPrintProvider) -> None:
    row = product_rows.product_page(session, shop_id=SHOP, limit=1).rows[0]
    product = provider.get_product(SHOP, row.id)
    first_enabled = next(v for v in product["variants"] if v["is_enabled"])
    assert row.price_cents == first_enabled["price"]
    assert (
        row.description == catalog.plain_text(product["description"]) and row.description_html == product["description"]
    )
    assert row.category in {c.key for c in COLLECTIONS}
    assert [v.id for v in row.variants] == [v["id"] for v in product["variants"]]
    colour, size = product["variants"][0]["title"].split(" / ")
    assert (row.variants[0].colour, row.variants[0].size) == (colour, size)


def test_the_list_filters_by_category(session: Session) -> None:
    page = product_rows.product_page(session, shop_id=SHOP, category="HWDZN", limit=100)
    assert page.total >= 4 and {row.category for row in page.rows} == {"hwdzn"}


def test_a_row_shows_its_card_pictures_smallest_rendition_and_nothing_without_a_picture(session: Session) -> None:
    pictured, bare, uncarded = (row.id for row in product_rows.product_page(session, shop_id=SHOP, limit=3).rows)
    session.exec(
        update(CatalogImage)
        .where(col(CatalogImage.product_id).in_([pictured, uncarded]))
        .values(digest="d" * 24, width=1000, height=1200)
    )
    session.exec(delete(CatalogImage).where(col(CatalogImage.product_id) == bare))
    session.commit()
    # A card not written yet (after a migration) is derived on the spot.
    session.exec(update(CatalogProduct).where(col(CatalogProduct.id) == uncarded).values(card_json=""))
    session.commit()
    thumbnails = {row.id: row.thumbnail for row in product_rows.product_page(session, shop_id=SHOP, limit=3).rows}
    small = f"/media/{'d' * 24}-320.webp"
    assert thumbnails == {pictured: small, bare: "", uncarded: small}
    assert product_rows.get_product_row(session, pictured).thumbnail == small


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (101, 0), ("many", 0), (10, -1)])
def test_a_bad_page_is_refused(session: Session, limit: object, offset: object) -> None:
    with pytest.raises(ValidationError):
        product_rows.product_page(session, shop_id=SHOP, limit=limit, offset=offset)


# --------------------------------------------------------------------------- collection cards


def test_collection_cards_count_visible_and_total_products(session: Session) -> None:
    cards = {card.key: card for card in product_rows.collection_summaries(session, shop_id=SHOP)}
    assert list(cards) == [c.key for c in COLLECTIONS]
    shown = catalog.collection_counts(session)
    for key, card in cards.items():
        rows = product_rows.product_page(session, shop_id=SHOP, category=key, limit=100).rows
        assert (card.visible, card.total) == (shown[key], len(rows))
        assert card.preview_names == tuple(row.title for row in rows[:3])
        assert card.more == len(rows) - 3
        assert card.route == f"/collections/{key}"
    assert cards["swdnn"].total > cards["swdnn"].visible  # the unpublished draft


def test_hiding_a_product_lowers_its_cards_visible_count(session: Session) -> None:
    before = {c.key: c.visible for c in product_rows.collection_summaries(session)}
    admin_catalog.set_visibility(session, _shown_id(session, "hwdrn"), False)
    after = {c.key: c.visible for c in product_rows.collection_summaries(session)}
    assert after["hwdrn"] == before["hwdrn"] - 1


# --------------------------------------------------------------------------- editor save


def _base(provider: DemoPrintProvider, product_id: str) -> int:
    """The product's base price at the provider: its first enabled variant's."""
    return next(v["price"] for v in provider.get_product(SHOP, product_id)["variants"] if v["is_enabled"])


class Recording(Refusing):
    """The demo provider, recording each update_product's changes."""

    def __init__(self, inner: DemoPrintProvider) -> None:
        super().__init__(inner)
        self.changes: list[dict[str, Any]] = []

    def update_product(self, shop_id: int, product_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        self.changes.append(changes)
        return self.inner.update_product(shop_id, product_id, changes)


def test_a_title_only_save_sends_the_title_alone_and_keeps_every_size_price(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    before = _cached(engine, product_id)[1]
    row = product_rows.get_product_row(session, product_id)
    spy = Recording(provider)
    admin_catalog.update_product(
        session, spy, SHOP, product_id,  # type: ignore[arg-type]
        title="A New Name", description=row.description_html, price=product_rows.dollars(row.price_cents),
        category=row.category,
    )
    assert spy.changes == [{"title": "A New Name"}]
    assert len(set(before)) > 1 and _cached(engine, product_id)[1] == before
    assert [v["price"] for v in provider.get_product(SHOP, product_id)["variants"]] == before


def test_a_save_with_nothing_changed_sends_nothing(session: Session, provider: DemoPrintProvider) -> None:
    product_id = _shown_id(session)
    row = product_rows.get_product_row(session, product_id)
    spy = Recording(provider)
    admin_catalog.update_product(
        session, spy, SHOP, product_id,  # type: ignore[arg-type]
        title=row.title, description=row.description_html, price=product_rows.dollars(row.price_cents),
    )
    assert spy.changes == []


def test_a_base_price_that_takes_a_cheaper_variant_below_zero_is_refused(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    variants = provider.get_product(SHOP, product_id)["variants"]
    admin_catalog.set_variant_prices(session, provider, SHOP, product_id, {variants[1]["id"]: "1.00"})
    before = _cached(engine, product_id)[1]
    spy = Recording(provider)
    for save in (
        lambda: admin_catalog.update_product(session, spy, SHOP, product_id, title="T", description=None, price="0.50"),  # type: ignore[arg-type]
        lambda: admin_catalog.sync_price(session, spy, SHOP, product_id, "0.50"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValidationError) as excinfo:
            save()
        assert excinfo.value.field_errors == {"price": "Invalid price value"}
    assert spy.changes == [] and _cached(engine, product_id)[1] == before


def test_a_price_below_the_provider_cost_is_saved_only_once_confirmed(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    current = provider.get_product(SHOP, product_id)
    base = _base(provider, product_id)
    spy = Recording(provider)
    new_base = 1100  # below the smaller sizes' cost; the larger ones keep their upcharge above theirs
    expected = [v["title"] for v in current["variants"] if v["is_enabled"] and v["price"] - base + new_base < v["cost"]]
    assert expected and len(expected) < sum(v["is_enabled"] for v in current["variants"])
    with pytest.raises(base_price.BelowCostError) as excinfo:
        admin_catalog.sync_price(session, spy, SHOP, product_id, "11.00")  # type: ignore[arg-type]
    assert excinfo.value.labels == expected and excinfo.value.status_code == 409
    assert all(label in excinfo.value.message for label in expected)
    with pytest.raises(base_price.BelowCostError):
        admin_catalog.update_product(session, spy, SHOP, product_id, title="T", description=None, price="11")  # type: ignore[arg-type]
    assert spy.changes == []
    admin_catalog.sync_price(session, spy, SHOP, product_id, "11.00", below_cost_confirmed=True)  # type: ignore[arg-type]
    assert _cached(engine, product_id)[1] == [v["price"] - base + new_base for v in current["variants"]]


@pytest.mark.parametrize("price", [-1, "-0.01", "abc", "", None, True, float("nan"), "1e12"])
def test_editor_save_refuses_a_price_that_is_not_a_non_negative_number(
    session: Session, provider: DemoPrintProvider, price: object
) -> None:
    spy = Refusing(provider)
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.update_product(
            session, spy, SHOP, _shown_id(session), title="A title", description="<p>Words</p>", price=price  # type: ignore[arg-type]
        )
    assert excinfo.value.message == "Invalid price value"
    assert excinfo.value.field_errors["price"] == "Invalid price value"
    assert spy.calls == []


def test_editor_save_requires_a_title(session: Session, provider: DemoPrintProvider) -> None:
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.update_product(
            session, provider, SHOP, _shown_id(session), title="  ", description="", price="10"
        )
    assert excinfo.value.field_errors == {"title": "Title is required"}


def test_editor_save_updates_the_provider_and_the_cache(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session, "hwdkn")
    before = _cached(engine, product_id)[1]
    base = _base(provider, product_id)
    row = admin_catalog.update_product(
        session,
        provider,
        SHOP,
        product_id,
        title="HWDKN Gold Tee",
        description="<p>Gold letters</p>",
        price="31.5",
        category="hwdpn",
    )
    at_provider = provider.get_product(SHOP, product_id)
    assert (at_provider["title"], at_provider["description"]) == ("HWDKN Gold Tee", "<p>Gold letters</p>")
    moved = [price + 3150 - base for price in before]  # every variant by the same amount
    assert [v["price"] for v in at_provider["variants"]] == moved
    cached, prices = _cached(engine, product_id)
    assert (cached.title, cached.description, prices) == ("HWDKN Gold Tee", "<p>Gold letters</p>", moved)
    assert (cached.collection_key, cached.collection_assigned) == ("hwdpn", True)
    assert (row.title, row.price_cents, row.category) == ("HWDKN Gold Tee", 3150, "hwdpn")


def test_editor_save_keeps_disabled_variants_disabled(session: Session, provider: DemoPrintProvider) -> None:
    product = next(
        p
        for p in provider.list_products(SHOP)["data"]
        if p["is_published"] and not all(v["is_enabled"] for v in p["variants"])
    )
    admin_catalog.update_product(
        session, provider, SHOP, product["id"], title=product["title"], description=None, price=40
    )
    after = provider.get_product(SHOP, product["id"])
    assert [v["is_enabled"] for v in after["variants"]] == [v["is_enabled"] for v in product["variants"]]
    assert after["description"] == product["description"]


def test_a_refused_save_changes_nothing_locally(session: Session, provider: DemoPrintProvider, engine: Engine) -> None:
    product_id = _shown_id(session)
    before = _cached(engine, product_id)
    with pytest.raises(ProviderError) as excinfo:
        admin_catalog.update_product(
            session, Refusing(provider, "update_product"), SHOP, product_id,  # type: ignore[arg-type]
            title="Changed", description="<p>Changed</p>", price="30.00", category="hwdzn",
        )
    assert provider_reason(excinfo.value) == REFUSAL
    assert _cached(engine, product_id)[0].model_dump() == before[0].model_dump()
    assert _cached(engine, product_id)[1] == before[1]


def test_a_product_locked_by_a_publish_cannot_be_saved(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    provider.publish_product(SHOP, product_id)  # a publish nobody confirmed
    with pytest.raises(ProviderError) as excinfo:
        admin_catalog.update_product(session, provider, SHOP, product_id, title="Changed", description="", price="30")
    assert (excinfo.value.code, provider_reason(excinfo.value)) == (8252, "Product is disabled for editing")
    assert _cached(engine, product_id)[0].title != "Changed"


def test_saving_an_unknown_product_is_not_found(session: Session, provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderNotFound):
        admin_catalog.update_product(session, provider, SHOP, "0" * 24, title="x", description="", price="5")


# --------------------------------------------------------------------------- categories and visibility


def test_a_category_change_moves_the_product_between_collection_pages(
    session: Session, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(session, "hwdkn")
    row = admin_catalog.set_category(session, provider, SHOP, product_id, "HWDZN")
    assert row.category == "hwdzn"
    assert product_id not in {p.id for p in catalog.search_products(session, collection_key="hwdkn")}
    assert product_id in {p.id for p in catalog.search_products(session, collection_key="hwdzn")}
    assert provider.get_product(SHOP, product_id)["tags"] == ["HWDZN"]


def test_a_placement_survives_a_catalogue_sync(session: Session, provider: DemoPrintProvider, engine: Engine) -> None:
    product_id = _shown_id(session, "hwdkn")
    admin_catalog.set_category(session, provider, SHOP, product_id, "hwdpn")
    provider.update_product(SHOP, product_id, {"tags": ["HWDKN"]})  # someone edits the tags at the provider
    catalog_sync.sync_shop(session, provider, SHOP)
    assert _cached(engine, product_id)[0].collection_key == "hwdpn"


def test_an_unknown_category_is_refused_before_the_provider_is_asked(
    session: Session, provider: DemoPrintProvider
) -> None:
    spy = Refusing(provider)
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.set_category(session, spy, SHOP, _shown_id(session), "hwdxx")  # type: ignore[arg-type]
    assert excinfo.value.message == "Unknown category"
    assert spy.calls == []


def test_a_refused_category_change_keeps_the_old_placement(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session, "hwdkn")
    with pytest.raises(ProviderError):
        admin_catalog.set_category(session, Refusing(provider, "update_product"), SHOP, product_id, "hwdzn")  # type: ignore[arg-type]
    assert _cached(engine, product_id)[0].collection_key == "hwdkn"


def test_hiding_removes_the_product_from_the_storefront_and_showing_brings_it_back(session: Session) -> None:
    product_id = _shown_id(session, "hwdrn")
    row = admin_catalog.set_visibility(session, product_id, False)
    assert row.is_active is False
    assert product_id not in {p.id for p in catalog.search_products(session, collection_key="hwdrn")}
    with pytest.raises(NotFoundError):
        catalog.get_product(session, product_id)
    assert product_rows.product_page(session, query=row.title).rows[0].is_active is False
    admin_catalog.set_visibility(session, product_id, True)
    assert product_id in {p.id for p in catalog.search_products(session, collection_key="hwdrn")}


def test_visibility_must_be_a_boolean(session: Session) -> None:
    with pytest.raises(ValidationError):
        admin_catalog.set_visibility(session, _shown_id(session), "false")


def test_visibility_of_an_unknown_product_is_not_found(session: Session) -> None:
    with pytest.raises(NotFoundError):
        admin_catalog.set_visibility(session, "0" * 24, False)


# --------------------------------------------------------------------------- prices


def test_sync_price_sets_every_variant_at_the_provider_and_in_the_cache(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    before, base = _cached(engine, product_id)[1], _base(provider, product_id)
    row = admin_catalog.sync_price(session, provider, SHOP, product_id, 27.5)
    moved = [price + 2750 - base for price in before]
    assert len(set(before)) > 1  # the sizes' upcharges are what is kept
    assert [v["price"] for v in provider.get_product(SHOP, product_id)["variants"]] == moved
    assert _cached(engine, product_id)[1] == moved
    assert [v.price_cents for v in row.variants] == moved
    assert catalog.get_product(session, product_id).price_cents == 2750


def test_sync_price_refuses_an_invalid_price(session: Session, provider: DemoPrintProvider) -> None:
    with pytest.raises(ValidationError, match="Invalid price value"):
        admin_catalog.sync_price(session, provider, SHOP, _shown_id(session), "-3")


def test_a_refused_price_sync_leaves_the_cached_prices(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    before = _cached(engine, product_id)[1]
    with pytest.raises(ProviderError):
        admin_catalog.sync_price(session, Refusing(provider, "update_product"), SHOP, product_id, "30")  # type: ignore[arg-type]
    assert _cached(engine, product_id)[1] == before


def test_variant_prices_are_set_one_by_one(session: Session, provider: DemoPrintProvider, engine: Engine) -> None:
    product_id = _shown_id(session)
    first, second, third = (v["id"] for v in provider.get_product(SHOP, product_id)["variants"][:3])
    before = _cached(engine, product_id)[1]
    admin_catalog.set_variant_prices(session, provider, SHOP, product_id, {first: "20", second: 21.25})
    assert _cached(engine, product_id)[1][:3] == [2000, 2125, before[2]]
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.set_variant_prices(session, provider, SHOP, product_id, {third: "-1"})
    assert excinfo.value.message == "Invalid price value"
    with pytest.raises(ValidationError):
        admin_catalog.set_variant_prices(session, provider, SHOP, product_id, {999: "1"})


def test_a_provider_shaped_change_needs_cent_prices(session: Session, provider: DemoPrintProvider) -> None:
    product_id = _shown_id(session)
    variant_id = provider.get_product(SHOP, product_id)["variants"][0]["id"]
    for changes in ({"variants": [{"id": variant_id, "price": 29.99}]}, {"colour": "red"}, {}, {"tags": "X"}):
        with pytest.raises(ValidationError):
            admin_catalog.update_provider_product(session, provider, SHOP, product_id, changes)
    row = admin_catalog.update_provider_product(
        session, provider, SHOP, product_id, {"variants": [{"id": variant_id, "price": 1999}]}
    )
    assert row.variants[0].price_cents == 1999


# --------------------------------------------------------------------------- create and publish


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"title": "ab"}, "title", "Title must be at least 3 characters"),
        ({"title": "   "}, "title", "Title must be at least 3 characters"),
        ({"description": "too short"}, "description", "Description must be at least 10 characters"),
        ({"blueprint_id": 5}, "blueprintId", "Please select a product type"),
        ({"print_provider_id": "7"}, "printProviderId", "Please select a print provider"),
        ({"price": "free"}, "price", "Invalid price value"),
        ({"price": -5}, "price", "Invalid price value"),
    ],
)
def test_create_refuses_a_bad_form_before_the_provider_is_asked(
    session: Session, provider: DemoPrintProvider, overrides: dict, field: str, message: str
) -> None:
    spy = Refusing(provider)
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.create_product(session, spy, SHOP, _form(**overrides))  # type: ignore[arg-type]
    assert excinfo.value.field_errors == {field: message}
    assert spy.calls == []


def test_create_makes_every_catalogue_variant_at_the_default_price_plus_its_size_upcharge(
    session: Session, provider: DemoPrintProvider
) -> None:
    row = admin_catalog.create_product(session, provider, SHOP, _form(blueprint_id="388", print_provider_id="2"))
    at_provider = provider.get_product(SHOP, row.id)
    catalogue = provider.catalog_variants(388, 2)["variants"]
    assert [v["id"] for v in at_provider["variants"]] == [v["id"] for v in catalogue]
    cheapest = min(v["cost"] for v in at_provider["variants"])
    assert all(v["price"] == 2999 + v["cost"] - cheapest and v["is_enabled"] for v in at_provider["variants"])
    assert {v["price"] for v in at_provider["variants"]} > {2999}  # 2XL and 3XL cost more to print
    assert (row.price_cents, row.status, row.is_active, row.category) == (2999, "unpublished", True, "hwdzn")
    assert product_rows.product_page(session, shop_id=SHOP, limit=1).rows[0].id == row.id


def test_create_publish_and_the_shopper_sees_it(session: Session, provider: DemoPrintProvider) -> None:
    row = admin_catalog.create_product(session, provider, SHOP, _form(price="35"))
    assert row.id not in {p.id for p in catalog.search_products(session)}
    published = admin_catalog.publish_product(session, provider, SHOP, row.id)
    assert (published.is_published, published.status) == (True, "published")
    listed = {p.id: p for p in catalog.search_products(session, collection_key="hwdzn")}
    assert listed[row.id].price_cents == 3500 and listed[row.id].sizes == ("S", "M", "L", "XL", "2XL", "3XL")
    assert catalog.get_product(session, row.id).name == "HWDZN Summer Tee"
    at_provider = provider.get_product(SHOP, row.id)
    assert (at_provider["is_locked"], at_provider["external"]["handle"]) == (False, f"/product/{row.id}")


def test_a_refused_create_stores_nothing(session: Session, provider: DemoPrintProvider) -> None:
    before = product_rows.product_page(session, shop_id=SHOP).total
    with pytest.raises(ProviderError):
        admin_catalog.create_product(session, Refusing(provider, "create_product"), SHOP, _form())  # type: ignore[arg-type]
    assert product_rows.product_page(session, shop_id=SHOP).total == before


def test_form_from_the_spec_payload_defaults_the_price() -> None:
    form = ProductForm.from_payload({"title": "T", "description": "D", "blueprintId": "384", "printProviderId": 29})
    assert (form.blueprint_id, form.print_provider_id, form.price) == ("384", 29, "29.99")


@pytest.mark.parametrize("product_id", [None, "", "   "])
def test_publish_needs_a_selected_product(
    session: Session, provider: DemoPrintProvider, product_id: str | None
) -> None:
    with pytest.raises(ValidationError) as excinfo:
        admin_catalog.publish_product(session, provider, SHOP, product_id)
    assert excinfo.value.message == "Please select a product to publish"


def test_unpublish_takes_the_product_off_the_storefront(session: Session, provider: DemoPrintProvider) -> None:
    product_id = _shown_id(session)
    row = admin_catalog.unpublish_product(session, provider, SHOP, product_id)
    assert row.status == "unpublished"
    assert product_id not in {p.id for p in catalog.search_products(session)}
    assert provider.get_product(SHOP, product_id)["is_published"] is False


def test_publish_confirms_a_publish_left_unconfirmed(session: Session, provider: DemoPrintProvider) -> None:
    product_id = admin_catalog.create_product(session, provider, SHOP, _form()).id
    provider.publish_product(SHOP, product_id)  # locked, nobody confirmed
    assert admin_catalog.publish_product(session, provider, SHOP, product_id).is_published is True
    assert provider.get_product(SHOP, product_id)["is_locked"] is False


def test_a_failed_confirmation_unlocks_the_product_and_changes_nothing(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = admin_catalog.create_product(session, provider, SHOP, _form()).id
    refusing = Refusing(provider, "publishing_succeeded", error=ProviderUnavailable(status=503))
    with pytest.raises(ProviderUnavailable):
        admin_catalog.publish_product(session, refusing, SHOP, product_id)  # type: ignore[arg-type]
    assert refusing.calls == ["publish_product", "publishing_succeeded", "publishing_failed"]
    assert provider.get_product(SHOP, product_id)["is_locked"] is False
    assert _cached(engine, product_id)[0].is_published is False


# --------------------------------------------------------------------------- catalogue sync


def test_sync_reports_progress_page_by_page(
    session: Session, provider: DemoPrintProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalog_sync, "PAGE_LIMIT", 10)
    total = provider.list_products(SHOP)["total"]
    heard: list[SyncProgress] = []
    result = catalog_sync.sync_shop(session, provider, SHOP, heard.append)
    pages = -(-total // 10)
    assert result == catalog_sync.SyncResult(synced=total, removed=0)
    assert [(p.done, p.total, p.page, p.pages) for p in heard] == [
        (min(10 * n, total), total, n, pages) for n in range(1, pages + 1)
    ]


def test_sync_removes_products_the_provider_no_longer_has(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    gone = {**provider.list_products(SHOP)["data"][0], "id": "f" * 24}
    upsert_product(session, gone, SHOP)
    session.commit()
    result = catalog_sync.sync_shop(session, provider, SHOP)
    assert result.removed == 1
    with Session(engine) as fresh:
        assert fresh.get(CatalogProduct, "f" * 24) is None
        assert not fresh.exec(select(CatalogVariant).where(CatalogVariant.product_id == "f" * 24)).all()
        assert not fresh.exec(select(CatalogImage).where(CatalogImage.product_id == "f" * 24)).all()


class Shifting:
    """A listing that missed a product (as when another was deleted mid-sync); it still exists."""

    def __init__(self, inner: DemoPrintProvider, hidden_id: str) -> None:
        self.inner, self.hidden_id = inner, hidden_id

    def list_products(self, shop_id: int, page: int = 1, limit: int = 50) -> dict:
        envelope = self.inner.list_products(shop_id, page=page, limit=limit)
        envelope["data"] = [p for p in envelope["data"] if p["id"] != self.hidden_id]
        return envelope

    def get_product(self, shop_id: int, product_id: str) -> dict:
        return self.inner.get_product(shop_id, product_id)


def test_sync_keeps_a_product_a_shifting_listing_missed(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    missed = _shown_id(session)
    result = catalog_sync.sync_shop(session, Shifting(provider, missed), SHOP)  # type: ignore[arg-type]
    assert result.removed == 0
    assert _cached(engine, missed)[0].id == missed


def test_refresh_copies_the_providers_product_again(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    product_id = _shown_id(session)
    provider.update_product(SHOP, product_id, {"title": "Changed at the provider"})
    assert admin_catalog.refresh_product(session, provider, SHOP, product_id).title == "Changed at the provider"


def test_refresh_drops_a_product_the_provider_no_longer_has(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    upsert_product(session, {**provider.list_products(SHOP)["data"][0], "id": "e" * 24}, SHOP)
    session.commit()
    with pytest.raises(ProviderNotFound):
        admin_catalog.refresh_product(session, provider, SHOP, "e" * 24)
    with Session(engine) as fresh:
        assert fresh.get(CatalogProduct, "e" * 24) is None


# --------------------------------------------------------------------------- margins


def test_margins_are_price_minus_the_providers_cost(session: Session, provider: DemoPrintProvider) -> None:
    product_id = _shown_id(session)
    product = provider.get_product(SHOP, product_id)
    margins = product_margins.variant_margins(provider, SHOP, product_id)
    assert [(m.id, m.price_cents, m.cost_cents) for m in margins] == [
        (v["id"], v["price"], v["cost"]) for v in product["variants"]
    ]
    assert all(m.margin_cents == m.price_cents - m.cost_cents > 0 for m in margins)
    first = margins[0]
    assert first.margin_percent == round(first.margin_cents * 100 / first.price_cents, 1)
    assert (first.colour, first.size) == tuple(product["variants"][0]["title"].split(" / "))


def test_a_price_below_cost_shows_a_negative_margin(session: Session, provider: DemoPrintProvider) -> None:
    row = admin_catalog.create_product(session, provider, SHOP, _form(price="5"))
    margins = product_margins.variant_margins(provider, SHOP, row.id)
    cheapest = min(m.cost_cents for m in margins)
    assert all(m.margin_cents == 500 - cheapest < 0 for m in margins)  # every size keeps the base size's margin


def test_margin_of_a_free_variant_has_no_percentage() -> None:
    product = {"variants": [{"id": 1, "title": "White / S", "price": 0, "cost": 100, "is_enabled": True}]}
    (margin,) = product_margins.margins_of(product)
    assert (margin.margin_cents, margin.margin_percent, margin.colour, margin.size) == (-100, None, "White", "S")


# --------------------------------------------------------------------------- small rules


def test_provider_reason_prefers_the_validation_reason() -> None:
    assert provider_reason(validation_error("title: Too long.")) == "title: Too long."
    assert provider_reason(ProviderNotFound(details={"error": "Not found"})) == "Not found"
    assert provider_reason(ProviderUnavailable("Service Unavailable")) == "Service Unavailable"


@pytest.mark.parametrize(
    ("value", "cents"), [("29.99", 2999), (0, 0), (12, 1200), ("0.005", 1), (99_999.99, 9_999_999)]
)
def test_parse_price_reads_dollars_as_typed(value: object, cents: int) -> None:
    assert product_forms.parse_price(value) == cents


def test_serialized_rows_carry_dollars_and_cent_variant_prices(session: Session) -> None:
    row = product_rows.product_page(session, shop_id=SHOP, limit=1).rows[0]
    body = product_rows.serialize_row(row)
    assert body["price"] == f"{row.price_cents / 100:.2f}"
    assert body["variants"][0]["price"] == row.variants[0].price_cents
    assert json.loads(json.dumps(body)) == body


# --------------------------------------------------------------------------- archive


def _in_store(session: Session, product_id: str) -> bool:
    try:
        catalog.get_product(session, product_id)
    except NotFoundError:
        return False
    return True


def test_an_archived_product_leaves_the_store_and_the_lists_but_not_the_provider(
    session: Session, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(session)
    total = product_rows.product_page(session, shop_id=SHOP).total
    row = admin_catalog.archive_product(session, provider, SHOP, product_id)
    assert (row.archived, row.is_active) == (True, False)
    assert not _in_store(session, product_id)
    assert product_id not in {p.id for p in catalog.search_products(session)}
    assert product_rows.product_page(session, shop_id=SHOP).total == total - 1
    assert [r.id for r in product_rows.product_page(session, shop_id=SHOP, archived=True).rows] == [product_id]
    assert provider.get_product(SHOP, product_id)["id"] == product_id  # left alone at the provider


def test_a_sync_keeps_an_archived_product_archived_even_once_the_provider_deleted_it(
    session: Session, provider: DemoPrintProvider, engine: Engine
) -> None:
    kept, deleted = _shown_id(session, "hwdkn"), _shown_id(session, "hwdrn")
    admin_catalog.archive_product(session, provider, SHOP, kept)
    admin_catalog.archive_product(session, provider, SHOP, deleted, delete_at_provider=True)
    with pytest.raises(ProviderNotFound):
        provider.get_product(SHOP, deleted)
    catalog_sync.sync_shop(session, provider, SHOP)
    for product_id in (kept, deleted):
        cached = _cached(engine, product_id)[0]
        assert (cached.archived_at is not None, cached.is_active) == (True, False)
    assert not _in_store(session, kept)


def test_archiving_twice_or_deleting_what_the_provider_lost_already_is_fine(
    session: Session, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(session)
    provider.delete_product(SHOP, product_id)
    assert admin_catalog.archive_product(session, provider, SHOP, product_id, delete_at_provider=True).archived
    assert admin_catalog.archive_product(session, provider, SHOP, product_id).archived
    with pytest.raises(NotFoundError):
        admin_catalog.archive_product(session, provider, SHOP, "0" * 24)


def test_a_restored_product_comes_back_as_it_was_before_archive(
    session: Session, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(session)
    admin_catalog.archive_product(session, provider, SHOP, product_id)
    assert not _in_store(session, product_id)
    admin_catalog.archive_product(session, provider, SHOP, product_id)  # twice: it was still shown before
    row = admin_catalog.restore_product(session, product_id)
    assert (row.archived, row.is_active) == (False, True)
    assert product_id in {r.id for r in product_rows.product_page(session, shop_id=SHOP, limit=100).rows}
    assert _in_store(session, product_id)
    # A product hidden before Archive stays hidden after Restore.
    admin_catalog.set_visibility(session, product_id, False)
    admin_catalog.archive_product(session, provider, SHOP, product_id)
    row = admin_catalog.restore_product(session, product_id)
    assert (row.archived, row.is_active) == (False, False)
    assert not _in_store(session, product_id)
    admin_catalog.set_visibility(session, product_id, True)
    assert _in_store(session, product_id)


def test_a_product_made_from_a_design_shows_one_mockup_per_colour(
    session: Session, provider: DemoPrintProvider
) -> None:
    created = admin_catalog.create_designed_product(session, provider, SHOP, _form(colors=["White", "Black"]))
    assert len(created.mockups) == 2 and created.upload_id
    at_provider = provider.get_product(SHOP, created.row.id)
    area = at_provider["print_areas"][0]
    assert area["placeholders"][0]["images"][0]["id"] == created.upload_id
    assert set(area["variant_ids"]) == {v["id"] for v in at_provider["variants"]}
    assert len(product_rows.mockup_urls(session, created.row.id)) == 2
