"""The in-memory demo Printify provider: catalogue shape, pagination, orders and images."""

from __future__ import annotations

import base64
import re
import threading
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from storefront.services.collections import COLLECTIONS
from storefront.services.media.images import cutout_path
from storefront.services.platform.errors import ServiceError
from storefront.services.printify import (
    DemoPrintProvider,
    PrintProvider,
    ProviderError,
    ProviderNotFound,
    paginate,
)
from storefront.services.printify.errors import ProviderRateLimited, ProviderUnavailable
from tests.designs import design_png

SHOP = 1
HEX24 = re.compile(r"^[0-9a-f]{24}$")
PRINTIFY_TIME = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00$")
PRICE_RANGES = {384: (2499, 2999), 388: (4499, 5499), 400: (3499, 3999)}
ADDRESS = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email": "ada@example.com",
    "phone": "5550100",
    "country": "US",
    "region": "NY",
    "address1": "1 Main St",
    "address2": "",
    "city": "New York",
    "zip": "10001",
}


@pytest.fixture
def provider(tmp_path: Path) -> DemoPrintProvider:
    return DemoPrintProvider(tmp_path / "demo", image_size=96)


def _products(provider: DemoPrintProvider) -> list[dict]:
    return provider.list_products(SHOP, page=1, limit=50)["data"]


def _enabled_line(provider: DemoPrintProvider, quantity: int = 1) -> tuple[dict, dict, dict]:
    product = _products(provider)[0]
    variant = next(v for v in product["variants"] if v["is_enabled"])
    return product, variant, {"product_id": product["id"], "variant_id": variant["id"], "quantity": quantity}


def _order(*items: dict, external_id: str = "SO-1001", address: dict | None = None) -> dict:
    return {
        "external_id": external_id,
        "label": external_id,
        "line_items": list(items),
        "shipping_method": 1,
        "send_shipping_notification": False,
        "address_to": dict(ADDRESS) if address is None else address,
    }


def _validation_reason(excinfo: pytest.ExceptionInfo[ProviderError]) -> str:
    error = excinfo.value
    assert (error.status, error.code, error.message) == (400, 8150, "Validation failed.")
    assert error.details["status"] == "error" and error.details["errors"]["code"] == 8150
    return error.details["errors"]["reason"]


# ---------------------------------------------------------------- protocol, shops, errors


def test_demo_provider_satisfies_the_protocol(provider: DemoPrintProvider) -> None:
    assert isinstance(provider, PrintProvider)


def test_list_shops_returns_the_demo_shop(provider: DemoPrintProvider) -> None:
    assert provider.list_shops() == [
        {"id": 1, "title": "Storefront Demo Shop", "sales_channel": "custom_integration"}
    ]


def test_provider_errors_are_service_errors_with_status_and_code() -> None:
    error = ProviderError("Validation failed.", status=400, code=8150, details={"code": 8150})
    assert isinstance(error, ServiceError)
    assert (error.status_code, error.status, error.code, error.details) == (502, 400, 8150, {"code": 8150})
    assert ProviderNotFound().status_code == 404
    assert ProviderRateLimited(retry_after=2.5).retry_after == 2.5
    assert isinstance(ProviderUnavailable(status=503), ProviderError)


def test_unknown_shop_raises_not_found(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderNotFound):
        provider.list_products(99)


# ---------------------------------------------------------------- catalogue


def test_every_collection_has_at_least_four_visible_products(provider: DemoPrintProvider) -> None:
    visible = [p for p in _products(provider) if p["visible"]]
    per_key = Counter(tag for p in visible for tag in p["tags"])
    assert all(per_key[c.key.upper()] >= 4 for c in COLLECTIONS), per_key


def test_product_titles_and_tags_name_the_collection_and_garment(provider: DemoPrintProvider) -> None:
    garment_tags = {384: "T-Shirt", 388: "Hoodie", 400: "Crewneck"}
    for product in _products(provider):
        label, garment = product["tags"]
        assert product["title"].startswith(f"{label} ")
        assert garment == garment_tags[product["blueprint_id"]]
        assert product["description"].startswith("<p>") and product["description"].endswith("</p>")


