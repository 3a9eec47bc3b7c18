"""The Product Editor tab: shop buttons, search, count badge and inline-editable product rows."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.category_select import category_select
from storefront.components.admin.shops import shop_buttons
from storefront.components.admin.thumbnail import product_thumbnail
from storefront.state.admin.editor import ProductEditorState as S
from storefront.state.admin.shops import ShopsState


def labelled(label: str, control: rx.Component) -> rx.Component:
    return rx.el.label(
        rx.text(label, size="1", weight="medium", color=styles.MUTED),
        control,
        style={"display": "grid", "gap": "0.25rem", "width": "100%"},
    )


def edit_form(row: rx.Var) -> rx.Component:
    product_id = row["id"].to(str)
    return rx.vstack(
        labelled(
            "Title", rx.input(value=row["title"], on_change=S.set_field(product_id, "title"), debounce_timeout=250)
        ),
        labelled(
            "Description",
            rx.text_area(
                value=row["description"],
                on_change=S.set_field(product_id, "description"),
                rows="4",
                debounce_timeout=250,
            ),
        ),
        rx.text("A blank line starts a paragraph; lines starting with '- ' make a list.", size="1", color=styles.MUTED),
        rx.box(
            rx.html(row["description_preview"].to(str)),
            data_testid="description-preview",
            border=styles.BORDER,
            border_radius="var(--radius-2)",
            padding="0.5rem 0.75rem",
            font_size="0.875rem",
            width="100%",
            style={"& p": {"margin": "0 0 0.5rem"}, "& ul": {"margin": "0 0 0.5rem", "padding_left": "1.2rem"}},
        ),
        rx.grid(
            labelled(
                "Price",
                rx.vstack(
                    rx.input(
                        value=row["price"],
                        on_change=S.set_field(product_id, "price"),
                        type="number",
                        min="0",
                        step="0.01",
                        debounce_timeout=250,
                        width="100%",
                    ),
                    rx.text(row["price_note"], size="1", color=styles.MUTED, data_testid="price-note"),
                    spacing="1",
                    width="100%",
                ),
            ),
            labelled(
                "Category",
                category_select(row["category"].to(str), S.set_field(product_id, "category")),
            ),
            columns="2",
            spacing="3",
            width="100%",
        ),
        rx.cond(
            row["below_cost"] != "",
            rx.callout(
                row["below_cost"],
                icon="triangle_alert",
                color_scheme="red",
                width="100%",
                data_testid="below-cost",
            ),
        ),
        rx.hstack(
            rx.cond(
                row["below_cost"] != "",
                rx.button(
                    "Sell Below Cost", on_click=S.save_below_cost(product_id), color_scheme="red",
                    disabled=S.saving, loading=S.saving, size="2",
                ),
                rx.button("Save", on_click=S.save(product_id), disabled=S.saving, loading=S.saving, size="2"),
            ),
            rx.button("Cancel", on_click=S.cancel(product_id), variant="soft", color_scheme="gray", size="2"),
            spacing="2",
        ),
        spacing="3",
        width="100%",
    )


def view(row: rx.Var) -> rx.Component:
    return rx.hstack(
        product_thumbnail(row["thumbnail"].to(str)),
        rx.vstack(
            rx.text(row["title"], weight="bold"),
            rx.text(
                row["summary"],
                size="2",
                color=styles.MUTED,
                style={
                    "display": "-webkit-box",
                    "-webkit-line-clamp": "2",
                    "-webkit-box-orient": "vertical",
                    "overflow": "hidden",
                },
            ),
            rx.hstack(
                rx.text("$", row["price"], weight="medium"),
                rx.badge(row["category"], variant="soft"),
                rx.badge(row["status"], color_scheme=rx.cond(row["status"] == "published", "green", "gray")),
                spacing="2",
                align="center",
            ),
            spacing="1",
            flex="1",
            # On a phone the buttons go below rather than squeeze the title into a column.
            min_width="11rem",
        ),
        rx.cond(
            S.show_archived,
            rx.button(rx.icon("archive-restore", size=14), "Restore", variant="outline", size="2",
                      on_click=S.restore(row["id"].to(str))),
            rx.hstack(
                rx.button(rx.icon("pencil", size=14), "Edit", variant="outline", size="2",
                          on_click=S.start_edit(row["id"].to(str))),
                rx.button(rx.icon("archive", size=14), "Archive", variant="soft", color_scheme="gray", size="2",
                          on_click=S.ask_archive(row["id"].to(str))),
                spacing="2",
                wrap="wrap",
                justify="end",
            ),
        ),
        align="start",
        wrap="wrap",
        width="100%",
    )


def archive_confirmation() -> rx.Component:
    """Archiving asks first; the provider product is kept unless staff tick the box."""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Archive Product"),
            rx.alert_dialog.description(
                "Archive ", rx.text.strong(S.archive_title),
                "? It leaves the store and this list; the orders that include it keep it.",
            ),
            rx.el.label(
                rx.checkbox(checked=S.archive_delete, on_change=S.set_archive_delete),
                rx.text("Also delete it at Printify", size="2"),
                style={"display": "flex", "gap": "0.5rem", "alignItems": "center", "marginTop": "0.75rem"},
            ),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.cancel_archive)
                ),
                rx.button("Archive", color_scheme="red", loading=S.saving, on_click=S.archive),
                spacing="3",
                justify="end",
                margin_top="1rem",
            ),
        ),
        open=S.archive_id != "",
        on_open_change=lambda _open: S.cancel_archive(),
    )


def editor_row(row: rx.Var) -> rx.Component:
    return rx.card(
        rx.cond(row["editing"], edit_form(row), view(row)),
        rx.cond(row["error"], rx.text(row["error"], color=rx.color("red", 11), size="2", padding_top="0.5rem")),
        width="100%",
        data_testid="editor-row",
    )


def toolbar() -> rx.Component:
    return rx.vstack(
        shop_buttons(on_select=S.load),
        rx.hstack(
            rx.input(
                placeholder="Search products...",
                value=S.query,
                on_change=S.set_query,
                debounce_timeout=300,
                width="100%",
                max_width="360px",
            ),
            rx.badge(S.total, rx.cond(S.total == 1, " product", " products"), size="2", data_testid="product-count"),
            rx.el.label(
                rx.switch(checked=S.show_archived, on_change=S.set_show_archived),
                rx.text("Archived", size="2"),
                style={"display": "flex", "gap": "0.5rem", "alignItems": "center"},
            ),
            rx.spacer(),
            rx.button(
                rx.icon("save", size=16),
                "Save All Changes",
                on_click=S.save_all,
                disabled=S.saving,
                loading=S.saving,
            ),
            width="100%",
            align="center",
            wrap="wrap",
            spacing="3",
        ),
        spacing="3",
        width="100%",
    )


def product_editor_tab() -> rx.Component:
    return rx.vstack(
        toolbar(),
        rx.cond(
            (S.rows.length() == 0) & ~S.loading,
            rx.text("No products found", color=styles.MUTED),
        ),
        rx.vstack(rx.foreach(S.rows, editor_row), spacing="3", width="100%"),
        rx.cond(S.has_more, rx.button("Load More", variant="outline", on_click=S.load_more, loading=S.loading_more)),
        archive_confirmation(),
        spacing="4",
        width="100%",
        on_mount=[ShopsState.load_shops, S.load],
    )
