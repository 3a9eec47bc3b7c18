"""The Combined Product Management panel: tabs Products, Pricing and Publishing over one product."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card, tab_list
from storefront.components.admin.mockups import mockup_gallery
from storefront.components.admin.shops import shop_buttons
from storefront.components.admin.thumbnail import product_thumbnail
from storefront.state.admin.product_panel import PRICING_TAB, PRODUCTS_TAB, PUBLISHING_TAB, ProductPanelState
from storefront.state.admin.product_views import VARIANT_PRICE_FIELD, ProductRow, VariantPrice
from storefront.state.admin.sync_pricing import SyncPricingState

P = ProductPanelState


def status_badge(status: rx.Var, published: rx.Var) -> rx.Component:
    return rx.badge(status, color_scheme=rx.cond(published, "green", "gray"), variant="soft")


def nothing_selected() -> rx.Component:
    return rx.center(
        rx.text("Select a product from the list.", color=styles.MUTED, size="2"),
        padding_y="3rem",
        width="100%",
    )


# --------------------------------------------------------------------------- Products


def list_item(row: ProductRow) -> rx.Component:
    selected = P.detail["id"] == row["id"]
    return rx.box(
        rx.hstack(
            product_thumbnail(row["thumbnail"]),
            rx.text(row["title"], size="2", weight="medium", flex="1", min_width="0", truncate=True),
            status_badge(row["status"], row["published"]),
            align="center",
            spacing="2",
            width="100%",
        ),
        on_click=P.select_product(row["id"]),
        role="button",
        tab_index=0,
        aria_pressed=selected,
        padding="0.375rem 0.75rem 0.375rem 0.375rem",
        border_radius="6px",
        cursor="pointer",
        background=rx.cond(selected, rx.color("accent", 4), "transparent"),
        _hover={"background": rx.color("gray", 3)},
        data_testid="panel-product",
        width="100%",
    )


def product_list() -> rx.Component:
    return rx.vstack(
        rx.scroll_area(
            rx.vstack(rx.foreach(SyncPricingState.rows, list_item), spacing="1", width="100%"),
            type="auto",
            scrollbars="vertical",
            style={"max_height": "22rem"},
        ),
        rx.cond(
            SyncPricingState.has_more,
            rx.button(
                "Load More",
                size="1",
                variant="ghost",
                loading=SyncPricingState.loading_more,
                on_click=SyncPricingState.load_more,
            ),
        ),
        rx.cond(
            SyncPricingState.loaded & (SyncPricingState.rows.length() == 0),
            rx.text("No products in this shop yet.", color=styles.MUTED, size="2"),
        ),
        spacing="2",
        width="100%",
        border=styles.BORDER,
        border_radius="8px",
        padding="0.5rem",
    )


def details() -> rx.Component:
    return rx.cond(
        P.has_selection,
        rx.vstack(
            rx.heading(P.detail["title"], as_="h4", size="4"),
            rx.hstack(
                status_badge(P.detail["status"], P.detail["published"]),
                rx.text(P.detail["price"], size="2", color=styles.MUTED),
                spacing="3",
                align="center",
            ),
            rx.text("Variants", size="2", weight="medium"),
            rx.vstack(
                rx.foreach(P.variant_preview, lambda line: rx.text(line, size="2")),
                rx.cond(
                    P.more_variants > 0,
                    rx.text("+", P.more_variants, " more", size="2", color=styles.MUTED),
                ),
                spacing="1",
                data_testid="variant-preview",
            ),
            rx.cond(P.mockups.length() > 0, mockup_gallery(P.mockups, "96px", "panel-mockup")),
            rx.hstack(
                rx.button(rx.icon("pencil", size=14), "Edit Product", variant="outline", on_click=P.edit_product),
                rx.button(
                    rx.icon("upload", size=14),
                    "Publish Product",
                    loading=P.publishing,
                    on_click=P.publish_from_details,
                ),
                spacing="2",
                wrap="wrap",
            ),
            spacing="3",
            width="100%",
            data_testid="panel-details",
        ),
        rx.cond(P.opening, rx.center(rx.spinner(), padding_y="3rem", width="100%"), nothing_selected()),
    )


def products_tab() -> rx.Component:
    return rx.vstack(
        rx.text("Shops", size="2", weight="medium"),
        shop_buttons(),
        rx.grid(
            product_list(),
            details(),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="4",
            width="100%",
        ),
        spacing="3",
        width="100%",
    )


# --------------------------------------------------------------------------- Pricing


def variant_price_row(variant: VariantPrice) -> rx.Component:
    return rx.hstack(
        rx.text(
            variant["label"],
            rx.cond(variant["enabled"], "", " (disabled)"),
            size="2",
            flex="1",
        ),
        rx.input(
            name=VARIANT_PRICE_FIELD + variant["id"],
            default_value=variant["price"],
            type="number",
            step=0.01,
            min=0,
            aria_label="Price of " + variant["label"],
            width="8rem",
        ),
        align="center",
        spacing="3",
        width="100%",
        data_testid="variant-price",
    )


def pricing_tab() -> rx.Component:
    return rx.cond(
        P.has_selection,
        rx.form(
            rx.vstack(
                rx.heading(P.detail["title"], as_="h4", size="4"),
                rx.text("Price per variant (USD)", size="2", color=styles.MUTED),
                rx.scroll_area(
                    rx.vstack(rx.foreach(P.variant_prices, variant_price_row), spacing="2", width="100%"),
                    type="auto",
                    scrollbars="vertical",
                    style={"max_height": "24rem"},
                ),
                rx.button("Save Prices", type="submit", loading=P.saving),
                spacing="3",
                width="100%",
            ),
            key=P.editor_key,
            on_submit=P.save_prices,
            reset_on_submit=False,
        ),
        nothing_selected(),
    )


# --------------------------------------------------------------------------- Publishing


def publishing_tab() -> rx.Component:
    return rx.cond(
        P.has_selection,
        rx.vstack(
            rx.heading(P.detail["title"], as_="h4", size="4"),
            rx.hstack(
                rx.text("Status:", size="2"),
                status_badge(P.detail["status"], P.detail["published"]),
                spacing="2",
                align="center",
            ),
            rx.hstack(
                rx.button(
                    rx.cond(P.detail["published"], "Republish", "Publish"),
                    loading=P.publishing,
                    on_click=P.publish,
                ),
                rx.cond(
                    P.detail["published"],
                    rx.button(
                        "Unpublish",
                        variant="outline",
                        color_scheme="gray",
                        disabled=P.publishing,
                        on_click=P.unpublish,
                    ),
                ),
                spacing="2",
            ),
            spacing="3",
            width="100%",
        ),
        nothing_selected(),
    )


def product_panel() -> rx.Component:
    return section_card(
        rx.heading("Product Management", as_="h3", size="5"),
        rx.tabs.root(
            tab_list(
                rx.tabs.trigger("Products", value=PRODUCTS_TAB),
                rx.tabs.trigger("Pricing", value=PRICING_TAB),
                rx.tabs.trigger("Publishing", value=PUBLISHING_TAB),
            ),
            rx.tabs.content(products_tab(), value=PRODUCTS_TAB, padding_top="1rem"),
            rx.tabs.content(pricing_tab(), value=PRICING_TAB, padding_top="1rem"),
            rx.tabs.content(publishing_tab(), value=PUBLISHING_TAB, padding_top="1rem"),
            value=P.tab,
            on_change=P.set_tab,
            width="100%",
            margin_top="0.75rem",
        ),
        data_testid="product-panel",
    )
