"""Headers every answer of the backend carries (API, uploads, renditions, the built pages, Reflex's
own routes): one ASGI step, so no route can forget them.

- `X-Content-Type-Options: nosniff`: a browser never runs an uploaded file or a JSON answer as
  anything but its declared type.
- `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page (the back office first) can be
  framed by another site to trick a click.
- `Referrer-Policy: strict-origin-when-cross-origin`: other sites see our origin, never a path
  (an order's status address holds its access token).
- `Strict-Transport-Security` with STORE_ENV=production (a live store is served over HTTPS).
- `Content-Security-Policy`: on HTML pages, scripts from the store itself and the inline scripts
  of that very page (React Router's hydration context, the colour mode) by their sha256 hashes,
  Stripe.js when Stripe takes the payments; on every other answer nothing at all may load.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import logging
import os
import re
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import brotli
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storefront.config import PRODUCTION, Settings

log = logging.getLogger(__name__)

REFERRER_POLICY = "strict-origin-when-cross-origin"
HSTS = "max-age=31536000; includeSubDomains"
#: What a JSON answer, an image or any other non-page answer may load: nothing.
STRICT_POLICY = "default-src 'none'; frame-ancestors 'none'"
#: Where catalogue pictures come from before (or instead of) the store's own renditions.
IMAGE_HOSTS = ("https://images.printify.com", "https://images-api.printify.com", "https://cdn.shopify.com")
#: The players an event's video link opens in (services/events/cards.py embed_url).
VIDEO_FRAME_HOSTS = ("https://www.youtube-nocookie.com", "https://player.vimeo.com")
#: Stripe's own frames (3-D Secure) besides the Stripe.js host, as Stripe's CSP guide lists them.
STRIPE_HOOKS = "https://hooks.stripe.com"
STRIPE_JS_HOST = "js.stripe.com"
#: FastAPI's /api/docs page loads Swagger UI from this CDN (without integrity hashes), so the page
#: exists only outside production, where no admin token worth taking lives in the browser.
DOCS_PATH = "/api/docs"
DOCS_CDN = "https://cdn.jsdelivr.net"
#: A page larger than this is not held to find its inline scripts (the store's are ~100 KB).
MAX_PAGE_BYTES = 8 * 1024 * 1024

_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_SRC_ATTRIBUTE = re.compile(rb"\ssrc\s*=", re.I)


def origin_of(url: str) -> str:
    """scheme://host[:port] of an address."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def inline_script_hashes(html: bytes) -> tuple[str, ...]:
    """The CSP source of every inline <script> of the page ('sha256-...'), in page order."""
    hashes: list[str] = []
    for attributes, body in _INLINE_SCRIPT.findall(html):
        if _SRC_ATTRIBUTE.search(b" " + attributes):
            continue
        source = f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
        if source not in hashes:
            hashes.append(source)
    return tuple(hashes)


