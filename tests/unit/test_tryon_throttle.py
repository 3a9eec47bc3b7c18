"""The try-on page's photo uploads and try-ons count against the same per-address limit as
`POST /api/try-on`, on SQLite and PostgreSQL: the page's handlers are driven as Reflex runs them
(a state whose router names the client's address), the API over HTTP, both on the real clock."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable, Iterator

import pytest
import reflex as rx
from fastapi.testclient import TestClient
from PIL import Image
from reflex.istate.data import RouterData
from sqlalchemy.engine import Engine

from storefront import db
from storefront.api.app import create_api
from storefront.api.tryon import TRY_ON
from storefront.config import Settings
from storefront.services.media.images import IMAGE_UNREADABLE
from storefront.services.tryon.data_urls import image_data_url
from storefront.services.tryon.throttle import TOO_MANY_TRY_ONS, TRY_ONS_PER_MINUTE
from storefront.state.tryon import TryOnState


@pytest.fixture
def page_database(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """The page's handlers use the test's database (as the store's use the configured one)."""
    monkeypatch.setattr(db, "get_engine", lambda: engine)
    return engine


@pytest.fixture
def api(page_database: Engine, tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], TestClient]]:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    app = create_api(Settings(), engine=page_database)  # the real clock, like the page's
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


def try_on(state: TryOnState) -> None:
    """The page's Try It On event (a background event; a plain state is its own lock)."""
    asyncio.run(TryOnState.try_on.fn(state))


def with_photo(state: TryOnState) -> TryOnState:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "JPEG")
    state.photo_url, state.selected_id = image_data_url(out.getvalue()), "no-such-item"
    return state


def in_one_minute(scenario: Callable[[str], None]) -> None:
    """Run the scenario within one window of the limit: should the minute turn while it runs,
    run it again (from a new address, so nothing counted before matters) in the new one."""
    for attempt in range(2):
        minute = int(time.time()) // 60
        scenario(f"203.0.113.{10 + attempt}")
        if int(time.time()) // 60 == minute:
            return
    pytest.fail("the minute turned twice during one scenario")


def test_the_21st_photo_upload_or_try_on_in_a_minute_is_refused_on_the_page_with_the_apis_text(
    page_database: Engine,
) -> None:
    def scenario(address: str) -> None:
        page = with_photo(page_from(address))
        errors = []
        for n in range(TRY_ONS_PER_MINUTE):
            if n % 2:
                upload(page, b"not an image")  # counted, then refused for what it is
            else:
                try_on(page)  # counted, then refused: the item is not on offer
            errors.append(page.error)
            with_photo(page)
        assert TOO_MANY_TRY_ONS not in errors and IMAGE_UNREADABLE in errors
        upload(page, b"not an image")
        assert page.error == TOO_MANY_TRY_ONS
        try_on(with_photo(page))
        assert page.error == TOO_MANY_TRY_ONS and not page.processing and not page.uploading
        other = page_from("198.51.100.7")  # another shopper is not held back
        upload(other, b"not an image")
        assert other.error == IMAGE_UNREADABLE

    in_one_minute(scenario)


def test_the_page_and_the_api_share_one_count(api: Callable[[str], TestClient]) -> None:
    body = {"userPhoto": "not a data url", "selectedItem": "not one either"}  # counted, then refused

    def scenario(address: str) -> None:
        page = with_photo(page_from(address))
        for n in range(10):
            upload(page, b"not an image") if n % 2 else try_on(with_photo(page))
            assert page.error != TOO_MANY_TRY_ONS
        client = api(address)
        statuses = [client.post(TRY_ON, json=body).status_code for _ in range(TRY_ONS_PER_MINUTE - 10 + 1)]
        assert statuses == [422] * (TRY_ONS_PER_MINUTE - 10) + [429]
        refused = client.post(TRY_ON, json=body)
        assert refused.status_code == 429 and refused.json()["error"] == TOO_MANY_TRY_ONS
        assert api("198.51.100.8").post(TRY_ON, json=body).status_code == 422

    in_one_minute(scenario)
