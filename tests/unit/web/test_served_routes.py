"""Issue 9: a prerendered page is served at the address the links use, without a redirect."""

import asyncio
from pathlib import Path

from storefront.web.served_routes import ServedRoutes, prerendered_page


def _build(tmp_path: Path) -> Path:
    for page in ("products", "collections/swdnn"):
        (tmp_path / page).mkdir(parents=True)
        (tmp_path / page / "index.html").write_text("<html></html>")
    (tmp_path / "assets").mkdir()
    return tmp_path


def _served_path(app: ServedRoutes, path: str, method: str = "GET", kind: str = "http") -> str:
    seen: list[str] = []

    async def inner(scope, receive, send) -> None:
        seen.append(scope["path"])

    app.app = inner
    asyncio.run(app({"type": kind, "method": method, "path": path, "raw_path": path.encode()}, None, None))
    return seen[0]


def test_a_route_with_a_prerendered_page_is_served_from_its_directory(tmp_path: Path) -> None:
    app = ServedRoutes(None, _build(tmp_path))
    assert _served_path(app, "/products") == "/products/"
    assert _served_path(app, "/collections/swdnn") == "/collections/swdnn/"
    assert _served_path(app, "/products", method="HEAD") == "/products/"


def test_other_requests_pass_unchanged(tmp_path: Path) -> None:
    app = ServedRoutes(None, _build(tmp_path))
    assert _served_path(app, "/") == "/"
    assert _served_path(app, "/products/") == "/products/"
    assert _served_path(app, "/product/42") == "/product/42"
    assert _served_path(app, "/assets") == "/assets"
    assert _served_path(app, "/api/orders") == "/api/orders"
    assert _served_path(app, "/products", method="POST") == "/products"
    assert _served_path(app, "/products", kind="websocket", method="GET") == "/products"


def test_only_plain_page_addresses_are_looked_up(tmp_path: Path) -> None:
    static = _build(tmp_path)
    assert prerendered_page(static, "/products")
    assert not prerendered_page(static, "/products.html")
    assert not prerendered_page(static, "/../products")
    assert not prerendered_page(static, "")
