"""Builds the Reflex app: theme, pages, the HTTP API."""

import reflex as rx

from storefront.api.app import create_api
from storefront.components import styles
from storefront.config import get_settings
from storefront.pages import home, not_found  # noqa: F401  (registers the pages)

app = rx.App(
    style=styles.base_style,
    api_transformer=create_api(get_settings()),
    toaster=rx.toast.provider(position="bottom-right", visible_toasts=1,
        custom_attrs={"hotkey": ["F8"], "duration": 5000},),
)