def test_product_text_mentions_no_other_collections_keywords(provider: DemoPrintProvider) -> None:
    for product in _products(provider):
        own = product["tags"][0].lower()
        text = f"{product['title']} {product['description']}".lower()
        foreign = [kw for c in COLLECTIONS if c.key != own for kw in c.keywords if kw in text]
        assert foreign == [], (product["title"], foreign)


def test_some_products_have_disabled_variants(provider: DemoPrintProvider) -> None:
    products = _products(provider)
    with_disabled = [p for p in products if not all(v["is_enabled"] for v in p["variants"])]
    fully_enabled = [p for p in products if all(v["is_enabled"] for v in p["variants"])]
    assert len(with_disabled) >= 5 and fully_enabled


def test_enabled_sizes_differ_between_products(provider: DemoPrintProvider) -> None:
    enabled_sizes = {
        frozenset(v["title"].split(" / ")[1] for v in p["variants"] if v["is_enabled"]) for p in _products(provider)
    }
    assert len(enabled_sizes) >= 3


def test_every_product_has_exactly_one_enabled_default_variant(provider: DemoPrintProvider) -> None:
    for product in _products(provider):
        defaults = [v for v in product["variants"] if v["is_default"]]
        assert len(defaults) == 1 and defaults[0]["is_enabled"], product["title"]


def test_prices_and_costs_are_integer_cents_in_garment_ranges(provider: DemoPrintProvider) -> None:
    for product in _products(provider):
        low, high = PRICE_RANGES[product["blueprint_id"]]
        for variant in product["variants"]:
            assert type(variant["price"]) is int and type(variant["cost"]) is int
            assert low <= variant["price"] <= high
            assert 0 < variant["cost"] < variant["price"]


def test_bigger_sizes_cost_more(provider: DemoPrintProvider) -> None:
    product = _products(provider)[0]
    price = {v["title"].split(" / ")[1]: v["price"] for v in product["variants"]}
    assert price["M"] < price["2XL"] < price["3XL"]


def test_variant_options_point_at_colour_and_size_values(provider: DemoPrintProvider) -> None:
    for product in _products(provider):
        colours, sizes = product["options"]
        assert (colours["name"], colours["type"], sizes["name"], sizes["type"]) == ("Colors", "color", "Sizes", "size")
        titles = {value["id"]: value["title"] for option in product["options"] for value in option["values"]}
        assert [s["title"] for s in sizes["values"]] == ["S", "M", "L", "XL", "2XL", "3XL"]
        for variant in product["variants"]:
            colour_id, size_id = variant["options"]
            assert variant["title"] == f"{titles[colour_id]} / {titles[size_id]}"


def test_product_ids_are_unique_24_hex_and_stable_across_instances(tmp_path: Path) -> None:
    first = [p["id"] for p in _products(DemoPrintProvider(tmp_path / "a"))]
    second = [p["id"] for p in _products(DemoPrintProvider(tmp_path / "b"))]
    assert first == second
    assert len(set(first)) == len(first) >= 20
    assert all(HEX24.match(pid) for pid in first)


def test_products_are_listed_newest_first(provider: DemoPrintProvider) -> None:
    stamps = [p["created_at"] for p in _products(provider)]
    assert all(PRINTIFY_TIME.match(s) for s in stamps)
    assert stamps == sorted(stamps, reverse=True) and len(set(stamps)) == len(stamps)


def test_some_products_are_hidden_drafts(provider: DemoPrintProvider) -> None:
    hidden = [p for p in _products(provider) if not p["visible"]]
    assert hidden and all(p["is_published"] is False for p in hidden)


def test_images_start_with_the_default_front_mockup(provider: DemoPrintProvider) -> None:
    for product in _products(provider):
        first, second = product["images"][:2]
        assert first["src"] == f"/uploads/demo/{product['id']}-front.png"
        assert (first["position"], first["is_default"]) == ("front", True)
        assert (second["position"], second["is_default"]) == ("back", False)
        enabled = {v["id"] for v in product["variants"] if v["is_enabled"]}
        assert set(first["variant_ids"]) <= enabled and first["variant_ids"]


def test_get_product_returns_the_listed_product(provider: DemoPrintProvider) -> None:
    listed = _products(provider)[3]
    assert provider.get_product(SHOP, listed["id"]) == listed


def test_get_product_returns_a_copy(provider: DemoPrintProvider) -> None:
    product_id = _products(provider)[0]["id"]
    provider.get_product(SHOP, product_id)["variants"].clear()
    assert provider.get_product(SHOP, product_id)["variants"]


