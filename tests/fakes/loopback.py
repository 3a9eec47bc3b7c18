"""Serving a fake over HTTP on 127.0.0.1 in a daemon thread: what every fake server shares."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server whose handlers reach their fake as `self.server.fake`."""

    daemon_threads = True
    fake: Any


class LoopbackServer:
    """Mixin of a fake served on loopback: `serve` in a thread, `port`, `stop`, and `with` support
    (which calls the fake's own `start()`, where it names its request handler)."""

    _httpd: LoopbackHTTPServer | None = None
    _thread: threading.Thread | None = None

    def serve(self, handler: type[BaseHTTPRequestHandler], port: int, name: str) -> None:
        """Serve this fake on `port` (0: a free one) until stop()."""
        httpd = LoopbackHTTPServer(("127.0.0.1", port), handler)
        httpd.fake = self
        thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True)
        self._httpd, self._thread = httpd, thread
        thread.start()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() the server first"
        return self._httpd.server_address[1]

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()  # type: ignore[attr-defined]  # each fake's start() names its handler

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
