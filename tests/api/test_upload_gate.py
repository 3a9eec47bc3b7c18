"""Reflex's upload endpoint behind the upload gate (storefront/api/body_limit.py, wired in
storefront/api/app.py), on SQLite and PostgreSQL: each upload handler's own cap, its rate limit
counted before the body is read, and a bound on the uploads one address has open at once.

Behind the gate stands a route that parses the form as Reflex's upload endpoint does (every file
part spooled to the temporary folder), so the tests see what a request would have cost the disk.
The app is driven at the ASGI level and counts the bytes it took from the client."""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.api.body_limit import (
    MAX_PHOTO_UPLOAD_BYTES,
    MAX_UPLOAD_BYTES,
    PARALLEL_UPLOADS_PER_ADDRESS,
    PHOTO_UPLOAD_TOO_LARGE,
    TOO_MANY_PARALLEL_UPLOADS,
    UPLOAD_TOO_LARGE,
    upload_path,
)
from storefront.api.tryon import TRY_ON
from storefront.config import Settings
from storefront.services.media.uploads import IMAGE_UPLOADS_PER_MINUTE, TOO_MANY_UPLOADS
from storefront.services.tryon.throttle import TOO_MANY_TRY_ONS, TRY_ONS_PER_MINUTE
from storefront.state.upload_handlers import upload_handlers

MB = 1024 * 1024
CHUNK = 256 * 1024
BOUNDARY = "gate-test"
#: The try-on's photo handler and the first handler of the admin's images (the events form's).
PHOTO = next(name for name, kind in upload_handlers().items() if kind == "photo")
IMAGES = next(name for name, kind in upload_handlers().items() if kind != "photo")
ADDRESS = "203.0.113.20"


@dataclass
class Spool:
    """The temporary folder the form parser spools file parts to, and every file it made there."""

    folder: Path
    made: list[str]


@pytest.fixture
def spool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spool:
    folder = tmp_path / "spool"
    folder.mkdir()
    made: list[str] = []
    named = tempfile.NamedTemporaryFile

    def temporary_file(**options: Any) -> Any:
        # Linux's TemporaryFile has no name in its folder (O_TMPFILE): a named one can be seen.
        file = named(**{**options, "dir": str(folder)})
        made.append(file.name)
        return file

    monkeypatch.setattr(tempfile, "TemporaryFile", temporary_file)
    return Spool(folder, made)


@pytest.fixture
def api(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spool: Spool) -> FastAPI:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    app = create_api(Settings(), engine=engine, upload_handlers=upload_handlers())

    @app.post(upload_path(), include_in_schema=False)
    async def reflex_upload(request: Request) -> JSONResponse:
        form = await request.form()  # as Reflex's endpoint does: each file part spooled to disk
        spooled = sorted(path.name for path in spool.folder.iterdir())
        sizes = [len(await part.read()) for part in form.getlist("files") if not isinstance(part, str)]
        await form.close()
        return JSONResponse({"sizes": sizes, "spooled": spooled})

    return app


def multipart(size: int) -> bytes:
    """A form with one file of `size` bytes, as the upload component sends it."""
    head = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="photo.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n").encode()
    return head + b"\xff" * size + f"\r\n--{BOUNDARY}--\r\n".encode()


@dataclass
class Upload:
    """One request through the ASGI app: what it took from the client and what it answered."""

    status: int = 0
    answer: bytes = b""
    bytes_read: int = 0
    headers: dict[str, str] | None = None

    @property
    def json(self) -> Any:
        return json.loads(self.answer)


async def send_upload(
    app: FastAPI, handler: str, size: int, *, address: str = ADDRESS, declare: bool = True,
    hold: asyncio.Event | None = None, started: asyncio.Event | None = None,
) -> Upload:
    """Posts a `size`-byte file to /_upload for `handler`; with `hold`, the body waits for it after
    the first chunk (an upload still arriving), and `started` is set once the app reads it."""
    body = multipart(size)
    result = Upload()
    headers = [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode()),
               (b"reflex-client-token", b"token"), (b"reflex-event-handler", handler.encode())]
    if declare:
        headers.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "path": upload_path(),
        "raw_path": upload_path().encode(), "root_path": "", "scheme": "http", "query_string": b"",
        "headers": headers, "client": (address, 5000), "server": ("testserver", 80),
    }
    offset = 0

    async def receive() -> dict[str, Any]:
        nonlocal offset
        if started is not None:
            started.set()
        if offset and hold is not None:
            await hold.wait()
        if offset >= len(body):
            await asyncio.sleep(3600)  # everything sent: the client waits for the answer
        part = body[offset:offset + CHUNK]
        offset += len(part)
        result.bytes_read = offset
        return {"type": "http.request", "body": part, "more_body": offset < len(body)}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            result.status = message["status"]
            result.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            result.answer += message.get("body", b"")

    await asyncio.wait_for(app(scope, receive, send), timeout=60)
    return result


def upload(app: FastAPI, handler: str, size: int, **options: Any) -> Upload:
    return asyncio.run(send_upload(app, handler, size, **options))


