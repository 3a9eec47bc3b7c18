"""The try-on page's photo uploads and try-ons count against the same per-address limit as
`POST /api/try-on`, on SQLite and PostgreSQL: the page's handlers are driven as Reflex runs them
(a state whose router names the client's address), the API and the upload gate in front of
Reflex's /_upload (which counts a photo upload before its body is read) over HTTP, all with the
same services (as the store's pages and API share theirs) on a clock that stands still."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterator

import pytest
import reflex as rx
from fastapi.testclient import TestClient
from PIL import Image
from reflex.istate.data import RouterData
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.api.body_limit import upload_path
from storefront.api.tryon import TRY_ON
from storefront.config import Settings
from storefront.container import Services
from storefront.services.media.images import IMAGE_UNREADABLE
from storefront.services.tryon.data_urls import image_data_url
from storefront.services.tryon.throttle import TOO_MANY_TRY_ONS, TRY_ONS_PER_MINUTE
from storefront.state.tryon import TryOnState
from storefront.state.upload_handlers import upload_handlers
from tests.ordering import FakeClock

PHOTO_HANDLER = next(name for name, kind in upload_handlers().items() if kind == "photo")


@pytest.fixture
def store(
    engine: Engine, install_services: Callable[..., Services], tmp_path, monkeypatch: pytest.MonkeyPatch
) -> Services:
    """The store's services on the test's database and a clock that stands still (one minute's
    count), installed for the page's handlers as the store installs its own."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    return install_services(Settings(), engine=engine, clock=FakeClock())


@pytest.fixture
def api(store: Services) -> Iterator[Callable[[str], TestClient]]:
    app = create_api(store.settings, services=store, upload_handlers=upload_handlers())
    clients: list[TestClient] = []

    def client_from(address: str) -> TestClient:
        clients.append(TestClient(app, client=(address, 50000)))
        return clients[-1]

    yield client_from
    for client in clients:
        client.close()


def page_from(address: str) -> TryOnState:
    state = TryOnState()
    state.router = RouterData.from_router_data({"sid": "test", "ip": address, "pathname": "/try-it-on"})
    return state


def upload(state: TryOnState, data: bytes) -> None:
    """The page's upload event, as Reflex runs it (every step of the handler)."""
    file = rx.UploadFile(file=io.BytesIO(data), size=len(data))

    async def run() -> None:
        async for _ in TryOnState.upload_photo.fn(state, [file]):
            pass

    asyncio.run(run())


def photo_chosen(state: TryOnState) -> None:
    """The event the page sends just before a photo's upload."""
    asyncio.run(TryOnState.photo_chosen.fn(state))


def gate_upload(client: TestClient) -> int:
    """A photo upload to Reflex's /_upload, as the page sends it; its status at the gate (no Reflex
    stands behind it here, so one the gate lets through answers 404)."""
    headers = {"Reflex-Client-Token": "token", "Reflex-Event-Handler": PHOTO_HANDLER}
    return client.post(upload_path(), headers=headers, files={"files": ("photo.jpg", b"not an image")}).status_code


def try_on(state: TryOnState) -> None:
    """The page's Try It On event (a background event; a plain state is its own lock)."""
    asyncio.run(TryOnState.try_on.fn(state))


def with_photo(state: TryOnState) -> TryOnState:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "JPEG")
    state.photo_url, state.selected_id = image_data_url(out.getvalue()), "no-such-item"
    return state


def test_the_21st_photo_upload_or_try_on_in_a_minute_is_refused_on_the_page_with_the_apis_text(
    api: Callable[[str], TestClient],
) -> None:
    address = "203.0.113.10"
    page, client = with_photo(page_from(address)), api(address)
    errors = []
    for n in range(TRY_ONS_PER_MINUTE):
        if n % 2:
            photo_chosen(page)
            errors.append(page.error)
            assert gate_upload(client) == 404  # counted by the gate, then handed on
        else:
            try_on(page)  # counted, then refused: the item is not on offer
            errors.append(page.error)
        with_photo(page)
    assert TOO_MANY_TRY_ONS not in errors
    photo_chosen(page)
    assert page.error == TOO_MANY_TRY_ONS
    assert gate_upload(client) == 429
    try_on(with_photo(page))
    assert page.error == TOO_MANY_TRY_ONS and not page.processing and not page.uploading
    other = page_from("198.51.100.7")  # another shopper is not held back
    photo_chosen(other)
    assert other.error == ""
    assert gate_upload(api("198.51.100.7")) == 404


def test_the_upload_handler_counts_nothing_itself(store: Services) -> None:
    """The gate counted the upload before its body was read; the handler only reads the photo."""
    address = "203.0.113.10"
    page = page_from(address)
    for _ in range(TRY_ONS_PER_MINUTE + 1):
        upload(page, b"not an image")
        assert page.error == IMAGE_UNREADABLE
    page.error = ""
    photo_chosen(page)
    assert page.error == ""  # nothing used up


def test_the_page_and_the_api_share_one_count(api: Callable[[str], TestClient]) -> None:
    body = {"userPhoto": "not a data url", "selectedItem": "not one either"}  # counted, then refused

    address = "203.0.113.10"
    page, client = with_photo(page_from(address)), api(address)
    for n in range(10):
        if n % 2:
            assert gate_upload(client) == 404
        else:
            try_on(with_photo(page))
            assert page.error != TOO_MANY_TRY_ONS
    statuses = [client.post(TRY_ON, json=body).status_code for _ in range(TRY_ONS_PER_MINUTE - 10 + 1)]
    assert statuses == [422] * (TRY_ONS_PER_MINUTE - 10) + [429]
    refused = client.post(TRY_ON, json=body)
    assert refused.status_code == 429 and refused.json()["error"] == TOO_MANY_TRY_ONS
    assert api("198.51.100.8").post(TRY_ON, json=body).status_code == 422