def test_get_product_with_unknown_id_raises_not_found(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderNotFound) as excinfo:
        provider.get_product(SHOP, "0" * 24)
    assert excinfo.value.status == 404


# ---------------------------------------------------------------- pagination


def test_list_products_returns_a_laravel_pagination_envelope(provider: DemoPrintProvider) -> None:
    total = len(_products(provider))
    page = provider.list_products(SHOP, page=2, limit=10)
    assert {k: v for k, v in page.items() if k != "data"} == {
        "current_page": 2,
        "first_page_url": "/?page=1",
        "from": 11,
        "last_page": -(-total // 10),
        "last_page_url": f"/?page={-(-total // 10)}",
        "next_page_url": "/?page=3" if total > 20 else None,
        "path": "/",
        "per_page": 10,
        "prev_page_url": "/?page=1",
        "to": 20,
        "total": total,
    }
    assert [p["id"] for p in page["data"]] == [p["id"] for p in _products(provider)[10:20]]


def test_last_page_has_no_next_page_url() -> None:
    page = paginate(list(range(23)), page=3, limit=10)
    assert (page["data"], page["next_page_url"], page["from"], page["to"]) == ([20, 21, 22], None, 21, 23)


def test_page_past_the_end_is_empty() -> None:
    page = paginate(list(range(5)), page=4, limit=10)
    assert (page["data"], page["from"], page["to"], page["last_page"]) == ([], None, None, 1)


def test_limit_over_50_is_rejected(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderError) as excinfo:
        provider.list_products(SHOP, page=1, limit=51)
    assert (excinfo.value.status, excinfo.value.message) == (400, "The limit may not be greater than 50.")


# ---------------------------------------------------------------- orders


def test_create_order_returns_only_an_id(provider: DemoPrintProvider) -> None:
    _, _, line = _enabled_line(provider)
    created = provider.create_order(SHOP, _order(line))
    assert list(created) == ["id"] and HEX24.match(created["id"])


def test_get_order_shows_the_submitted_order_as_pending(provider: DemoPrintProvider) -> None:
    product, variant, line = _enabled_line(provider, quantity=2)
    order_id = provider.create_order(SHOP, _order(line, external_id="SO-42"))["id"]
    order = provider.get_order(SHOP, order_id)
    assert order["id"] == order_id and order["status"] == "pending"
    assert order["metadata"]["shop_order_id"] == "SO-42"
    assert order["address_to"] == ADDRESS
    assert order["total_price"] == variant["price"] * 2
    assert (order["total_shipping"], order["total_tax"], order["shipments"]) == (0, 0, [])
    assert PRINTIFY_TIME.match(order["created_at"])
    (item,) = order["line_items"]
    assert (item["product_id"], item["variant_id"], item["quantity"]) == (product["id"], variant["id"], 2)
    assert item["metadata"] == {
        "title": product["title"],
        "price": variant["price"],
        "variant_label": variant["title"],
        "sku": variant["sku"],
        "country": "United States",
    }


def test_get_order_with_unknown_id_raises_not_found(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderNotFound):
        provider.get_order(SHOP, "f" * 24)


def test_create_order_with_a_disabled_variant_fails_validation(provider: DemoPrintProvider) -> None:
    product = next(p for p in _products(provider) if not all(v["is_enabled"] for v in p["variants"]))
    disabled = next(v for v in product["variants"] if not v["is_enabled"])
    line = {"product_id": product["id"], "variant_id": disabled["id"], "quantity": 1}
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order(line))
    assert "line_items.0.variant_id" in _validation_reason(excinfo)


def test_create_order_with_an_unknown_product_fails_validation(provider: DemoPrintProvider) -> None:
    _, variant, _ = _enabled_line(provider)
    line = {"product_id": "0" * 24, "variant_id": variant["id"], "quantity": 1}
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order(line))
    assert "line_items.0.product_id" in _validation_reason(excinfo)


def test_create_order_with_a_variant_of_another_product_fails_validation(provider: DemoPrintProvider) -> None:
    product, _, _ = _enabled_line(provider)
    line = {"product_id": product["id"], "variant_id": 999999, "quantity": 1}
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order(line))
    assert "line_items.0.variant_id" in _validation_reason(excinfo)


