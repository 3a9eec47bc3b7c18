"""An image host on a loopback address, for the image copier's tests: an image, redirects to any
address, a body larger than the limit, and one that drips in forever; it records what it was asked."""

from __future__ import annotations

import io
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from PIL import Image

from tests.fakes.loopback import LoopbackHTTPServer


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 40)).save(out, "PNG")
    return out.getvalue()


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackHTTPServer

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        host: FakeImageHost = self.server.fake
        parts = urlsplit(self.path)
        with host.lock:
            host.requests.append(parts.path)
        if parts.path == "/image.png":
            self._send(200, png_bytes(), "image/png")
        elif parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path == "/declared-huge":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(host.huge_bytes))
            self.end_headers()
            self.wfile.write(b"\x89PNG")
        elif parts.path == "/huge":  # no length declared: only counting tells
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self._stream(lambda: b"\0" * 65536, until=host.huge_bytes)
        elif parts.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self._stream(lambda: (time.sleep(0.05), b"\0")[1], until=None)
        else:
            self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, chunk, until: int | None) -> None:  # type: ignore[no-untyped-def]
        self.close_connection = True
        sent = 0
        try:
            while until is None or sent <= until:
                data = chunk()
                self.wfile.write(data)
                self.wfile.flush()
                sent += len(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading, as it should


class FakeImageHost:
    """Serves on `address` (any loopback address: 127.0.0.1, 127.0.0.2, ...) until stop()."""

    def __init__(self, address: str = "127.0.0.1", huge_bytes: int = 11 * 1024 * 1024) -> None:
        self.address = address
        self.huge_bytes = huge_bytes
        self.requests: list[str] = []
        self.lock = threading.Lock()
        self._httpd = LoopbackHTTPServer((address, 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://{self.address}:{self._httpd.server_address[1]}"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
