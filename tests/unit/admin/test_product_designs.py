"""A new product's design rules: the artwork checked by content and for print resolution, its
placement, the colours and sizes chosen and each size's price."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from storefront.services.admin import product_designs as designs
from storefront.services.admin.product_designs import Placement
from storefront.services.platform.errors import ValidationError
from storefront.services.printify.demo import DemoPrintProvider
from tests.designs import design_png


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "#223344").save(buffer, format="JPEG")
    return buffer.getvalue()


def _field_error(excinfo: pytest.ExceptionInfo[ValidationError], field: str) -> str:
    return excinfo.value.field_errors[field]


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    provider = DemoPrintProvider(tmp_path_factory.mktemp("demo"), image_size=96)
    return provider.catalog_variants(384, 29)["variants"]


@pytest.mark.parametrize("value", [None, "", "   "])
def test_no_design_asks_for_one(value: object) -> None:
    with pytest.raises(ValidationError) as excinfo:
        designs.decode_data_url(value)
    assert excinfo.value.message == "Add a design to print" == _field_error(excinfo, "design")


@pytest.mark.parametrize("value", ["https://example.com/a.png", "data:image/png;base64,@@@", 42])
def test_a_design_that_is_not_a_data_url_is_refused(value: object) -> None:
    with pytest.raises(ValidationError) as excinfo:
        designs.decode_data_url(value)
    assert excinfo.value.message == designs.DESIGN_NOT_AN_IMAGE_URL


def test_a_data_url_gives_its_bytes_whatever_type_it_claims() -> None:
    data = design_png(300, 300)
    url = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    assert designs.decode_data_url(url) == data


def test_png_and_jpeg_are_read_by_their_content() -> None:
    png = designs.read_design(design_png(320, 200))
    jpeg = designs.read_design(_jpeg(640, 480))
    assert (png.mime_type, png.width, png.height) == ("image/png", 320, 200)
    assert (jpeg.mime_type, jpeg.width, jpeg.height) == ("image/jpeg", 640, 480)
    assert png.file_name.startswith("design-") and png.file_name.endswith(".png")
    assert designs.read_design(design_png(320, 200)).file_name == png.file_name  # same design, same name


@pytest.mark.parametrize("data", [b"GIF89a....", b"<svg></svg>", b"\x89PNG\r\n\x1a\nbroken"])
def test_anything_else_is_refused(data: bytes) -> None:
    with pytest.raises(ValidationError) as excinfo:
        designs.read_design(data)
    assert "design" in excinfo.value.field_errors


@pytest.mark.parametrize(
    ("width", "scale", "dpi", "warned"),
    [
        (2400, 1.0, 160, False),
        (2250, 1.0, 150, False),
        (2249, 1.0, 149, True),
        (1800, 0.8, 150, False),
        (1125, 1.0, 75, True),
    ],
)
def test_the_print_resolution_at_the_placed_size(width: int, scale: float, dpi: int, warned: bool) -> None:
    design = designs.Design(b"", "image/png", width, width)
    resolution = designs.check_resolution(design, Placement(scale=scale))
    assert resolution.dpi == dpi and (resolution.warning is not None) == warned


def test_a_design_below_the_floor_is_refused_naming_its_size_and_what_it_needs() -> None:
    design = designs.Design(b"", "image/png", 1000, 1200)
    with pytest.raises(ValidationError) as excinfo:
        designs.check_resolution(design, Placement(), (4500, 5100))
    assert excinfo.value.message == (
        "The design is 1000 x 1200 px: at this size it prints at 66 dpi, below the 75 dpi a print needs. "
        "Use an image at least 1125 px wide (2250 px for a sharp print; the print file is 4500 x 5100 px)."
    )
    # Smaller on the shirt, the same pixels print sharper.
    assert designs.check_resolution(design, Placement(scale=0.5), (4500, 5100)).dpi == 133


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, Placement()),
        ({}, Placement()),
        ({"position": "back", "x": 0.25, "y": 1, "scale": 2, "angle": -15}, Placement("back", 0.25, 1.0, 2.0, -15)),
    ],
)
def test_a_placement_takes_defaults_for_what_is_missing(value: object, expected: Placement) -> None:
    assert designs.parse_placement(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        [],
        {"position": "sleeve"},
        {"x": 1.5},
        {"y": -0.1},
        {"scale": 0},
        {"scale": 2.5},
        {"angle": 1.5},
        {"angle": True},
        {"x": "0.5"},
        {"x": float("nan")},
    ],
)
def test_a_bad_placement_is_refused(value: object) -> None:
    with pytest.raises(ValidationError) as excinfo:
        designs.parse_placement(value)
    assert excinfo.value.field_errors == {"placement": designs.INVALID_PLACEMENT}


def test_colours_and_sizes_are_chosen_in_any_case_and_only_those_variants_kept(catalogue: list[dict]) -> None:
    chosen = designs.choose_variants(catalogue, ["black"], ["m", "2XL"])
    assert {(v["options"]["color"], v["options"]["size"]) for v in chosen} == {("Black", "M"), ("Black", "2XL")}
    assert len(designs.choose_variants(catalogue, None, None)) == len(catalogue)


def test_unknown_or_no_colours_and_sizes_are_refused_together(catalogue: list[dict]) -> None:
    with pytest.raises(ValidationError) as excinfo:
        designs.choose_variants(catalogue, ["Pink", "White"], [])
    assert excinfo.value.field_errors == {
        "colors": "Not a colour of this product type: Pink",
        "sizes": "Choose at least one size",
    }


def test_each_size_carries_its_extra_cost_unless_priced_by_hand(catalogue: list[dict]) -> None:
    chosen = designs.choose_variants(catalogue, ["White"], ["S", "2XL", "3XL"])
    cost = {v["options"]["size"]: v["cost"] for v in chosen}
    prices = designs.size_prices(chosen, 3000, {"3XL": "40"})
    assert [(p.size, p.price_cents) for p in prices] == [
        ("S", 3000),
        ("2XL", 3000 + cost["2XL"] - cost["S"]),
        ("3XL", 4000),
    ]
    assert prices[0].margin_cents == 3000 - cost["S"] and prices[0].margin_text.startswith("$")
    with pytest.raises(ValidationError):
        designs.size_prices(chosen, 3000, {"XL": "40"})  # not a chosen size


def test_a_size_without_a_known_cost_sells_at_the_price() -> None:
    (price,) = designs.size_prices([{"id": 1, "options": {"size": "M"}}], 2500)
    assert (price.price_cents, price.cost_cents, price.margin_text) == (2500, None, "cost unknown")


def test_the_print_areas_name_the_upload_on_every_chosen_variant(catalogue: list[dict]) -> None:
    chosen = catalogue[:3]
    areas = designs.print_areas(chosen, Placement("front", 0.5, 0.4, 0.8, 0), "abc123")
    assert areas == [
        {
            "variant_ids": [v["id"] for v in chosen],
            "placeholders": [
                {"position": "front", "images": [{"id": "abc123", "x": 0.5, "y": 0.4, "scale": 0.8, "angle": 0}]}
            ],
        }
    ]
    assert designs.placeholder_size(chosen, "front") == (4500, 5100)
    assert designs.placeholder_size(chosen, "sleeve") is None


def test_the_preview_draws_the_design_on_the_blank() -> None:
    design = designs.read_design(design_png(600, 600))
    with Image.open(io.BytesIO(designs.preview_png(design, Placement(), size=200))) as picture:
        assert picture.size == (200, 200)
        assert picture.convert("RGB").getpixel((100, 91)) == (200, 16, 46)