@pytest.mark.parametrize("field", ["first_name", "last_name", "country", "address1", "city", "zip"])
def test_create_order_with_a_missing_address_field_fails_validation(provider: DemoPrintProvider, field: str) -> None:
    _, _, line = _enabled_line(provider)
    address = {k: v for k, v in ADDRESS.items() if k != field}
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order(line, address=address))
    assert f"address_to.{field}" in _validation_reason(excinfo)


def test_create_order_without_line_items_fails_validation(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order())
    assert "line_items" in _validation_reason(excinfo)


@pytest.mark.parametrize("quantity", [0, -1, "2", 1.5])
def test_create_order_with_a_bad_quantity_fails_validation(provider: DemoPrintProvider, quantity: object) -> None:
    _, _, line = _enabled_line(provider)
    with pytest.raises(ProviderError) as excinfo:
        provider.create_order(SHOP, _order({**line, "quantity": quantity}))
    assert "line_items.0.quantity" in _validation_reason(excinfo)


def test_rejected_order_is_not_stored(provider: DemoPrintProvider) -> None:
    _, _, line = _enabled_line(provider)
    with pytest.raises(ProviderError):
        provider.create_order(SHOP, _order(line, address={}))
    assert provider.list_orders(SHOP)["total"] == 0


def test_advance_order_walks_to_fulfilled_with_a_usps_tracking_number(provider: DemoPrintProvider) -> None:
    _, _, line = _enabled_line(provider)
    order_id = provider.create_order(SHOP, _order(line))["id"]
    statuses = [provider.advance_order(order_id)["status"] for _ in range(3)]
    order = provider.get_order(SHOP, order_id)
    assert statuses == ["on-hold", "in-production", "fulfilled"]
    assert order["status"] == "fulfilled" and PRINTIFY_TIME.match(order["fulfilled_at"])
    (shipment,) = order["shipments"]
    assert shipment["carrier"] == "usps" and re.fullmatch(r"\d{22}", shipment["number"])
    assert shipment["number"] in shipment["url"]
    assert {item["status"] for item in order["line_items"]} == {"fulfilled"}


def test_advance_order_past_fulfilled_fails(provider: DemoPrintProvider) -> None:
    _, _, line = _enabled_line(provider)
    order_id = provider.create_order(SHOP, _order(line))["id"]
    for _ in range(3):
        provider.advance_order(order_id)
    with pytest.raises(ProviderError) as excinfo:
        provider.advance_order(order_id)
    assert (excinfo.value.status, excinfo.value.code) == (400, 8502)


def test_concurrent_orders_all_get_distinct_ids(provider: DemoPrintProvider) -> None:
    _, _, line = _enabled_line(provider)
    ids: list[str] = []

    def place() -> None:
        for n in range(10):
            ids.append(provider.create_order(SHOP, _order(line, external_id=f"T-{n}"))["id"])

    threads = [threading.Thread(target=place) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(ids)) == 40
    assert provider.list_orders(SHOP, limit=50)["total"] == 40


# ---------------------------------------------------------------- images


def test_ensure_images_writes_every_referenced_image_and_front_cutout_once(
    provider: DemoPrintProvider, tmp_path: Path
) -> None:
    written = provider.ensure_images()
    images = [image for p in _products(provider) for image in p["images"]]
    srcs = {image["src"].rsplit("/", 1)[1] for image in images}
    cutouts = {cutout_path(Path(image["src"])).name for image in images if image["position"] == "front"}
    files = {path.name for path in (tmp_path / "demo").iterdir()}
    assert cutouts and written == len(srcs) + len(cutouts) == len(files)
    assert files == srcs | cutouts
    with Image.open(tmp_path / "demo" / sorted(cutouts)[0]) as cutout:
        assert cutout.mode == "RGBA" and cutout.getextrema()[3][0] == 0  # a transparent background
    assert provider.ensure_images() == 0


# ---------------------------------------------------------------- catalogue variants


SPEC_BLUEPRINTS = (384, 386, 387, 388, 400)
SPEC_PRINT_PROVIDERS = (1, 2, 3, 29)


