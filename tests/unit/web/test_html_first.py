"""The build step that lets a page paint before the app starts (storefront/web/html_first.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

import brotli

from storefront.api.security_headers import inline_script_hashes
from storefront.web.html_first import HELD_TYPE, STARTER, defer_start, rewrite_built_pages

APP = (
    'import "/assets/manifest-1.js"; import * as route0 from "/assets/root-2.js"; import("/assets/entry.client-3.js");'
)
BUILT = (
    '<html><head><link rel="modulepreload" href="/assets/manifest-1.js"/>'
    '<link rel="modulepreload" href="/assets/entry.client-3.js"/><link rel="stylesheet" href="/assets/s.css"/></head>'
    "<body><main>Hello</main><script>window.__ctx = 1;</script>"
    f'<script type="module" async="">{APP}</script></body></html>'
)


def test_the_app_script_is_held_with_its_preloads_and_the_starter_follows() -> None:
    page = defer_start(BUILT)
    assert 'rel="modulepreload"' not in page and '<script type="module"' not in page
    assert (
        f'<script type="{HELD_TYPE}" data-preload="/assets/manifest-1.js /assets/entry.client-3.js">{APP}</script>'
        in page
    )
    assert f"<script>{STARTER}</script>" in page
    assert page.index(HELD_TYPE) < page.index(STARTER) and '<link rel="stylesheet"' in page
    # The page's CSP names the held script and the starter by their hashes (the starter injects the held text).
    assert len(inline_script_hashes(page.encode())) == 3
    assert defer_start(page) == page


def test_a_page_without_the_app_script_is_left_as_built() -> None:
    assert defer_start("<html><body>plain</body></html>") == "<html><body>plain</body></html>"


def test_built_pages_and_their_compressed_copies_are_rewritten_but_the_back_office(tmp_path: Path) -> None:
    for name in ("products/index.html", "admin/index.html", "__spa-fallback.html"):
        page = tmp_path / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(BUILT)
        page.with_name(page.name + ".br").write_bytes(brotli.compress(BUILT.encode()))
        page.with_name(page.name + ".gz").write_bytes(gzip.compress(BUILT.encode()))
    assert rewrite_built_pages(tmp_path) == 1
    served = tmp_path / "products" / "index.html"
    assert HELD_TYPE in served.read_text()
    assert brotli.decompress((tmp_path / "products" / "index.html.br").read_bytes()) == served.read_bytes()
    assert gzip.decompress((tmp_path / "products" / "index.html.gz").read_bytes()) == served.read_bytes()
    assert (tmp_path / "admin" / "index.html").read_text() == BUILT
    assert (tmp_path / "__spa-fallback.html").read_text() == BUILT
