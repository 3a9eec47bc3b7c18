"""Admin dashboard tab: Sync & Pricing (catalogue sync, price sync, margins, the combined panel)."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.components.admin.product_panel import product_panel, status_badge
from storefront.components.admin.store_pages_card import store_pages_card
from storefront.components.admin.thumbnail import product_thumbnail
from storefront.services.staff import roles
from storefront.state.admin.product_views import MarginRow, ProductRow
from storefront.state.admin.session import AdminState
from storefront.state.admin.shops import ShopsState
from storefront.state.admin.sync_pricing import MARGINS_CARD_ID, SyncPricingState

S = SyncPricingState
PRODUCTS_PAGE_ROUTE = "/admin/products"


def sync_card() -> rx.Component:
    return section_card(
        rx.hstack(
            rx.vstack(
                rx.heading("Catalogue Sync", as_="h3", size="5"),
                rx.text(
                    "Copy the selected shop's products from Printify into the store.", size="2", color=styles.MUTED
                ),
                spacing="1",
            ),
            rx.button(
                rx.icon("refresh-cw", size=16),
                "Sync catalogue",
                loading=S.syncing,
                disabled=ShopsState.shop_id == "",
                on_click=S.sync_catalogue,
            ),
            justify="between",
            align="center",
            wrap="wrap",
            spacing="3",
            width="100%",
        ),
        rx.cond(
            S.syncing | (S.sync_total > 0),
            rx.vstack(
                rx.progress(value=S.sync_percent, max=100, width="100%", aria_label="Sync progress"),
                rx.text(
                    S.sync_done,
                    " / ",
                    S.sync_total,
                    " products",
                    size="2",
                    color=styles.MUTED,
                    data_testid="sync-count",
                ),
                spacing="2",
                width="100%",
                margin_top="1rem",
                data_testid="sync-progress",
            ),
        ),
    )


@rx.memo
def price_form(product_id: rx.Var[str], price_value: rx.Var[str]) -> rx.Component:
    """A product's price input and 'Sync Price' (its own component: a form's submit hook needs the id in scope)."""
    return rx.form(
        rx.hstack(
            rx.input(
                name="price",
                default_value=price_value,
                type="number",
                step=0.01,
                min=0,
                aria_label="New price",
                width="7rem",
                size="2",
            ),
            rx.button("Sync Price", type="submit", size="2", loading=S.pricing == product_id),
            spacing="2",
            align="center",
        ),
        on_submit=S.ask_sync_price(product_id),
        reset_on_submit=False,
        no_validate=True,
    )


def price_row(row: ProductRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(
            rx.hstack(product_thumbnail(row["thumbnail"]), rx.text(row["title"], weight="medium"), align="center")
        ),
        rx.table.cell(status_badge(row["status"], row["published"])),
        rx.table.cell(row["price"], data_testid="current-price"),
        rx.table.cell(
            # Keyed by the price: after a sync the input starts again from the new price.
            rx.fragment(
                price_form(product_id=row["id"], price_value=row["price_value"]),
                key=row["id"] + "-" + row["price_value"],
            ),
            rx.text(row["price_note"], size="1", color=styles.MUTED, margin_top="0.25rem", data_testid="price-note"),
        ),
        rx.table.cell(
            rx.button(
                rx.icon("percent", size=14),
                "Margins",
                size="2",
                variant=rx.cond(S.margins_id == row["id"], "solid", "outline"),
                on_click=S.show_margins(row["id"]),
            )
        ),
        align="center",
        data_testid="price-row",
    )


def price_confirmation() -> rx.Component:
    """Asked before a price is sent: the product and its new base price, then, if the service says
    so, the variants it would sell below provider cost."""
    asked = S.confirm_price
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Sync Price"),
            rx.alert_dialog.description(
                "Set the base price of ", rx.text.strong(asked["title"]), " to ", rx.text.strong(asked["price"]), "?",
            ),
            rx.text(asked["note"], size="2", color=styles.MUTED, margin_top="0.5rem"),
            rx.cond(
                asked["below_cost"] != "",
                rx.callout(asked["below_cost"], icon="triangle_alert", color_scheme="red", margin_top="0.75rem",
                           data_testid="below-cost"),
            ),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.cancel_sync_price)
                ),
                rx.button(
                    rx.cond(asked["below_cost"] != "", "Sell Below Cost", "Sync Price"),
                    color_scheme=rx.cond(asked["below_cost"] != "", "red", "ruby"),
                    loading=S.pricing != "",
                    on_click=S.sync_price,
                ),
                spacing="3",
                justify="end",
                margin_top="1rem",
            ),
            data_testid="price-confirmation",
        ),
        open=asked["id"] != "",
        on_open_change=lambda _open: S.cancel_sync_price(),
    )


def price_table() -> rx.Component:
    return section_card(
        rx.heading("Price Sync", as_="h3", size="5"),
        rx.text(
            "Set a product's base price, at Printify and in the store: every variant moves by the same "
            "amount, so larger sizes keep their upcharge.",
            size="2",
            color=styles.MUTED,
        ),
        rx.box(
            rx.table.root(
                rx.table.header(
                    rx.table.row(
                        *[
                            rx.table.column_header_cell(c)
                            for c in ["Product", "Status", "Price", "New price", "Margins"]
                        ]
                    )
                ),
                rx.table.body(rx.foreach(S.rows, price_row)),
                width="100%",
                variant="surface",
            ),
            width="100%",
            overflow_x="auto",
            margin_top="1rem",
        ),
        rx.cond(
            S.has_more,
            rx.center(
                rx.button("Load More", variant="outline", loading=S.loading_more, on_click=S.load_more),
                margin_top="1rem",
            ),
        ),
    )


def margin_row(row: MarginRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(row["variant"]),
        rx.table.cell(row["price"]),
        rx.table.cell(row["cost"]),
        rx.table.cell(rx.text(row["margin"], color=rx.cond(row["loss"], rx.color("red", 11), "inherit"))),
        rx.table.cell(row["percent"]),
        data_testid="margin-row",
        align="center",
    )


def margins_card() -> rx.Component:
    return rx.cond(
        S.margins_id != "",
        section_card(
            rx.heading("Margins: ", S.margins_title, as_="h3", size="5"),
            rx.text("Price minus Printify's current cost, per variant.", size="2", color=styles.MUTED),
            rx.cond(
                S.margins_loading,
                rx.center(rx.spinner(), padding_y="2rem", width="100%"),
                rx.box(
                    rx.table.root(
                        rx.table.header(
                            rx.table.row(
                                *[
                                    rx.table.column_header_cell(c)
                                    for c in ["Variant", "Price", "Provider cost", "Margin", "Margin %"]
                                ]
                            )
                        ),
                        rx.table.body(rx.foreach(S.margins, margin_row)),
                        width="100%",
                    ),
                    width="100%",
                    overflow_x="auto",
                    margin_top="1rem",
                ),
            ),
            id=MARGINS_CARD_ID,
            data_testid="margins",
        ),
    )


def sync_pricing_tab() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.heading("Sync & Pricing", as_="h2", size="6"),
            rx.link(
                rx.button(rx.icon("plus", size=16), "Create product", variant="soft"),
                href=PRODUCTS_PAGE_ROUTE,
            ),
            justify="between",
            align="center",
            width="100%",
        ),
        sync_card(),
        rx.cond(
            ShopsState.shop_id != "",
            # Keyed by the shop: a new selection (here or in another tab) mounts it again and reloads.
            rx.vstack(
                product_panel(),
                price_table(),
                price_confirmation(),
                margins_card(),
                key=ShopsState.shop_id,
                on_mount=S.load,
                spacing="5",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), padding_y="4rem", width="100%"),
        ),
        rx.cond(AdminState.permissions.contains(roles.STORE_SETTINGS), store_pages_card()),
        on_mount=ShopsState.load_shops,
        spacing="5",
        width="100%",
    )
