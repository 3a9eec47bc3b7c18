"""The configuration banner above the product listing (shown only when the provider's or the store
platform's check fails)."""

import reflex as rx

from storefront.components import styles
from storefront.state.config_banner import ConfigBannerState as S

SETUP_STEPS = [
    "Create a Printify personal access token (Account > Connections) with the shops, products, "
    "orders and webhooks scopes.",
    "Set PRINTIFY_API_TOKEN (and PRINTIFY_SHOP_ID to pick a shop other than the first) in the "
    "store's environment, then restart it.",
    "For the second catalogue, set SHOPIFY_STORE_DOMAIN and a Storefront API token "
    "(SHOPIFY_STOREFRONT_PRIVATE_TOKEN or SHOPIFY_STOREFRONT_TOKEN); SHOPIFY_API_VERSION defaults to 2026-10.",
    "Limits: Printify allows 600 requests per minute globally and 200 per 30 minutes for "
    "publishing; the store platform's Storefront API has no fixed request limit (bots are throttled).",
]


def status_line(label: str, value: rx.Var) -> rx.Component:
    return rx.hstack(rx.text(label, weight="medium", size="2"), rx.text(value, size="2"), spacing="2")


def setup_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.trigger(rx.button("API Setup Instructions", variant="outline", size="2")),
        rx.dialog.content(
            rx.dialog.title("API Setup Instructions"),
            rx.el.ol(
                *[rx.el.li(rx.text(step, size="2")) for step in SETUP_STEPS],
                style={"padding_left": "1.25rem", "display": "grid", "gap": "0.5rem"},
            ),
            rx.dialog.close(rx.button("Close", variant="soft", margin_top="1rem")),
        ),
    )


def config_banner() -> rx.Component:
    # The wrapper says when the check has finished, so a hidden banner can be told from a pending one.
    return rx.box(_banner(), custom_attrs={"data-config-check": rx.cond(S.checking, "checking", "done")}, width="100%")


def _banner() -> rx.Component:
    return rx.cond(
        S.visible,
        rx.callout.root(
            rx.callout.icon(rx.icon("triangle-alert")),
            rx.vstack(
                rx.text(S.title, weight="bold"),
                rx.box(
                    status_line("Configured:", rx.cond(S.configured, "Yes", "No")),
                    status_line("API key set:", rx.cond(S.has_api_key, "Yes", "No")),
                    status_line("Key length:", S.api_key_length.to(str)),
                    status_line("Last checked:", S.checked_at),
                    status_line("Store platform:", S.store_state),
                    padding="0.5rem 0.75rem",
                    border_radius="8px",
                    background=styles.SURFACE,
                ),
                rx.hstack(
                    setup_dialog(),
                    rx.button(rx.icon("refresh-cw", size=14), "Refresh Config", size="2", on_click=S.refresh),
                    rx.link(rx.button("Go to Admin", variant="ghost", size="2"), href="/admin"),
                    wrap="wrap",
                    spacing="2",
                ),
                spacing="2",
            ),
            color_scheme=rx.cond(S.variant == "destructive", "red", "amber"),
            width="100%",
            data_testid="config-banner",
        ),
    )
