"""The body caps (storefront/api/body_limit.py), here on Reflex's upload endpoint, driven at the
ASGI level with a form-parsing app that answers a vanished client the way Reflex's upload handler
does (an empty 200)."""

from __future__ import annotations

import asyncio
import json

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message

from storefront.api.body_limit import MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE, BodyCap, BodyLimit
from storefront.services.events.events import MAX_EVENT_IMAGES
from storefront.services.media.images import MAX_IMAGE_BYTES

LIMIT = 1000
CAPS = [BodyCap("/_upload", LIMIT, UPLOAD_TOO_LARGE)]
BOUNDARY = "xyz"


class FormApp:
    """Parses the multipart body like Reflex's `/_upload` and records what it read."""

    def __init__(self) -> None:
        self.files: list[int] = []
        self.calls = 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        request = Request(scope, receive)
        try:
            form = await request.form()
        except ClientDisconnect:
            await Response()(scope, receive, send)
            return
        self.files = [len(await part.read()) for part in form.getlist("files")]
        await JSONResponse({"files": self.files})(scope, receive, send)


def _multipart(size: int) -> bytes:
    return (
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.jpg\"\r\n"
        f"Content-Type: image/jpeg\r\n\r\n".encode()
        + b"x" * size
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def _call(body: bytes, *, declare: bool, path: str = "/_upload", method: str = "POST", chunk: int = 100):
    """Sends `body` in chunks (with or without Content-Length); the status, answer and app."""
    app = FormApp()
    headers = [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode())]
    if declare:
        headers.append((b"content-length", str(len(body)).encode()))
    scope = {"type": "http", "method": method, "path": path, "headers": headers, "query_string": b""}
    chunks = [body[i:i + chunk] for i in range(0, len(body), chunk)] or [b""]
    incoming: list[Message] = [
        {"type": "http.request", "body": part, "more_body": i < len(chunks) - 1} for i, part in enumerate(chunks)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(BodyLimit(app, CAPS)(scope, receive, send))
    (start,) = [m for m in sent if m["type"] == "http.response.start"]
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], answer, app


def test_an_upload_within_the_limit_reaches_the_app_whole() -> None:
    body = _multipart(600)
    assert len(body) <= LIMIT
    for declare in (True, False):
        status, answer, app = _call(body, declare=declare)
        assert (status, json.loads(answer)) == (200, {"files": [600]})


def test_a_declared_length_over_the_limit_is_refused_before_the_app_reads() -> None:
    status, answer, app = _call(_multipart(2000), declare=True)
    assert status == 413 and app.calls == 0
    assert json.loads(answer) == {"error": UPLOAD_TOO_LARGE, "details": {"limit_bytes": LIMIT}}


def test_a_body_growing_past_the_limit_without_a_length_is_cut_off_with_413() -> None:
    status, answer, app = _call(_multipart(5000), declare=False)
    assert status == 413 and app.calls == 1 and app.files == []
    assert json.loads(answer)["error"] == UPLOAD_TOO_LARGE


def test_a_length_that_is_not_a_number_is_refused() -> None:
    app = FormApp()
    scope = {"type": "http", "method": "POST", "path": "/_upload", "query_string": b"",
             "headers": [(b"content-length", b"12abc")]}
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(BodyLimit(app, CAPS)(scope, receive, send))
    assert sent[0]["status"] == 413 and app.calls == 0


def test_other_routes_and_methods_are_not_capped() -> None:
    body = _multipart(5000)
    for path, method in (("/api/events", "POST"), ("/_uploads", "POST"), ("/", "PUT")):
        status, answer, _ = _call(body, declare=True, path=path, method=method)
        assert (status, json.loads(answer)) == (200, {"files": [5000]})


def test_the_store_limit_fits_the_events_form_and_no_more() -> None:
    assert MAX_EVENT_IMAGES * MAX_IMAGE_BYTES < MAX_UPLOAD_BYTES <= MAX_EVENT_IMAGES * MAX_IMAGE_BYTES + 2**20
    assert UPLOAD_TOO_LARGE == "This upload is too large: at most 10 images of 10 MB each."


def test_the_first_cap_covering_a_path_applies_exact_paths_before_prefixes() -> None:
    limit = BodyLimit(FormApp(), [BodyCap("/api/big", 5000, "big"), BodyCap("/api/", 100, "small", prefix=True)])
    assert limit.cap_for("/api/big") == BodyCap("/api/big", 5000, "big")
    assert limit.cap_for("/api/big/more").message == "small"
    assert limit.cap_for("/api/orders/lookup").limit == 100
    assert limit.cap_for("/apix") is None and limit.cap_for("/_upload") is None


def test_a_body_is_capped_whatever_the_method() -> None:
    status, answer, app = _call(_multipart(2000), declare=True, method="PUT")
    assert status == 413 and app.calls == 0


def test_a_cap_for_admins_only_leaves_anyone_else_to_the_next_cap() -> None:
    big = BodyCap("/api/big", 5000, "big", signed_in_only=True)
    limit = BodyLimit(FormApp(), [big, BodyCap("/api/", 100, "small", prefix=True)])
    assert limit.cap_for("/api/big") == big
    assert limit.cap_for("/api/big", signed_in=False).message == "small"
