"""Reflex config of the bench's minimal page: the yardstick the storefront is compared with."""

import os

import reflex as rx

_port = int(os.environ.get("PORT", "3100"))

config = rx.Config(
    app_name="blank",
    telemetry_enabled=False,
    frontend_port=_port,
    backend_port=_port,
    show_built_with_reflex=False,
    disable_plugins=[rx.plugins.SitemapPlugin],
)
