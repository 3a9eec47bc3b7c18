"""The served store refuses an upload body over the cap on Reflex's own upload endpoint."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

from storefront.body_limit import MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE
from tests.e2e.conftest import StoreServer


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


def test_an_upload_declared_over_the_cap_is_refused_at_once(store: StoreServer) -> None:
    status, body = _raw_post(store.url, {
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": str(MAX_UPLOAD_BYTES + 1),
        "Reflex-Client-Token": "any",
        "Reflex-Event-Handler": "any",
    })
    assert status.split()[1] == "413"
    assert json.loads(body)["error"] == UPLOAD_TOO_LARGE


def test_an_upload_within_the_cap_still_reaches_reflex(store: StoreServer) -> None:
    # Reflex's own refusal of a request without its headers: the request got past the cap.
    status, _ = _raw_post(store.url, {"Content-Length": "0", "Connection": "close"})
    assert status.split()[1] == "400"
