"""Size caps on request bodies, applied before anything reads a byte of them.

Starlette and FastAPI read a body whole when a route asks for it (`request.body()`, a JSON
parameter) and Reflex's upload endpoint spools every file part to disk, with no limit of their own,
so one request could fill the memory or the disk before a handler looks at it. This ASGI step caps
each body by its path: a declared Content-Length over the cap is answered 413 at once, and a body
that grows past it while it arrives (chunked, or lying about its length) is cut off and answered
413. The answer has the API's shape: {"error": text, "details": {"limit_bytes": cap}}.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storefront.services.events.events import MAX_EVENT_IMAGES
from storefront.services.media.images import MAX_IMAGE_BYTES

#: Where Reflex takes uploads (`constants.Endpoint.UPLOAD` behind any backend path of the config).
UPLOAD_PATH = "/_upload"
#: The largest upload a form sends: the events form's ten images of 10 MB each, plus the
#: multipart framing and the form's own fields (the try-on page sends one photo).
MAX_UPLOAD_BYTES = MAX_EVENT_IMAGES * MAX_IMAGE_BYTES + 1024 * 1024
UPLOAD_TOO_LARGE = (
    f"This upload is too large: at most {MAX_EVENT_IMAGES} images of {MAX_IMAGE_BYTES // (1024 * 1024)} MB each."
)


@dataclass(frozen=True)
class BodyCap:
    """At most `limit` bytes of body for `path` (every path below it when `prefix`), refused with `message`."""

    path: str
    limit: int
    message: str
    prefix: bool = False

    def covers(self, path: str) -> bool:
        return path.startswith(self.path) if self.prefix else path == self.path


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length header as a number; None when absent, -1 when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


class BodyLimit:
    """Answers 413 to a body over the cap of the first of `caps` that covers its path (list the
    exact paths before the prefixes that hold them); paths no cap covers pass untouched."""

    def __init__(self, app: ASGIApp, caps: Sequence[BodyCap]) -> None:
        self.app = app
        self.caps = tuple(caps)

    def cap_for(self, path: str) -> BodyCap | None:
        return next((cap for cap in self.caps if cap.covers(path)), None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cap = self.cap_for(scope["path"]) if scope["type"] == "http" else None
        if cap is None:
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and not 0 <= declared <= cap.limit:
            await _refuse(scope, receive, send, cap)
            return
        received = 0
        cut_off = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, cut_off
            if cut_off:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap.limit:
                    # The app sees a client that went away (Reflex drops the spooled parts, a
                    # route's read fails) and its answer is replaced by the 413 below.
                    cut_off = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if cut_off:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not cut_off:
                raise
        if cut_off and not started:
            await _refuse(scope, receive, send, cap)


async def _refuse(scope: Scope, receive: Receive, send: Send, cap: BodyCap) -> None:
    response = JSONResponse(
        {"error": cap.message, "details": {"limit_bytes": cap.limit}},
        status_code=413,
        headers={"Connection": "close"},
    )
    await response(scope, receive, send)


def upload_limit(app: ASGIApp) -> ASGIApp:
    """The `api_transformer` step that caps Reflex's upload bodies, at the path Reflex serves them
    on (the API's own routes are capped inside the API, see storefront/api/app.py)."""
    from reflex import constants
    from reflex.config import get_config

    path = get_config().prepend_backend_path(str(constants.Endpoint.UPLOAD))
    return BodyLimit(app, [BodyCap(path, MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE)])
