"""The served store refuses an upload body over the cap of the handler it names on Reflex's own
upload endpoint, before the body is sent: the try-on's photo at 10 MB, the admin's photo picker at
ten photos."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from storefront.api.body_limit import MAX_UPLOAD_BYTES, PHOTO_UPLOAD_TOO_LARGE, UPLOAD_TOO_LARGE
from storefront.state.upload_handlers import upload_handlers
from tests.e2e.conftest import StoreServer

HANDLERS = {kind: name for name, kind in upload_handlers().items()}
MB = 1024 * 1024


def _raw_post(url: str, headers: dict[str, str]) -> tuple[str, bytes]:
    """POSTs headers only (the declared body never follows) and reads the answer until closed."""
    address = urlsplit(url)
    lines = ["POST /_upload HTTP/1.1", f"Host: {address.netloc}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall("\r\n".join(lines).encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0].decode(), body


@pytest.mark.parametrize(
    ("handler", "size", "refusal"),
    [
        (HANDLERS["photo"], 150 * MB, PHOTO_UPLOAD_TOO_LARGE),
        (HANDLERS["photo"], 20 * MB, PHOTO_UPLOAD_TOO_LARGE),
        ("any", 20 * MB, PHOTO_UPLOAD_TOO_LARGE),
        (HANDLERS["images"], MAX_UPLOAD_BYTES + 1, UPLOAD_TOO_LARGE),
    ],
    ids=["try-on 150 MB", "try-on 20 MB", "unknown handler 20 MB", "photo picker over its cap"],
)
def test_an_upload_declared_over_its_handlers_cap_is_refused_at_once(
    store: StoreServer, handler: str, size: int, refusal: str
) -> None:
    status, body = _raw_post(store.url, {
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": str(size),
        "Reflex-Client-Token": "any",
        "Reflex-Event-Handler": handler,
    })
    assert status.split()[1] == "413"
    assert json.loads(body)["error"] == refusal


def test_an_upload_within_the_cap_still_reaches_reflex(store: StoreServer) -> None:
    # Reflex's own refusal of a request without its headers: the request got past the cap.
    status, _ = _raw_post(store.url, {"Content-Length": "0", "Connection": "close"})
    assert status.split()[1] == "400"
