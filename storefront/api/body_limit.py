"""Size caps on request bodies, applied before anything reads a byte of them, and the gate of
Reflex's upload endpoint.

Starlette and FastAPI read a body whole when a route asks for it (`request.body()`, a JSON
parameter) and Reflex's upload endpoint spools every file part to disk, with no limit of their own,
so one request could fill the memory or the disk before a handler looks at it. This ASGI step caps
each body by its path: a declared Content-Length over the cap is answered 413 at once, and a body
that grows past it while it arrives (chunked, or lying about its length) is cut off and answered
413. The answer has the API's shape: {"error": text, "details": {"limit_bytes": cap}}.

Reflex's `/_upload` serves every upload handler of the app; the request names its handler in the
`Reflex-Event-Handler` header. `UploadGate` gives each handler its own cap (the try-on page's photo
is one image, the admin's photo picker ten), counts the handler's rate limit and bounds the uploads
one client address has open at once, all before a byte of the body is read; a handler it does not
know gets the try-on's cap and count (Reflex refuses it anyway).
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storefront.services.events.events import MAX_EVENT_IMAGES
from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import TooManyRequestsError

#: Where Reflex takes uploads (`constants.Endpoint.UPLOAD` behind any backend path of the config).
UPLOAD_PATH = "/_upload"
#: The largest upload a form sends: the events form's ten images of 10 MB each, plus the
#: multipart framing and the form's own fields (the try-on page sends one photo).
MAX_UPLOAD_BYTES = MAX_EVENT_IMAGES * MAX_IMAGE_BYTES + 1024 * 1024
UPLOAD_TOO_LARGE = (
    f"This upload is too large: at most {MAX_EVENT_IMAGES} images of {MAX_IMAGE_BYTES // (1024 * 1024)} MB each."
)
#: The try-on page sends one photo: the largest image and room for the multipart framing.
MAX_PHOTO_UPLOAD_BYTES = MAX_IMAGE_BYTES + 64 * 1024
PHOTO_UPLOAD_TOO_LARGE = f"This photo is too large: at most {MAX_IMAGE_BYTES // (1024 * 1024)} MB."
#: The header in which Reflex's upload names the event handler that takes the files.
HANDLER_HEADER = b"reflex-event-handler"
#: Uploads one client address may have open at once in one process (each may spool its cap to disk).
PARALLEL_UPLOADS_PER_ADDRESS = 2
TOO_MANY_PARALLEL_UPLOADS = "Too many uploads at once from your address. Please wait for the others to finish."


@dataclass(frozen=True)
class BodyCap:
    """At most `limit` bytes of body for `path` (every path below it when `prefix`), refused with `message`."""

    path: str
    limit: int
    message: str
    prefix: bool = False
    #: `path` is a regular expression the whole path must match (a route with a parameter).
    pattern: bool = False
    #: The cap holds only for a request from a signed-in admin; anyone else's body meets the next
    #: cap that covers the path (an admin route's large cap is no bigger door for a stranger: the
    #: guard refuses them, but only after the route's body is read).
    signed_in_only: bool = False

    def covers(self, path: str) -> bool:
        if self.pattern:
            return re.fullmatch(self.path, path) is not None
        return path.startswith(self.path) if self.prefix else path == self.path


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length header as a number; None when absent, -1 when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


#: Whether a request comes from a signed-in admin (read from its headers, before its body).
SignedInCheck = Callable[[Scope], Awaitable[bool]]


async def _nobody_signed_in(_scope: Scope) -> bool:
    return False


class BodyLimit:
    """Answers 413 to a body over the cap of the first of `caps` that covers its path (list the
    exact paths before the prefixes that hold them); paths no cap covers pass untouched. A cap
    `signed_in_only` is skipped unless `signed_in` says the request is an admin's."""

    def __init__(self, app: ASGIApp, caps: Sequence[BodyCap], signed_in: SignedInCheck = _nobody_signed_in) -> None:
        self.app = app
        self.caps = tuple(caps)
        self.signed_in = signed_in

    def cap_for(self, path: str, *, signed_in: bool = True) -> BodyCap | None:
        """The cap of a request to `path` from an admin (`signed_in`) or from anyone else."""
        return next(
            (cap for cap in self.caps if cap.covers(path) and (signed_in or not cap.signed_in_only)), None
        )

    async def _cap(self, scope: Scope) -> BodyCap | None:
        cap = self.cap_for(scope["path"])
        if cap is not None and cap.signed_in_only and not await self.signed_in(scope):
            return self.cap_for(scope["path"], signed_in=False)
        return cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cap = await self._cap(scope) if scope["type"] == "http" else None
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


@dataclass(frozen=True)
class UploadRule:
    """What one upload handler takes: at most `limit` bytes a request, refused with `message`;
    `count(client address)` counts the request first (TooManyRequestsError past its limit)."""

    limit: int
    message: str
    count: Callable[[str], None] | None = None


def upload_path() -> str:
    """Where Reflex takes uploads (`constants.Endpoint.UPLOAD` behind the config's backend path)."""
    from reflex import constants
    from reflex.config import get_config

    return get_config().prepend_backend_path(str(constants.Endpoint.UPLOAD))


class UploadGate:
    """Reflex's upload endpoint at `path`: each handler's cap and count, and at most `parallel`
    uploads open per client address, before the body is read. Sits inside the proxy-headers step,
    so the client address is the one the rate limits count everywhere else."""

    def __init__(
        self,
        app: ASGIApp,
        path: str,
        rules: Mapping[str, UploadRule],
        fallback: UploadRule,
        parallel: int = PARALLEL_UPLOADS_PER_ADDRESS,
    ) -> None:
        self.app = app
        self.path = path
        self.rules = {name.encode(): rule for name, rule in rules.items()}
        self.fallback = fallback
        self.parallel = parallel
        self.open: Counter[str] = Counter()
        self._capped = {
            rule: BodyLimit(app, [BodyCap(path, rule.limit, rule.message)]) for rule in {*rules.values(), fallback}
        }

    def rule_for(self, scope: Scope) -> UploadRule:
        handler = next((value for name, value in scope.get("headers", ()) if name == HANDLER_HEADER), b"")
        return self.rules.get(handler.strip(), self.fallback)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        rule = self.rule_for(scope)
        declared = _declared_length(scope)
        if declared is not None and not 0 <= declared <= rule.limit:
            await _refuse(scope, receive, send, BodyCap(self.path, rule.limit, rule.message))
            return
        client = (scope.get("client") or ("unknown",))[0] or "unknown"
        if self.open[client] >= self.parallel:
            await _too_many(scope, receive, send, TOO_MANY_PARALLEL_UPLOADS, None)
            return
        self.open[client] += 1
        try:
            if rule.count is not None:
                try:
                    await asyncio.to_thread(rule.count, client)
                except TooManyRequestsError as refused:
                    await _too_many(scope, receive, send, refused.message, refused.retry_after)
                    return
            await self._capped[rule](scope, receive, send)
        finally:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]


async def _too_many(scope: Scope, receive: Receive, send: Send, message: str, retry_after: int | None) -> None:
    headers = {"Connection": "close"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    await JSONResponse({"error": message, "details": None}, status_code=429, headers=headers)(scope, receive, send)