def _create_body(
    provider: DemoPrintProvider, blueprint_id: int = 384, print_provider_id: int = 29, price: int = 2999
) -> dict:
    variants = provider.catalog_variants(blueprint_id, print_provider_id)["variants"]
    return {
        "title": "HWDZN Summer Tee",
        "description": "<p>A light tee for the summer.</p>",
        "blueprint_id": blueprint_id,
        "print_provider_id": print_provider_id,
        "variants": [{"id": v["id"], "price": price, "is_enabled": True} for v in variants],
        "print_areas": _print_areas(provider, [v["id"] for v in variants]),
    }


def _print_areas(provider: DemoPrintProvider, variant_ids: list[int], position: str = "front") -> list[dict]:
    upload = provider.upload_image("design.png", contents=base64.b64encode(design_png(600, 680)).decode())
    image = {"id": upload["id"], "x": 0.5, "y": 0.5, "scale": 1, "angle": 0}
    return [{"variant_ids": variant_ids, "placeholders": [{"position": position, "images": [image]}]}]


@pytest.mark.parametrize("blueprint_id", SPEC_BLUEPRINTS)
@pytest.mark.parametrize("print_provider_id", SPEC_PRINT_PROVIDERS)
def test_catalog_variants_cover_the_spec_blueprints_and_print_providers(
    provider: DemoPrintProvider, blueprint_id: int, print_provider_id: int
) -> None:
    catalogue = provider.catalog_variants(blueprint_id, print_provider_id)
    assert catalogue["id"] == print_provider_id and catalogue["title"]
    options = [v["options"] for v in catalogue["variants"]]
    assert {o["size"] for o in options} == {"S", "M", "L", "XL", "2XL", "3XL"}
    assert len({o["color"] for o in options}) >= 2
    assert all(v["title"] == f"{v['options']['color']} / {v['options']['size']}" for v in catalogue["variants"])
    assert all(v["placeholders"][0]["position"] == "front" for v in catalogue["variants"])
    assert len({v["id"] for v in catalogue["variants"]}) == len(catalogue["variants"])


@pytest.mark.parametrize(("blueprint_id", "print_provider_id"), [(999, 29), (384, 999), (True, 29)])
def test_catalog_variants_of_an_unknown_blueprint_or_print_provider_are_not_found(
    provider: DemoPrintProvider, blueprint_id: int, print_provider_id: int
) -> None:
    with pytest.raises(ProviderNotFound):
        provider.catalog_variants(blueprint_id, print_provider_id)


# ---------------------------------------------------------------- creating products


def test_create_product_answers_the_full_unpublished_product(provider: DemoPrintProvider) -> None:
    body = _create_body(provider)
    created = provider.create_product(SHOP, body)
    assert HEX24.match(created["id"])
    assert (created["title"], created["description"]) == (body["title"], body["description"])
    assert (created["blueprint_id"], created["print_provider_id"], created["shop_id"]) == (384, 29, SHOP)
    assert (created["visible"], created["is_published"], created["is_locked"]) == (False, False, False)
    assert [v["id"] for v in created["variants"]] == [v["id"] for v in body["variants"]]
    assert all(v["price"] == 2999 and v["is_enabled"] for v in created["variants"])
    assert PRINTIFY_TIME.match(created["created_at"])
    assert provider.get_product(SHOP, created["id"]) == created


def test_created_products_are_listed_first(provider: DemoPrintProvider) -> None:
    created = provider.create_product(SHOP, _create_body(provider))
    assert _products(provider)[0]["id"] == created["id"]


def test_created_product_variants_name_their_colour_and_size(provider: DemoPrintProvider) -> None:
    created = provider.create_product(SHOP, _create_body(provider))
    titles = {value["id"]: value["title"] for option in created["options"] for value in option["values"]}
    for variant in created["variants"]:
        colour_id, size_id = variant["options"]
        assert variant["title"] == f"{titles[colour_id]} / {titles[size_id]}"
    assert len({v["sku"] for v in created["variants"]}) == len(created["variants"])
    assert sum(v["is_default"] for v in created["variants"]) == 1


