"""/admin/dashboard: 'Product Manager' with Logout and the back-office tabs."""

import reflex as rx

from storefront.components.admin.categories_tab import categories_tab
from storefront.components.admin.discounts_tab import discounts_tab
from storefront.components.admin.events_tab import events_tab
from storefront.components.admin.layout import admin_layout, content_box, tab_list
from storefront.components.admin.orders_tab import orders_tab
from storefront.components.admin.product_editor_tab import product_editor_tab
from storefront.components.admin.sync_pricing_tab import sync_pricing_tab
from storefront.state.admin.login import AdminLoginState
from storefront.state.admin.session import AdminState

# (value, label, short label on small screens, icon)
TABS: list[tuple[str, str, str, str]] = [
    ("editor", "Product Editor", "Editor", "pencil"),
    ("categories", "Categories", "Categories", "layout-grid"),
    ("orders", "Orders", "Orders", "shopping-bag"),
    ("events", "Events", "Events", "calendar"),
    ("sync", "Sync & Pricing", "Sync", "refresh-cw"),
    ("discounts", "Discounts", "Discounts", "ticket-percent"),
]


def tab_trigger(value: str, label: str, short: str, icon: str) -> rx.Component:
    return rx.tabs.trigger(
        rx.hstack(
            rx.icon(icon, size=16),
            rx.text(label, display=rx.breakpoints(initial="none", sm="inline")),
            rx.text(short, display=rx.breakpoints(initial="inline", sm="none"), aria_hidden="true"),
            spacing="2",
            align="center",
        ),
        value=value,
        aria_label=label,
    )


def dashboard_header() -> rx.Component:
    return rx.hstack(
        rx.heading("Product Manager", as_="h1", size="7"),
        rx.button(rx.icon("log-out", size=16), "Logout", variant="outline", on_click=AdminLoginState.logout),
        justify="between",
        align="center",
        width="100%",
    )


@rx.page(route="/admin/dashboard", title="Product Manager | Admin", on_load=AdminState.require_session)
def admin_dashboard() -> rx.Component:
    return admin_layout(
        rx.vstack(
            dashboard_header(),
            rx.tabs.root(
                tab_list(*[tab_trigger(*tab) for tab in TABS]),
                rx.tabs.content(product_editor_tab(), value="editor", padding_top="1.5rem"),
                rx.tabs.content(categories_tab(), value="categories", padding_top="1.5rem"),
                rx.tabs.content(orders_tab(), value="orders", padding_top="1.5rem"),
                rx.tabs.content(events_tab(), value="events", padding_top="1.5rem"),
                rx.tabs.content(sync_pricing_tab(), value="sync", padding_top="1.5rem"),
                rx.tabs.content(discounts_tab(), value="discounts", padding_top="1.5rem"),
                default_value="editor",
                width="100%",
            ),
            spacing="5",
            style=content_box,
        )
    )
