"""Reflex configuration; every value comes from storefront/config.py (the environment)."""

import os
import sys

import reflex as rx

from storefront.config import get_settings
from storefront.web.css_plugin import PurgeRadixCss
from storefront.web.html_first import HtmlFirst
from storefront.web.prerender import ProductTemplate

_settings = get_settings()
# The production backend (`reflex run --env prod --backend-only`, see docs/production.md) refuses
# to start with a frontend port in the config, and Reflex reads the config before it acts on the flag.
_BACKEND_ONLY = "--backend-only" in sys.argv[1:] or os.environ.get("REFLEX_BACKEND_ONLY", "").lower() in {
    "1", "true", "yes",
}

if _settings.redis_url:
    # Several workers share state through Redis: a worker keeps the state of a browser it has just
    # served leased in memory for a moment (Reflex's opportunistic lock), so a burst of one
    # shopper's events (search keystrokes) costs no Redis round trips; another worker asking for
    # that state makes it write the state back at once. The environment may say otherwise.
    os.environ.setdefault("REFLEX_OPLOCK_ENABLED", "true")
    os.environ.setdefault("REFLEX_OPLOCK_HOLD_TIME", "2s")

config = rx.Config(
    app_name="storefront",
    telemetry_enabled=False,
    frontend_port=None if _BACKEND_ONLY else _settings.port,
    backend_port=_settings.port,
    # One worker keeps state in memory; several workers share it through Redis.
    state_manager_mode="redis" if _settings.redis_url else "memory",
    redis_url=_settings.redis_url or None,
    # Only the store's own pages may call the backend with credentials and open the websocket
    # (Reflex's CORS middleware and socket.io both read this; its default '*' reflects any origin).
    cors_allowed_origins=_settings.allowed_origin_list,
    show_built_with_reflex=False,
    default_color_mode="light",
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(appearance="light", accent_color="ruby", gray_color="slate", radius="medium")
        ),
        # One product page prerendered as the template of every product's first HTML.
        ProductTemplate(),
        # Production builds ship only the Radix rules the store can use (storefront/web/css_plugin.py).
        PurgeRadixCss(),
        # Pages paint from the server's HTML; the app starts after that paint (storefront/web/html_first.py).
        HtmlFirst(),
    ],
    # Every built script, stylesheet and page is stored brotli- and gzip-compressed beside itself;
    # the server sends brotli to browsers that accept it, gzip to the others (Vary: Accept-Encoding).
    frontend_compression_formats=["brotli", "gzip"],
    disable_plugins=[rx.plugins.SitemapPlugin],
    # The root imports only the libraries the framework itself needs, not every Radix Themes
    # component's module for dynamic components (the store has none): a page loads what it uses.
    frontend_lazy_bundled_libraries=True,
)
