"""Reflex configuration; every value comes from storefront/config.py (the environment)."""

import reflex as rx

from storefront.config import get_settings

_settings = get_settings()

config = rx.Config(
    app_name="storefront",
    telemetry_enabled=False,
    frontend_port=_settings.port,
    backend_port=_settings.port,
    # One worker keeps state in memory; several workers share it through Redis.
    state_manager_mode="redis" if _settings.redis_url else "memory",
    redis_url=_settings.redis_url or None,
    show_built_with_reflex=False,
    default_color_mode="light",
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(appearance="light", accent_color="ruby", gray_color="slate", radius="medium")
        )
    ],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
