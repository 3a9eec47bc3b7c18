"""The Categories tab: five collection cards and every product with its category and visibility."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.category_select import category_select
from storefront.components.admin.shops import shop_buttons
from storefront.components.admin.thumbnail import product_thumbnail
from storefront.state.admin.categories import CategoriesState as S
from storefront.state.admin.shops import ShopsState


def summary_card(card: rx.Var) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(card["label"], as_="h3", size="4"),
                rx.badge(card["counts"], title="visible / total", data_testid="collection-counts"),
                justify="between",
                width="100%",
            ),
            rx.text(card["title"], size="2", weight="medium"),
            rx.link(card["route"], href=card["route"], size="1", color=styles.MUTED),
            rx.foreach(card["names"], lambda name: rx.text(name, size="1", trim="both")),
            rx.cond(card["more"].to(int) > 0, rx.text("+", card["more"], " more", size="1", color=styles.MUTED)),
            spacing="1",
            align="start",
        ),
        data_testid="collection-card",
    )


def product_row(row: rx.Var) -> rx.Component:
    product_id = row["id"].to(str)
    return rx.table.row(
        rx.table.cell(
            rx.hstack(
                product_thumbnail(row["thumbnail"].to(str)), rx.text(row["name"], weight="medium"), align="center"
            )
        ),
        rx.table.cell(row["price"]),
        rx.table.cell(
            category_select(row["category"].to(str), lambda key: S.set_category(product_id, key), size="1")
        ),
        rx.table.cell(
            rx.switch(
                checked=row["is_active"].to(bool),
                on_change=lambda active: S.set_visibility(product_id, active),
                aria_label="Visible on the storefront",
            )
        ),
        data_testid="category-row",
        opacity=rx.cond(row["is_active"], "1", "0.55"),
    )


def categories_tab() -> rx.Component:
    return rx.vstack(
        shop_buttons(on_select=S.load),
        rx.grid(
            rx.foreach(S.summaries, summary_card),
            columns=rx.breakpoints(initial="1", sm="2", lg="5"),
            spacing="3",
            width="100%",
        ),
        rx.table.root(
            rx.table.header(
                rx.table.row(
                    rx.table.column_header_cell("Product"),
                    rx.table.column_header_cell("Price"),
                    rx.table.column_header_cell("Category"),
                    rx.table.column_header_cell("Visible"),
                )
            ),
            rx.table.body(rx.foreach(S.rows, product_row)),
            width="100%",
            variant="surface",
        ),
        rx.cond(S.has_more, rx.button("Load More", variant="outline", on_click=S.load_more, loading=S.loading_more)),
        spacing="4",
        width="100%",
        on_mount=[ShopsState.load_shops, S.load],
    )
