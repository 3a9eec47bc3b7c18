"""How the Sync & Pricing tab and /admin/products show products, margins and sync progress."""

from __future__ import annotations

from storefront.services.admin.product_margins import VariantMargin
from storefront.services.admin.product_rows import AdminProductRow, VariantRow
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.services.printify.provider import validation_error
from storefront.state.admin.catalog_calls import failure_text
from storefront.state.admin.product_management import (
    PRINT_PROVIDER_OPTIONS,
    PRODUCT_TYPE_OPTIONS,
    to_option,
)
from storefront.state.admin.product_views import (
    percent_text,
    price_text,
    progress_percent,
    to_margin_row,
    to_row,
    to_variant_price,
    variant_label,
    variant_preview,
    variant_prices_from_form,
)


def _variant(variant_id: int, size: str = "M", colour: str = "White", price: int = 2999, title: str = "") -> VariantRow:
    return VariantRow(id=variant_id, title=title, size=size, colour=colour, price_cents=price, enabled=True)


def _row(*variants: VariantRow, published: bool = False, price: int | None = 2999) -> AdminProductRow:
    return AdminProductRow(
        id="p1",
        shop_id=7,
        title="Crimson Tee",
        description="A tee.",
        description_html="<p>A tee.</p>",
        price_cents=price,
        category="swdnn",
        is_active=True,
        is_published=published,
        status="published" if published else "unpublished",
        variants=tuple(variants),
    )


def _margin(price: int, cost: int, percent: float | None) -> VariantMargin:
    return VariantMargin(
        id=1, title="White / M", size="M", colour="White", enabled=True,
        price_cents=price, cost_cents=cost, margin_cents=price - cost, margin_percent=percent,
    )


def test_a_row_shows_its_price_in_dollars_and_keeps_the_typed_form_for_the_price_input() -> None:
    row = to_row(_row(_variant(1), _variant(2), price=3150))
    assert row == {
        "id": "p1",
        "shop_id": "7",
        "title": "Crimson Tee",
        "status": "Unpublished",
        "published": False,
        "price": "$31.50",
        "price_value": "31.50",
        "variant_count": "2",
        "price_note": "Base price: every size sells at it",
        "thumbnail": "",
    }


def test_a_rows_note_names_the_upcharges_a_new_price_keeps() -> None:
    row = to_row(_row(_variant(1, "S", price=2699), _variant(2, "2XL", price=2899), _variant(3, "3XL", price=2999)))
    assert row["price_note"] == "Base price; larger sizes keep their +$2.00 / +$3.00"


def test_a_product_without_an_enabled_variant_shows_a_dash_and_an_empty_price_input() -> None:
    row = to_row(_row(price=None))
    assert (row["price"], row["price_value"]) == ("—", "")
    assert price_text(None) == "—"


def test_a_published_row_says_published() -> None:
    assert to_row(_row(published=True))["status"] == "Published"


def test_a_variant_is_named_by_colour_and_size_else_by_its_title() -> None:
    assert variant_label(_variant(1, "L", "Black")) == "Black / L"
    assert variant_label(_variant(1, "", "", title="One size")) == "One size"


def test_the_details_show_the_first_three_variants_and_how_many_more() -> None:
    shown, more = variant_preview(_row(*[_variant(i, size=s) for i, s in enumerate(["S", "M", "L", "XL", "2XL"])]))
    assert shown == ["White / S — $29.99", "White / M — $29.99", "White / L — $29.99"]
    assert more == 2


def test_a_product_with_few_variants_has_none_more() -> None:
    assert variant_preview(_row(_variant(1)))[1] == 0


def test_the_pricing_editor_offers_each_variant_at_its_price_in_dollars() -> None:
    assert to_variant_price(_variant(42, price=3300)) == {
        "id": "42",
        "label": "White / M",
        "price": "33.00",
        "enabled": True,
    }


def test_the_pricing_editor_form_becomes_variant_ids_and_prices_as_typed() -> None:
    form = {"price-101": "31.50", "price-102": "", "title": "ignored", "price-x": "1"}
    assert variant_prices_from_form(form) == {101: "31.50", 102: ""}


def test_a_margin_row_shows_price_cost_margin_and_percentage() -> None:
    assert to_margin_row(_margin(2999, 1175, 60.8)) == {
        "variant": "White / M",
        "price": "$29.99",
        "cost": "$11.75",
        "margin": "$18.24",
        "percent": "60.8%",
        "loss": False,
    }


def test_a_variant_sold_below_cost_is_a_loss() -> None:
    row = to_margin_row(_margin(1000, 1175, -17.5))
    assert (row["margin"], row["percent"], row["loss"]) == ("-$1.75", "-17.5%", True)


def test_a_free_variant_has_no_margin_percentage() -> None:
    assert percent_text(None) == "—"


def test_sync_progress_is_products_done_of_the_total_in_percent() -> None:
    assert progress_percent(0, 0) == 0
    assert progress_percent(5, 20) == 25
    assert progress_percent(20, 20) == 100
    assert progress_percent(25, 20) == 100


def test_a_provider_refusal_is_told_in_the_providers_words() -> None:
    assert failure_text(validation_error("title: Too long."), "fallback") == "title: Too long."


def test_a_service_refusal_is_told_by_its_message_and_anything_else_by_the_fallback() -> None:
    assert failure_text(ValidationError("Invalid price value"), "fallback") == "Invalid price value"
    assert failure_text(ServiceError(""), "fallback") == "fallback"
    assert failure_text(RuntimeError("boom"), "fallback") == "fallback"


def test_the_create_form_offers_the_five_product_types_and_four_print_providers_by_name() -> None:
    assert PRODUCT_TYPE_OPTIONS == [
        ("384", "Unisex Premium T-Shirt"),
        ("386", "Women's Premium T-Shirt"),
        ("387", "Men's Premium T-Shirt"),
        ("388", "Unisex Hoodie"),
        ("400", "Unisex Crewneck Sweatshirt"),
    ]
    assert PRINT_PROVIDER_OPTIONS == [
        ("1", "custom products provider"),
        ("2", "ArtsAdd"),
        ("3", "T-Pop"),
        ("29", "SwiftPOD"),
    ]


def test_the_publish_select_names_each_product_with_its_status() -> None:
    assert to_option(_row()) == {"id": "p1", "label": "Crimson Tee (Unpublished)", "published": False}