@pytest.mark.parametrize("blueprint_id", SPEC_BLUEPRINTS)
@pytest.mark.parametrize("print_provider_id", SPEC_PRINT_PROVIDERS)
def test_created_product_costs_are_cents_below_the_default_price(
    provider: DemoPrintProvider, blueprint_id: int, print_provider_id: int
) -> None:
    created = provider.create_product(SHOP, _create_body(provider, blueprint_id, print_provider_id))
    costs = {v["title"].split(" / ")[1]: v["cost"] for v in created["variants"]}
    assert all(type(cost) is int and 0 < cost < 2999 for cost in costs.values())
    assert costs["M"] <= costs["2XL"] <= costs["3XL"]


def test_created_product_mockups_are_rendered(provider: DemoPrintProvider, tmp_path: Path) -> None:
    created = provider.create_product(SHOP, _create_body(provider))
    assert created["images"][0]["is_default"] and created["images"][0]["position"] == "front"
    for image in created["images"]:
        assert (tmp_path / "demo" / image["src"].rsplit("/", 1)[1]).is_file()


def test_created_product_keeps_only_the_listed_variants(provider: DemoPrintProvider) -> None:
    body = _create_body(provider)
    body["variants"] = body["variants"][:2] + [{**body["variants"][2], "is_enabled": False}]
    body["print_areas"] = _print_areas(provider, [v["id"] for v in body["variants"]])
    created = provider.create_product(SHOP, body)
    assert [v["is_enabled"] for v in created["variants"]] == [True, True, False]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": ""}, "title"),
        ({"blueprint_id": 5}, "blueprint_id"),
        ({"print_provider_id": "29"}, "print_provider_id"),
        ({"variants": []}, "variants"),
        ({"variants": [{"id": 1, "price": 2999}]}, "variants.0.id"),
        ({"variants": [{"price": 29.99}]}, "variants.0.price"),
        ({"variants": [{"price": -1}]}, "variants.0.price"),
        ({"variants": [{"price": 2999, "is_enabled": False}]}, "variants"),
        ({"print_areas": []}, "print_areas"),
    ],
)
def test_create_product_refuses_a_bad_body_and_stores_nothing(
    provider: DemoPrintProvider, change: dict, field: str
) -> None:
    before = provider.list_products(SHOP)["total"]
    body = {**_create_body(provider), **change}
    first_id = _create_body(provider)["variants"][0]["id"]
    body["variants"] = [{"id": first_id, **v} for v in body["variants"]]
    with pytest.raises(ProviderError) as excinfo:
        provider.create_product(SHOP, body)
    assert _validation_reason(excinfo).startswith(f"{field}:")
    assert provider.list_products(SHOP)["total"] == before


def test_create_product_refuses_an_image_that_was_not_uploaded(provider: DemoPrintProvider) -> None:
    body = _create_body(provider)
    body["print_areas"][0]["placeholders"][0]["images"][0]["id"] = "f" * 24
    with pytest.raises(ProviderError) as excinfo:
        provider.create_product(SHOP, body)
    assert _validation_reason(excinfo).startswith("print_areas.0.placeholders.0.images.0.id:")


def test_created_mockups_carry_the_design_on_each_colour(provider: DemoPrintProvider, tmp_path: Path) -> None:
    created = provider.create_product(SHOP, _create_body(provider))
    fronts = [image for image in created["images"] if image["position"] == "front"]
    assert len(fronts) == 2  # White and Black
    for image in fronts:
        with Image.open(tmp_path / "demo" / image["src"].rsplit("/", 1)[1]) as mockup:
            centre = mockup.convert("RGB").getpixel((mockup.width // 2, round(mockup.height * 0.457)))
        assert centre == (200, 16, 46)  # the design's red, over white and black blanks alike


# ---------------------------------------------------------------- updating products


def test_update_product_changes_title_description_tags_and_variant_prices(provider: DemoPrintProvider) -> None:
    product = _products(provider)[0]
    first, second = product["variants"][:2]
    updated = provider.update_product(
        SHOP,
        product["id"],
        {
            "title": "New title",
            "description": "<p>New words</p>",
            "tags": ["HWDZN"],
            "variants": [{"id": first["id"], "price": 3100, "is_enabled": False}],
        },
    )
    assert (updated["title"], updated["description"], updated["tags"]) == ("New title", "<p>New words</p>", ["HWDZN"])
    assert (updated["variants"][0]["price"], updated["variants"][0]["is_enabled"]) == (3100, False)
    assert updated["variants"][1] == second
    assert updated["updated_at"] >= product["updated_at"]
    assert provider.get_product(SHOP, product["id"]) == updated


def test_update_product_of_an_unknown_product_is_not_found(provider: DemoPrintProvider) -> None:
    with pytest.raises(ProviderNotFound):
        provider.update_product(SHOP, "0" * 24, {"title": "x"})


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"title": ""}, "title"),
        ({"tags": "HWDZN"}, "tags"),
        ({"variants": [{"id": 1, "price": 100}]}, "variants.0.id"),
        ({"variants": "all"}, "variants"),
    ],
)
def test_update_product_refuses_bad_changes_and_changes_nothing(
    provider: DemoPrintProvider, changes: dict, field: str
) -> None:
    product = _products(provider)[0]
    with pytest.raises(ProviderError) as excinfo:
        provider.update_product(SHOP, product["id"], {"description": "<p>changed</p>", **changes})
    assert _validation_reason(excinfo).startswith(f"{field}:")
    assert provider.get_product(SHOP, product["id"]) == product


