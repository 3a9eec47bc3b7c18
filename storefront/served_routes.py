"""Serve each prerendered page at its own address, without the trailing-slash redirect.

The production build prerenders a page per route as `<route>/index.html`. Starlette's static
files treat `/products` as a directory and answer `307 -> /products/`, so every full load of a
link (`/products`, `/cart`, `/collections/swdnn`, ...) costs a round trip. This ASGI wrapper
serves the page's `index.html` for the address the links use: one rule, for every route.
"""

from __future__ import annotations

from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send


def prerendered_page(static_dir: Path, path: str) -> bool:
    """Whether `path` (no trailing slash, no file extension) has a prerendered `index.html`."""
    if path in ("", "/") or path.endswith("/"):
        return False
    last = path.rsplit("/", 1)[-1]
    if "." in last or ".." in path.split("/"):
        return False
    return (static_dir / path.lstrip("/") / "index.html").is_file()


class ServedRoutes:
    """Rewrites `GET /route` to `/route/` when the build holds a prerendered page for it."""

    def __init__(self, app: ASGIApp, static_dir: Path) -> None:
        self.app = app
        self.static_dir = static_dir

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and prerendered_page(self.static_dir, scope["path"])
        ):
            scope = {**scope, "path": scope["path"] + "/"}
            if scope.get("raw_path"):
                scope["raw_path"] = scope["raw_path"] + b"/"
        await self.app(scope, receive, send)


def served_routes(app: ASGIApp) -> ASGIApp:
    """The `api_transformer` step; does nothing unless the backend serves the built front end."""
    from reflex import constants
    from reflex.environment import environment
    from reflex.utils import prerequisites

    if not environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP.get():
        return app
    return ServedRoutes(app, prerequisites.get_web_dir() / constants.Dirs.STATIC)
