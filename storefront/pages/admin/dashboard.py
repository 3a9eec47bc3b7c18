"""/admin/dashboard: 'Product Manager' with Logout and the back-office tabs the person's role may use."""

import reflex as rx

from storefront.components.admin.activity_tab import activity_tab
from storefront.components.admin.categories_tab import categories_tab
from storefront.components.admin.customers_tab import customers_tab
from storefront.components.admin.discounts_tab import discounts_tab
from storefront.components.admin.events_tab import events_tab
from storefront.components.admin.layout import admin_layout, content_box, tab_list
from storefront.components.admin.orders_tab import orders_tab
from storefront.components.admin.product_editor_tab import product_editor_tab
from storefront.components.admin.staff_tab import account_tab, enrolment_screen, staff_tab
from storefront.components.admin.sync_pricing_tab import sync_pricing_tab
from storefront.services.staff import roles
from storefront.state.admin.login import AdminLoginState
from storefront.state.admin.session import AdminState
from storefront.state.admin.staff import TwoFactorState

# (value, label, short label on small screens, icon)
TABS: list[tuple[str, str, str, str]] = [
    ("editor", "Product Editor", "Editor", "pencil"),
    ("categories", "Categories", "Categories", "layout-grid"),
    ("orders", "Orders", "Orders", "shopping-bag"),
    ("events", "Events", "Events", "calendar"),
    ("sync", "Sync & Pricing", "Sync", "refresh-cw"),
    ("discounts", "Discounts", "Discounts", "ticket-percent"),
    ("customers", "Customers", "Customers", "contact"),
    ("staff", "Staff", "Staff", "users"),
    ("activity", "Activity", "Activity", "history"),
    ("account", "Account", "Account", "user-cog"),
]

#: What a role needs to see each tab (the server checks every handler and route again).
TAB_PERMISSIONS: dict[str, str] = {
    "editor": roles.PRODUCTS,
    "categories": roles.CATEGORIES,
    "orders": roles.ORDERS,
    "events": roles.EVENTS,
    "sync": roles.SYNC,
    "discounts": roles.DISCOUNTS,
    "customers": roles.CUSTOMERS,
    "staff": roles.ACCOUNTS,
    "activity": roles.ACTIVITY,
    "account": roles.SIGNED_IN,
}


def allowed(value: str, component: rx.Component) -> rx.Component:
    """`component` only for a role that may use the tab `value` (a tab not in the table is shown to all)."""
    permission = TAB_PERMISSIONS.get(value)
    return component if permission is None else rx.cond(AdminState.permissions.contains(permission), component)


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


def dashboard_tabs() -> rx.Component:
    return rx.tabs.root(
        tab_list(*[allowed(tab[0], tab_trigger(*tab)) for tab in TABS]),
        allowed("editor", rx.tabs.content(product_editor_tab(), value="editor", padding_top="1.5rem")),
        allowed("categories", rx.tabs.content(categories_tab(), value="categories", padding_top="1.5rem")),
        allowed("orders", rx.tabs.content(orders_tab(), value="orders", padding_top="1.5rem")),
        allowed("events", rx.tabs.content(events_tab(), value="events", padding_top="1.5rem")),
        allowed("sync", rx.tabs.content(sync_pricing_tab(), value="sync", padding_top="1.5rem")),
        allowed("customers", rx.tabs.content(customers_tab(), value="customers", padding_top="1.5rem")),
        allowed("staff", rx.tabs.content(staff_tab(), value="staff", padding_top="1.5rem")),
        allowed("activity", rx.tabs.content(activity_tab(), value="activity", padding_top="1.5rem")),
        allowed("discounts", rx.tabs.content(discounts_tab(), value="discounts", padding_top="1.5rem")),
        allowed("account", rx.tabs.content(account_tab(), value="account", padding_top="1.5rem")),
        # A role without the editor (fulfilment) opens on the orders.
        default_value=rx.cond(AdminState.permissions.contains(roles.PRODUCTS), "editor", "orders"),
        width="100%",
    )


@rx.page(route="/admin/dashboard", title="Product Manager | Admin", on_load=AdminState.require_session)
def admin_dashboard() -> rx.Component:
    return admin_layout(
        rx.vstack(
            dashboard_header(),
            # While two-factor sign-in is due, only setting it up (the server refuses the rest).
            rx.cond(
                AdminState.two_factor_due | TwoFactorState.codes_before_dashboard,
                enrolment_screen(),
                dashboard_tabs(),
            ),
            spacing="5",
            style=content_box,
        )
    )
