"""/admin/products: Product Management (simple): shop selector, Create Product and Publish Product."""

from typing import Any

import reflex as rx

from storefront.components import styles
from storefront.components.admin.design_fields import design_section, margin_table, mockups, options
from storefront.components.admin.layout import admin_layout, content_box, section_card, tab_list
from storefront.components.admin.shops import shop_buttons
from storefront.services.staff.two_factor import SET_UP_FIRST
from storefront.state.admin.product_design import ProductDesignState
from storefront.state.admin.product_management import (
    CREATE_TAB,
    DEFAULT_PRICE,
    PRINT_PROVIDER_OPTIONS,
    PRODUCT_TYPE_OPTIONS,
    PUBLISH_TAB,
    ProductManagementState,
    PublishOption,
)
from storefront.state.admin.session import DASHBOARD_ROUTE, AdminState
from storefront.state.admin.shops import ShopsState

S = ProductManagementState
ROUTE = "/admin/products"


def field_message(name: str) -> rx.Component:
    message = S.field_errors[name]
    return rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1", data_testid=f"error-{name}"))


def labelled(label: str, control_id: str, control: rx.Component, name: str) -> rx.Component:
    return rx.vstack(
        rx.el.label(rx.text(label, size="2", weight="medium"), html_for=control_id),
        control,
        field_message(name),
        spacing="1",
        width="100%",
    )


def choice(
    name: str, control_id: str, placeholder: str, options: list[tuple[str, str]], on_change: Any = None
) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder=placeholder, id=control_id, width="100%"),
        rx.select.content(*[rx.select.item(label, value=value) for value, label in options]),
        name=name,
        size="3",
        on_change=on_change,
    )


def create_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            labelled(
                "Title", "create-title", rx.input(id="create-title", name="title", size="3", width="100%"), "title"
            ),
            labelled(
                "Description",
                "create-description",
                rx.text_area(id="create-description", name="description", rows="4", width="100%"),
                "description",
            ),
            design_section(),
            field_message("design"),
            field_message("placement"),
            rx.grid(
                labelled(
                    "Product type",
                    "create-blueprint",
                    choice(
                        "blueprintId",
                        "create-blueprint",
                        "Select a product type",
                        PRODUCT_TYPE_OPTIONS,
                        lambda value: ProductDesignState.choose_type("blueprint", value),
                    ),
                    "blueprintId",
                ),
                labelled(
                    "Print provider",
                    "create-provider",
                    choice(
                        "printProviderId",
                        "create-provider",
                        "Select a print provider",
                        PRINT_PROVIDER_OPTIONS,
                        lambda value: ProductDesignState.choose_type("provider", value),
                    ),
                    "printProviderId",
                ),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="4",
                width="100%",
            ),
            labelled(
                "Price (USD)",
                "create-price",
                rx.input(
                    id="create-price",
                    name="price",
                    type="number",
                    default_value=DEFAULT_PRICE,
                    step=0.01,
                    min=0,
                    size="3",
                    width="12rem",
                    on_change=ProductDesignState.set_price_text.debounce(300),
                ),
                "price",
            ),
            options(),
            field_message("colors"),
            field_message("sizes"),
            margin_table(),
            field_message("shopId"),
            rx.button(
                rx.cond(S.creating, "Creating...", "Create Product"),
                type="submit",
                size="3",
                loading=S.creating,
            ),
            mockups(),
            spacing="4",
            width="100%",
        ),
        key=S.form_key,
        on_submit=S.create_product,
        reset_on_submit=False,
        no_validate=True,
    )


def publish_option(option: PublishOption) -> rx.Component:
    return rx.select.item(option["label"], value=option["id"])


def publish_form() -> rx.Component:
    return rx.vstack(
        rx.el.label(rx.text("Product", size="2", weight="medium"), html_for="publish-product"),
        rx.select.root(
            rx.select.trigger(placeholder="Select a product", id="publish-product", width="100%"),
            rx.select.content(rx.foreach(S.rows, publish_option)),
            value=S.selected_id,
            on_change=S.select_product,
            size="3",
        ),
        rx.cond(
            S.has_more,
            rx.button("Load more products", size="1", variant="ghost", loading=S.loading_more, on_click=S.load_more),
        ),
        rx.button(
            rx.cond(S.publishing, "Publishing...", "Publish Product"),
            size="3",
            loading=S.publishing,
            on_click=S.publish_product,
        ),
        spacing="3",
        width="100%",
        max_width="36rem",
    )


def management_tabs() -> rx.Component:
    return rx.tabs.root(
        tab_list(
            rx.tabs.trigger("Create Product", value=CREATE_TAB),
            rx.tabs.trigger("Publish Product", value=PUBLISH_TAB),
        ),
        rx.tabs.content(section_card(create_form()), value=CREATE_TAB, padding_top="1.5rem"),
        rx.tabs.content(
            # Keyed by the shop: showing the tab or choosing another shop mounts it again, which reloads.
            rx.box(section_card(publish_form()), key=ShopsState.shop_id, on_mount=S.load, width="100%"),
            value=PUBLISH_TAB,
            padding_top="1.5rem",
        ),
        value=S.tab,
        on_change=S.set_tab,
        width="100%",
    )


@rx.page(route=ROUTE, title="Product Management | Admin", on_load=AdminState.require_session)
def admin_products() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.hstack(
                rx.heading("Product Management", as_="h1", size="7"),
                rx.link(
                    rx.button(rx.icon("arrow-left", size=16), "Dashboard", variant="outline"), href=DASHBOARD_ROUTE
                ),
                justify="between",
                align="center",
                width="100%",
            ),
            # While two-factor sign-in is due, the dashboard sets it up (the server refuses the rest).
            rx.cond(
                AdminState.two_factor_due,
                rx.callout(SET_UP_FIRST + ": the dashboard shows how.", icon="shield-alert", color_scheme="amber",
                           width="100%"),
                rx.vstack(
                    rx.vstack(
                        rx.text("Shop", size="2", weight="medium"),
                        shop_buttons(),
                        spacing="2",
                    ),
                    rx.cond(
                        ShopsState.shop_id != "",
                        management_tabs(),
                        rx.center(rx.spinner(size="3"), padding_y="4rem", width="100%", color=styles.MUTED),
                    ),
                    spacing="5",
                    width="100%",
                    # Mounted once the session is confirmed (admin_layout), so the shops load signed in.
                    on_mount=ShopsState.load_shops,
                ),
            ),
            spacing="5",
            style=content_box,
        )
    )
