"""Serve each prerendered page at its own address, without the trailing-slash redirect.

The production build prerenders a page per route as `<route>/index.html`. Starlette's static
files treat `/products` as a directory and answer `307 -> /products/`, so every full load of a
link (`/products`, `/cart`, `/collections/swdnn`, ...) costs a round trip. This ASGI wrapper
serves the page's `index.html` for the address the links use: one rule, for every route. It also
sends each built file's cache lifetime (Starlette's static files send none).
"""

from __future__ import annotations

from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storefront.api.static import IMMUTABLE, ONE_HOUR
from storefront.web.first_view import PAGE_PATH
from storefront.web.prerender import TEMPLATES


def prerendered_page(static_dir: Path, path: str) -> bool:
    """Whether `path` (no trailing slash, no file extension) has a prerendered `index.html`."""
    if path in ("", "/") or path.endswith("/"):
        return False
    last = path.rsplit("/", 1)[-1]
    if "." in last or ".." in path.split("/"):
        return False
    return (static_dir / path.lstrip("/") / "index.html").is_file()


def page_served(static_dir: Path, path: str) -> str | None:
    """The built page that answers `path`: its prerendered page, or for a product (ours or the
    Shopify store's) the one template the build prerenders for every such product
    (storefront/web/prerender.py). None when no page does."""
    if path == "/":
        return path if (static_dir / "index.html").is_file() else None
    if prerendered_page(static_dir, path):
        return path + "/"
    for prefix, template in TEMPLATES.items():
        product_id = path.removeprefix(prefix)
        if path.startswith(prefix) and product_id and "/" not in product_id and "." not in product_id:
            return template + "/" if prerendered_page(static_dir, template) else None
    return None


#: The bundler names these files by their content: a new build never reuses a name.
HASHED_DIR = "assets/"
# Other built files (icons, the placeholder, styles.css) keep their names across builds: ONE_HOUR.
#: Pages are checked with the server on every load, so a new build is seen at once.
REVALIDATE = "no-cache"


def cache_control(static_dir: Path, path: str) -> str | None:
    """The Cache-Control of a built file or page at `path`, None when the build has no such file."""
    if path in ("", "/") or prerendered_page(static_dir, path.rstrip("/")) or path.endswith(".html"):
        return REVALIDATE
    relative = path.lstrip("/")
    if ".." in relative.split("/") or not (static_dir / relative).is_file():
        return None
    return IMMUTABLE if relative.startswith(HASHED_DIR) else ONE_HOUR


class ServedRoutes:
    """Rewrites `GET /route` to the built page that answers it (`/route/`, the product template),
    keeping the address asked for in the scope (`PAGE_PATH`, for first_view.py), and gives every
    built file the cache lifetime its name allows."""

    def __init__(self, app: ASGIApp, static_dir: Path) -> None:
        self.app = app
        self.static_dir = static_dir

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        lifetime = cache_control(self.static_dir, scope["path"])
        served = page_served(self.static_dir, scope["path"])
        if served is not None:
            lifetime = REVALIDATE
            scope = {**scope, "path": served, "raw_path": served.encode(), PAGE_PATH: scope["path"]}
        if lifetime is None:
            await self.app(scope, receive, send)
            return

        async def send_with_lifetime(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                headers = MutableHeaders(scope=message)
                headers.setdefault("cache-control", lifetime)
            await send(message)

        await self.app(scope, receive, send_with_lifetime)


def served_routes(app: ASGIApp) -> ASGIApp:
    """The `api_transformer` step; does nothing unless the backend serves the built front end."""
    from reflex import constants
    from reflex.environment import environment
    from reflex.utils import prerequisites

    if not environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP.get():
        return app
    return ServedRoutes(app, prerequisites.get_web_dir() / constants.Dirs.STATIC)