@pytest.mark.parametrize("size", [150 * MB, 20 * MB], ids=["150 MB", "20 MB"])
def test_a_photo_over_the_try_ons_cap_is_refused_before_its_body_is_read(
    api: FastAPI, spool: Spool, size: int
) -> None:
    refused = upload(api, PHOTO, size)
    assert (refused.status, refused.json["error"], refused.bytes_read) == (413, PHOTO_UPLOAD_TOO_LARGE, 0)
    assert refused.json["details"] == {"limit_bytes": MAX_PHOTO_UPLOAD_BYTES}
    assert spool.made == [] and list(spool.folder.iterdir()) == []


def test_a_photo_sent_without_a_length_is_cut_off_at_the_try_ons_cap(api: FastAPI, spool: Spool) -> None:
    refused = upload(api, PHOTO, 20 * MB, declare=False)
    assert (refused.status, refused.json["error"]) == (413, PHOTO_UPLOAD_TOO_LARGE)
    assert refused.bytes_read <= MAX_PHOTO_UPLOAD_BYTES + CHUNK
    assert list(spool.folder.iterdir()) == []  # what was spooled so far went with the request


def test_a_photo_within_the_cap_reaches_the_handler(api: FastAPI) -> None:
    passed = upload(api, PHOTO, 5 * MB)
    assert passed.status == 200 and passed.json["sizes"] == [5 * MB] and passed.json["spooled"]


def test_the_admin_photo_picker_keeps_its_own_larger_cap_and_an_unknown_handler_gets_the_photos(
    api: FastAPI,
) -> None:
    assert upload(api, IMAGES, 20 * MB).json["sizes"] == [20 * MB]
    over = upload(api, IMAGES, MAX_UPLOAD_BYTES)
    assert (over.status, over.json["error"], over.bytes_read) == (413, UPLOAD_TOO_LARGE, 0)
    unknown = upload(api, "state.someone_elses_handler", 20 * MB)
    assert (unknown.status, unknown.json["error"], unknown.bytes_read) == (413, PHOTO_UPLOAD_TOO_LARGE, 0)


def test_the_try_on_limit_is_counted_before_the_body_with_the_api_and_refused_unread(api: FastAPI) -> None:
    """The page's photo uploads count with POST /api/try-on: ten of each, then the next is refused."""
    client = TestClient(api, client=(ADDRESS, 5000))
    body = {"userPhoto": "not a data url", "selectedItem": "not one either"}  # counted, then refused
    assert {client.post(TRY_ON, json=body).status_code for _ in range(10)} == {422}
    assert {upload(api, PHOTO, 1024).status for _ in range(TRY_ONS_PER_MINUTE - 10)} == {200}
    refused = upload(api, PHOTO, 1024)
    assert (refused.status, refused.json["error"], refused.bytes_read) == (429, TOO_MANY_TRY_ONS, 0)
    assert refused.headers and 0 < int(refused.headers["retry-after"]) <= 60
    assert client.post(TRY_ON, json=body).status_code == 429
    assert upload(api, PHOTO, 1024, address="198.51.100.30").status == 200  # another address is not held back


def test_the_photo_picker_has_its_own_limit(api: FastAPI) -> None:
    assert {upload(api, IMAGES, 1024).status for _ in range(IMAGE_UPLOADS_PER_MINUTE)} == {200}
    refused = upload(api, IMAGES, 1024)
    assert (refused.status, refused.json["error"], refused.bytes_read) == (429, TOO_MANY_UPLOADS, 0)
    assert upload(api, PHOTO, 1024).status == 200  # the try-on's count is apart


def test_one_address_has_at_most_two_uploads_open_at_once(api: FastAPI) -> None:
    async def scenario() -> tuple[list[Upload], Upload, Upload, Upload]:
        hold = asyncio.Event()
        starts = [asyncio.Event() for _ in range(PARALLEL_UPLOADS_PER_ADDRESS)]
        arriving = [asyncio.create_task(send_upload(api, PHOTO, 2 * MB, hold=hold, started=started))
                    for started in starts]
        await asyncio.wait_for(asyncio.gather(*(started.wait() for started in starts)), timeout=30)
        third = await send_upload(api, PHOTO, 1024)
        elsewhere = await send_upload(api, PHOTO, 1024, address="198.51.100.31")
        hold.set()
        finished = list(await asyncio.gather(*arriving))
        after = await send_upload(api, PHOTO, 1024)
        return finished, third, elsewhere, after

    finished, third, elsewhere, after = asyncio.run(scenario())
    assert (third.status, third.json["error"], third.bytes_read) == (429, TOO_MANY_PARALLEL_UPLOADS, 0)
    assert [upload.status for upload in finished] == [200, 200]
    assert elsewhere.status == 200 and after.status == 200  # other addresses, and later uploads, pass


def test_the_create_forms_design_is_gated_as_an_admin_image() -> None:
    from reflex.utils.format import format_event_handler

    from storefront.services.media.uploads import IMAGES_UPLOAD
    from storefront.state.admin.product_design import ProductDesignState

    assert upload_handlers()[format_event_handler(ProductDesignState.upload_design)] == IMAGES_UPLOAD
