"""A size cap on Reflex's own upload endpoint (`POST /_upload`).

Reflex hands the body to Starlette's form parser, which spools every file part to disk with no
limit of its own, so one request could fill the disk before our handlers see a byte. The browser
already refuses files over 10 MB and more than the form allows; this wrapper makes the server say
the same: a declared length over the cap is refused at once, and a body that grows past it while
it arrives (chunked, or lying about its length) is cut off and answered 413.
"""

from __future__ import annotations

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


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length header as a number; None when absent, -1 when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


class UploadLimit:
    """Answers 413 to an upload body over `limit` bytes; every other request passes untouched."""

    def __init__(self, app: ASGIApp, limit: int = MAX_UPLOAD_BYTES, path: str = UPLOAD_PATH) -> None:
        self.app = app
        self.limit = limit
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and not 0 <= declared <= self.limit:
            await _refuse(scope, receive, send, self.limit)
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
                if received > self.limit:
                    # The app sees a client that went away: Reflex drops the spooled parts.
                    cut_off = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if cut_off:
                return  # the app's answer to a cut-off body is replaced by the 413 below
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not cut_off:
                raise
        if cut_off and not started:
            await _refuse(scope, receive, send, self.limit)


async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    response = JSONResponse(
        {"error": UPLOAD_TOO_LARGE, "details": {"limit_bytes": limit}},
        status_code=413,
        headers={"Connection": "close"},
    )
    await response(scope, receive, send)


def upload_limit(app: ASGIApp) -> ASGIApp:
    """The `api_transformer` step that caps upload bodies, at the path Reflex serves them on."""
    from reflex import constants
    from reflex.config import get_config

    return UploadLimit(app, path=get_config().prepend_backend_path(str(constants.Endpoint.UPLOAD)))
