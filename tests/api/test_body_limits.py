"""Every API body is capped before anything reads it (storefront/api/body_limit.py, wired in
storefront/api/app.py): 1 MB for every route, more only for the routes that take photos. The app is
driven at the ASGI level, so the test counts the bytes the app actually took from the client."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api import tryon, uploads
from storefront.api.admin import products as admin_products
from storefront.api.admin.session import ADMIN_TOKEN_HEADER
from storefront.api.app import create_api
from storefront.api.bodies import API_BODY_TOO_LARGE, MAX_API_BODY_BYTES
from storefront.config import Settings
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers
from tests.ordering import seed_demo

TWO_MB = 2 * 1024 * 1024
CHUNK = 64 * 1024
#: The routes whose caps are larger than the API's 1 MB (photos), with their caps and texts.
LARGER_CAPS = {
    tryon.TRY_ON: (tryon.MAX_BODY_BYTES, tryon.BODY_TOO_LARGE),
    uploads.UPLOAD_IMAGES: (uploads.MAX_BODY_BYTES, uploads.BODY_TOO_LARGE),
    "/api/printify/shops/1/products": (admin_products.MAX_CREATE_BYTES, admin_products.CREATE_TOO_LARGE),
}


#: The larger caps that hold only for a signed-in admin (anyone else's body meets the API's 1 MB).
SIGNED_IN_ONLY = {"/api/printify/shops/1/products"}


@pytest.fixture
def api(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FastAPI:
    as_owner(monkeypatch)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    provider = seed_demo(engine, tmp_path)
    return create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider)


def body_routes(api: FastAPI) -> list[tuple[str, str]]:
    """(method, path with every parameter filled) of each API operation that takes a body."""
    found = []
    for path, operations in api.openapi()["paths"].items():
        for method in operations:
            if method in ("post", "put", "patch"):
                found.append((method.upper(), re.sub(r"{\w+}", "1", path)))
    return found


@dataclass
class Exchange:
    """One request driven through the ASGI app: what the app took from the client and answered."""

    status: int = 0
    answer: bytes = b""
    bytes_read: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def json(self) -> Any:
        return json.loads(self.answer)


def exchange(app: FastAPI, method: str, path: str, size: int, *, declare: bool,
             headers: dict[str, str] | None = None) -> Exchange:
    """Sends `size` bytes of a JSON-looking body in CHUNKs, with or without a Content-Length."""
    result = Exchange()
    raw = [
        (b"content-type", b"application/json"),
        *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items()),
    ]
    if declare:
        raw.append((b"content-length", str(size).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "path": path,
        "raw_path": path.encode(), "root_path": "", "scheme": "http", "query_string": b"", "headers": raw,
        "client": ("203.0.113.9", 5000), "server": ("testserver", 80),
    }
    chunks = [CHUNK] * (size // CHUNK) + ([size % CHUNK] if size % CHUNK else [])

    async def receive() -> dict[str, Any]:
        if not chunks:
            await asyncio.sleep(3600)  # the client has sent everything and waits for the answer
        part = chunks.pop(0)
        result.bytes_read += part
        return {"type": "http.request", "body": b" " * part, "more_body": bool(chunks)}

    async def send(message: dict[str, Any]) -> None:
        result.sent.append(message)
        if message["type"] == "http.response.start":
            result.status = message["status"]
        elif message["type"] == "http.response.body":
            result.answer += message.get("body", b"")

    asyncio.run(asyncio.wait_for(app(scope, receive, send), timeout=60))
    return result


def test_every_route_that_takes_a_body_is_enumerated(api: FastAPI) -> None:
    routes = body_routes(api)
    assert ("POST", "/api/orders/lookup") in routes and ("POST", "/api/printify/webhooks") in routes
    assert len(routes) >= 25, routes


@pytest.mark.parametrize("declare", [True, False], ids=["declared", "chunked"])
def test_two_megabytes_to_any_route_are_refused_before_they_are_read(api: FastAPI, declare: bool) -> None:
    refusal = (413, API_BODY_TOO_LARGE, {"limit_bytes": MAX_API_BODY_BYTES})
    answers, unread = {}, []
    for method, path in body_routes(api):
        if path in LARGER_CAPS and path not in SIGNED_IN_ONLY:
            continue  # (a stranger's body meets the API's cap on an admin route with a larger one)
        result = exchange(api, method, path, TWO_MB, declare=declare)
        route = f"{method} {path}"
        assert result.bytes_read <= (0 if declare else MAX_API_BODY_BYTES + CHUNK), (route, result.bytes_read)
        answers[route] = (result.status, result.json.get("error"), result.json.get("details"))
        if not declare and result.bytes_read == 0:
            unread.append(route)  # refused before it looked at the body (an admin route without a session)
    refused = {route for route, answer in answers.items() if answer == refusal}
    assert refused | set(unread) == set(answers), {r: a for r, a in answers.items() if r not in refused}
    assert {"POST /api/orders/lookup", "POST /api/printify/webhooks", "POST /api/admin/login"} <= refused


def test_a_body_within_the_cap_reaches_the_route(api: FastAPI) -> None:
    for declare in (True, False):
        # Spaces only: no JSON, so the route answers its own 422 after reading the whole body.
        result = exchange(api, "POST", "/api/orders/lookup", MAX_API_BODY_BYTES, declare=declare)
        assert result.status == 422 and result.bytes_read == MAX_API_BODY_BYTES


def _owner(api: FastAPI) -> dict[str, str]:
    with TestClient(api) as client:
        return owner_headers(client)


@pytest.mark.parametrize("path", sorted(LARGER_CAPS))
def test_the_photo_routes_keep_their_larger_caps(api: FastAPI, path: str) -> None:
    limit, message = LARGER_CAPS[path]
    assert limit > TWO_MB
    headers = _owner(api) if path in SIGNED_IN_ONLY else None
    over = exchange(api, "POST", path, limit + 1, declare=True, headers=headers)
    assert (over.status, over.json["error"], over.bytes_read) == (413, message, 0)
    # Two megabytes (over the API's cap) reach the route: try-on reads them and finds no photos, the
    # upload route asks for the admin first, the admin's create finds no JSON in them.
    within = exchange(api, "POST", path, TWO_MB, declare=True, headers=headers)
    assert within.status == (401 if path == uploads.UPLOAD_IMAGES else 422), within.answer


@pytest.mark.parametrize("token", [None, "not-a-session"], ids=["no token", "a wrong token"])
@pytest.mark.parametrize("declare", [True, False], ids=["declared", "chunked"])
def test_a_stranger_meets_the_api_cap_on_an_admin_route_with_a_larger_one(
    api: FastAPI, token: str | None, declare: bool
) -> None:
    """FastAPI reads and parses a JSON body before the route's admin check: a stranger's body is
    held to the API's 1 MB there, so the design cap is no bigger door than any other route."""
    headers = {ADMIN_TOKEN_HEADER: token} if token else None
    for path in sorted(SIGNED_IN_ONLY):
        result = exchange(api, "POST", path, TWO_MB, declare=declare, headers=headers)
        assert (result.status, result.json["error"]) == (413, API_BODY_TOO_LARGE), result.answer
        assert result.bytes_read <= (0 if declare else MAX_API_BODY_BYTES + CHUNK)