def test_a_variant_price_in_dollars_is_refused(provider: DemoPrintProvider) -> None:
    product = _products(provider)[0]
    variant_id = product["variants"][0]["id"]
    with pytest.raises(ProviderError) as excinfo:
        provider.update_product(SHOP, product["id"], {"variants": [{"id": variant_id, "price": 29.99}]})
    assert _validation_reason(excinfo) == "variants.0.price: The variants.0.price must be an integer."


# ---------------------------------------------------------------- publishing


def test_publish_locks_the_product_until_publishing_succeeded(provider: DemoPrintProvider) -> None:
    product = provider.create_product(SHOP, _create_body(provider))
    assert provider.publish_product(SHOP, product["id"], {"title": True, "variants": True}) == {}
    assert provider.get_product(SHOP, product["id"])["is_locked"] is True
    with pytest.raises(ProviderError) as excinfo:
        provider.update_product(SHOP, product["id"], {"title": "Locked"})
    error = excinfo.value
    assert (error.status, error.code, error.message) == (400, 8252, "Product is disabled for editing")
    assert error.details["errors"]["code"] == 8252

    external = {"id": product["id"], "handle": f"/product/{product['id']}"}
    assert provider.publishing_succeeded(SHOP, product["id"], external) == {}
    published = provider.get_product(SHOP, product["id"])
    assert (published["is_locked"], published["visible"], published["is_published"]) == (False, True, True)
    assert published["external"] == external
    assert provider.update_product(SHOP, product["id"], {"title": "Open again"})["title"] == "Open again"


def test_a_second_publish_of_a_locked_product_is_refused(provider: DemoPrintProvider) -> None:
    product_id = _products(provider)[0]["id"]
    provider.publish_product(SHOP, product_id)
    with pytest.raises(ProviderError) as excinfo:
        provider.publish_product(SHOP, product_id)
    assert excinfo.value.code == 8252


def test_publishing_failed_unlocks_the_product_unpublished(provider: DemoPrintProvider) -> None:
    product = provider.create_product(SHOP, _create_body(provider))
    provider.publish_product(SHOP, product["id"])
    assert provider.publishing_failed(SHOP, product["id"], "Storefront unavailable") == {}
    after = provider.get_product(SHOP, product["id"])
    assert (after["is_locked"], after["visible"], after["is_published"]) == (False, False, False)


def test_unpublish_hides_a_published_product(provider: DemoPrintProvider) -> None:
    product = next(p for p in _products(provider) if p["is_published"])
    assert provider.unpublish_product(SHOP, product["id"]) == {}
    after = provider.get_product(SHOP, product["id"])
    assert (after["visible"], after["is_published"]) == (False, False)


@pytest.mark.parametrize("action", ["publish_product", "unpublish_product"])
def test_publishing_an_unknown_product_is_not_found(provider: DemoPrintProvider, action: str) -> None:
    with pytest.raises(ProviderNotFound):
        getattr(provider, action)(SHOP, "0" * 24)


def test_publish_body_values_must_be_booleans(provider: DemoPrintProvider) -> None:
    product_id = _products(provider)[0]["id"]
    with pytest.raises(ProviderError) as excinfo:
        provider.publish_product(SHOP, product_id, {"title": "yes"})
    assert _validation_reason(excinfo).startswith("title:")
    assert provider.get_product(SHOP, product_id)["is_locked"] is False
