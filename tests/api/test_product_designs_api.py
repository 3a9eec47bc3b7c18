"""Creating a product from a design through the API, against the fake Printify over HTTP: one
upload per design, print_areas naming it at the catalogue's placeholder, only the chosen colours
and sizes at their prices, and the refusals (no design, a design too small to print)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.client import SyncPrintifyClient
from tests.api.staff import as_owner, owner_headers
from tests.designs import design_data_url, design_png
from tests.fakes.printify_server import DEFAULT_SHOP, FakePrintifyServer

SHOP = DEFAULT_SHOP["id"]
PRODUCTS = f"/api/printify/shops/{SHOP}/products"
FORM = {
    "title": "HWDZN Summer Tee",
    "description": "A light tee for hot summer days.",
    "blueprintId": 384,
    "printProviderId": 29,
    "price": "30",
}


async def _no_wait(_seconds: float) -> None:
    return None


@pytest.fixture
def fake() -> Iterator[FakePrintifyServer]:
    with FakePrintifyServer() as server:
        yield server


@pytest.fixture
def client(
    engine: Engine, fake: FakePrintifyServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TestClient]:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    # No test here holds an answer back, so the timeout only has to outlast a busy machine: an upload
    # answered in 0.5 s on a quiet one timed out once with the whole suite running beside it.
    with SyncPrintifyClient(fake.token, base_url=fake.base_url, sleep=_no_wait, timeout=10) as provider:
        yield TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


def _created_body(fake: FakePrintifyServer) -> dict:
    (request,) = fake.requests_to("POST", f"/shops/{SHOP}/products.json")
    return request.json()


def test_the_design_is_uploaded_once_and_printed_where_placed_on_the_chosen_variants(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    placement = {"position": "front", "x": 0.5, "y": 0.4, "scale": 0.8}
    form = {
        **FORM,
        "design": design_data_url(),
        "placement": placement,
        "colors": ["Black"],
        "sizes": ["M", "L", "2XL"],
    }
    response = client.post(PRODUCTS, headers=admin, json=form)
    assert response.status_code == 201, response.text

    (upload,) = fake.requests_to("POST", "/uploads/images.json")
    assert base64.b64decode(upload.json()["contents"]) == design_png()
    upload_id = next(iter(fake.uploads))
    body = _created_body(fake)
    catalogue = {
        v["id"]: v
        for v in fake.handle("GET", "/v1/catalog/blueprints/384/print_providers/29/variants.json", {}, None)[1][
            "variants"
        ]
    }
    chosen = {
        vid
        for vid, v in catalogue.items()
        if v["options"]["color"] == "Black" and v["options"]["size"] in ("M", "L", "2XL")
    }
    assert {v["id"] for v in body["variants"]} == chosen and all(v["is_enabled"] for v in body["variants"])
    prices = {catalogue[v["id"]]["options"]["size"]: v["price"] for v in body["variants"]}
    extra = catalogue[max(chosen, key=lambda vid: catalogue[vid]["cost"])]["cost"] - min(
        catalogue[vid]["cost"] for vid in chosen
    )
    assert prices == {"M": 3000, "L": 3000, "2XL": 3000 + extra} and extra > 0
    (area,) = body["print_areas"]
    assert set(area["variant_ids"]) == chosen
    (placeholder,) = area["placeholders"]
    assert placeholder["position"] in {p["position"] for p in catalogue[next(iter(chosen))]["placeholders"]}
    assert placeholder["images"] == [{"id": upload_id, "x": 0.5, "y": 0.4, "scale": 0.8, "angle": 0}]
    assert isinstance(placeholder["images"][0]["angle"], int)

    answer = response.json()
    assert answer["designUploadId"] == upload_id and answer["warning"] is None
    assert [p["size"] for p in answer["prices"]] == ["M", "L", "2XL"]
    assert all(p["margin"] == p["price"] - p["cost"] for p in answer["prices"])
    assert len(answer["mockups"]) == 1  # one colour, one mockup
    assert sorted(v["size"] for v in answer["data"]["variants"]) == ["2XL", "L", "M"]


def test_an_upload_refused_with_a_5xx_is_retried_and_the_product_made_once(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    fake.fail_with(503, method="POST", path="/uploads/images.json")
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url()})
    assert response.status_code == 201, response.text
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 2 and len(fake.uploads) == 1
    assert _created_body(fake)["print_areas"][0]["placeholders"][0]["images"][0]["id"] == next(iter(fake.uploads))


def test_an_upload_that_succeeded_behind_a_5xx_is_not_sent_twice(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    fake.fail_after_processing(502, method="POST", path="/uploads/images.json")
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url()})
    assert response.status_code == 201, response.text
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 1 and len(fake.uploads) == 1
    assert response.json()["designUploadId"] == next(iter(fake.uploads))


def test_an_earlier_upload_is_used_without_uploading_again(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    first = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url()}).json()
    again = client.post(PRODUCTS, headers=admin, json={**FORM, "designUploadId": first["designUploadId"]})
    assert again.status_code == 201, again.text
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 1


def test_a_product_without_a_design_is_refused_and_nothing_is_sent(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    response = client.post(PRODUCTS, headers=admin, json=FORM)
    assert response.status_code == 422
    assert response.json()["error"] == "Add a design to print"
    assert response.json()["details"] == {"design": "Add a design to print"}
    assert fake.requests_to("POST", "/uploads/images.json") == [] and fake.requests_to("POST", "/products.json") == []


def test_a_design_too_small_to_print_is_refused_with_its_resolution(
    client: TestClient, admin: dict[str, str], fake: FakePrintifyServer
) -> None:
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url(800, 900)})
    assert response.status_code == 422
    message = response.json()["details"]["design"]
    assert message.startswith("The design is 800 x 900 px: at this size it prints at 53 dpi, below the 75 dpi")
    assert "4500 x 5100 px" in message
    assert fake.requests_to("POST", "/uploads/images.json") == []


def test_a_soft_design_is_created_with_a_warning(client: TestClient, admin: dict[str, str]) -> None:
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url(1800, 2000)})
    assert response.status_code == 201, response.text
    assert response.json()["warning"].startswith("The design is 1800 x 2000 px: at this size it prints at 120 dpi")


@pytest.mark.parametrize(
    ("design", "message"),
    [
        (
            "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
            "The design must be a PNG (with a transparent background) or a JPEG image",
        ),
        ("https://example.com/art.png", "Send the design as an image data URL (data:image/png;base64,...)"),
    ],
)
def test_a_design_that_is_not_a_png_or_jpeg_is_refused(
    client: TestClient, admin: dict[str, str], design: str, message: str
) -> None:
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design})
    assert response.status_code == 422 and response.json()["details"] == {"design": message}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"colors": ["Pink"]}, "colors", "Not a colour of this product type: Pink"),
        ({"sizes": []}, "sizes", "Choose at least one size"),
        ({"placement": {"position": "sleeve"}}, "placement", None),
        ({"placement": {"angle": 1.5}}, "placement", None),
    ],
)
def test_bad_choices_are_refused_before_anything_is_uploaded(
    client: TestClient,
    admin: dict[str, str],
    fake: FakePrintifyServer,
    change: dict,
    field: str,
    message: str | None,
) -> None:
    response = client.post(PRODUCTS, headers=admin, json={**FORM, "design": design_data_url(), **change})
    assert response.status_code == 422, response.text
    assert field in response.json()["details"]
    if message is not None:
        assert response.json()["details"][field] == message
    assert fake.requests_to("POST", "/uploads/images.json") == []