@dataclass(frozen=True)
class PagePolicy:
    """The Content-Security-Policy of the store's HTML pages, but for each page's inline scripts."""

    scripts: tuple[str, ...] = ()
    connects: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()
    #: Whether /api/docs is served (development only) and may load Swagger UI from its CDN.
    docs: bool = False

    def header(self, script_hashes: Iterable[str], path: str = "") -> str:
        docs = (DOCS_CDN,) if self.docs and path == DOCS_PATH else ()
        # Reflex runs the scripts the backend sends (rx.call_script) and their callbacks with
        # eval(): without 'unsafe-eval' the cart, the checkout and the admin gesture stop working.
        # Inline scripts stay refused but for this page's own, by hash; styles are injected at run
        # time by Radix and emotion, hence 'unsafe-inline' for styles only.
        directives = {
            "default-src": ["'self'"],
            "script-src": ["'self'", "'unsafe-eval'", *script_hashes, *self.scripts, *docs],
            "style-src": ["'self'", "'unsafe-inline'", *docs],
            "img-src": ["'self'", "data:", "blob:", *IMAGE_HOSTS, *(("https://fastapi.tiangolo.com",) if docs else ())],
            "font-src": ["'self'", "data:"],
            # 'self' covers the websocket to the backend on the same host and port (ws:/wss:).
            "connect-src": ["'self'", *self.connects],
            "media-src": ["'self'", "blob:", "https:"],  # an event's video file may be anywhere
            "frame-src": ["'self'", *VIDEO_FRAME_HOSTS, *self.frames],
            "worker-src": ["'self'", "blob:"],
            "object-src": ["'none'"],
            "base-uri": ["'self'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        }
        return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def page_policy(settings: Settings) -> PagePolicy:
    """The pages' policy for these settings: Stripe's hosts only when Stripe takes the payments,
    the docs page's CDN only outside production."""
    docs = settings.store_env != PRODUCTION
    if not settings.uses_stripe:
        return PagePolicy(docs=docs)
    js = origin_of(settings.stripe_js_url)
    scripts, frames = [js], [js, STRIPE_HOOKS]
    if urlsplit(js).hostname == STRIPE_JS_HOST:
        scripts.append(f"https://*.{STRIPE_JS_HOST}")
        frames.append(f"https://*.{STRIPE_JS_HOST}")
    return PagePolicy(
        scripts=tuple(scripts), connects=(origin_of(settings.stripe_api_base),), frames=tuple(frames), docs=docs
    )


class _HashCache:
    """A page's inline script hashes by the digest of its bytes as sent, or by the file a server
    sends itself (`http.response.pathsend`) and its size and time: each built file is read once."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.entries: OrderedDict[object, tuple[str, ...] | None] = OrderedDict()

    def _remember(self, key: object, compute: Callable[[], tuple[str, ...] | None]) -> tuple[str, ...] | None:
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        hashes = compute()
        self.entries[key] = hashes
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return hashes

    def get(self, body: bytes, encoding: str) -> tuple[str, ...] | None:
        """None when the page cannot be read (an encoding the store does not decode)."""
        key = hashlib.sha256(encoding.encode() + b"\0" + body).digest()
        return self._remember(key, lambda: _hashes_of(body, encoding))

    def of_file(self, path: str, encoding: str) -> tuple[str, ...] | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (path, stat.st_size, stat.st_mtime_ns, encoding)
        return self._remember(key, lambda: _hashes_of(Path(path).read_bytes(), encoding))


def _hashes_of(body: bytes, encoding: str) -> tuple[str, ...] | None:
    try:
        if encoding in ("", "identity"):
            return inline_script_hashes(body)
        if encoding == "gzip":
            return inline_script_hashes(gzip.decompress(body))
        if encoding == "deflate":
            return inline_script_hashes(zlib.decompress(body))
        if encoding == "br":
            return inline_script_hashes(brotli.decompress(body))
    except (OSError, EOFError, zlib.error, brotli.error):
        pass
    log.warning("A page sent with Content-Encoding %r could not be read: its inline scripts are refused", encoding)
    return None


class SecurityHeaders:
    """Adds the security headers to every HTTP answer; an HTML page is held until it is complete
    so its policy can name its inline scripts."""

    def __init__(self, app: ASGIApp, policy: PagePolicy | None = None, *, production: bool = False) -> None:
        self.app = app
        self.policy = policy or PagePolicy()
        self.production = production
        self.hashes = _HashCache()

    def _common(self, headers: MutableHeaders) -> None:
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        headers["Referrer-Policy"] = REFERRER_POLICY
        if self.production:
            headers["Strict-Transport-Security"] = HSTS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        held: list[bytes] = []
        size = 0

        async def send_with_headers(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                self._common(headers)
                if message["status"] == 304:
                    # The browser keeps the policy it stored with the page: a 304 must not replace it.
                    await send(message)
                elif headers.get("content-type", "").startswith("text/html") and scope["method"] != "HEAD":
                    start = message  # sent with the body, once its inline scripts are known
                else:
                    headers["Content-Security-Policy"] = (
                        self.policy.header((), scope["path"]) if headers.get("content-type", "").startswith("text/html")
                        else STRICT_POLICY
                    )
                    await send(message)
                return
            if start is not None and message["type"] == "http.response.pathsend":
                # The server sends the file itself (granian): its hashes come from the same file.
                headers = MutableHeaders(scope=start)
                hashes = self.hashes.of_file(message["path"], headers.get("content-encoding", "").strip().lower())
                headers["Content-Security-Policy"] = self.policy.header(hashes or (), scope["path"])
                await send(start)
                start = None
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            held.append(message.get("body", b""))
            size += len(held[-1])
            if message.get("more_body", False) and size <= MAX_PAGE_BYTES:
                return
            headers = MutableHeaders(scope=start)
            body = b"".join(held)
            hashes = (
                self.hashes.get(body, headers.get("content-encoding", "").strip().lower())
                if size <= MAX_PAGE_BYTES else None
            )
            headers["Content-Security-Policy"] = self.policy.header(hashes or (), scope["path"])
            await send(start)
            start = None
            held.clear()
            await send({**message, "body": body})

        await self.app(scope, receive, send_with_headers)
