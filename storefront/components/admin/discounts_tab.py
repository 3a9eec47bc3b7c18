"""The Discounts tab: every code with its uses and the revenue of its paid orders, a form to make
or change one, switching it on or off, and the CSV."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.services.collections import COLLECTIONS
from storefront.state.admin.discounts import DiscountsAdminState as S

KINDS = [("percent", "Percent off"), ("amount", "Amount off ($)"), ("free_shipping", "Free shipping")]
SCOPES = [("all", "Whole cart"), ("collections", "Collections"), ("products", "Chosen products")]
COLLECTION_KEYS = ", ".join(f"{c.key} ({c.label})" for c in COLLECTIONS)


def error_text(name: str) -> rx.Component:
    return rx.cond(
        S.form_errors.contains(name),
        rx.text(S.form_errors[name], size="1", color=rx.color("red", 11), data_testid=f"discount-error-{name}"),
    )


def field(label: str, control: rx.Component, name: str, hint: str = "") -> rx.Component:
    """A labelled control with the service's message for it underneath."""
    return rx.box(
        rx.el.label(
            rx.text(label, size="1", weight="medium", color=styles.MUTED),
            control,
            style={"display": "grid", "gap": "0.25rem", "width": "100%"},
        ),
        rx.cond(hint != "", rx.text(hint, size="1", color=styles.MUTED)),
        error_text(name),
        width="100%",
    )


def text_input(name: str, **props: object) -> rx.Component:
    return rx.input(name=name, default_value=S.form_values[name], width="100%", **props)


def choice(name: str, options: list[tuple[str, str]]) -> rx.Component:
    return rx.el.select(
        *[rx.el.option(label, value=value) for value, label in options],
        name=name,
        default_value=S.form_values[name],
        class_name="rt-reset rt-SelectTrigger rt-r-size-2 rt-variant-surface",
        style={"width": "100%"},
    )


def code_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            field("Code", text_input("code", placeholder="TOUR-BERLIN", max_length=40), "code",
                  "Letters, digits, dashes; shoppers may type it in any case."),
            rx.grid(
                field("Discount", choice("kind", KINDS), "kind"),
                field("Value", text_input("value", placeholder="15", inputmode="decimal"), "value",
                      "Whole percent, or dollars; empty for free shipping."),
                columns="2",
                spacing="3",
                width="100%",
            ),
            rx.grid(
                field("Starts (UTC)", text_input("startsAt", type="datetime-local"), "startsAt"),
                field("Ends (UTC)", text_input("endsAt", type="datetime-local"), "endsAt"),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="3",
                width="100%",
            ),
            rx.grid(
                field("Minimum subtotal ($)", text_input("minSubtotal", inputmode="decimal"), "minSubtotal"),
                field("Uses in all", text_input("usageLimit", inputmode="numeric"), "usageLimit", "Empty: no limit."),
                field("Uses per email", text_input("perCustomerLimit", inputmode="numeric"), "perCustomerLimit"),
                columns=rx.breakpoints(initial="1", sm="3"),
                spacing="3",
                width="100%",
            ),
            field("Applies to", choice("scope", SCOPES), "scope"),
            field("Collections or product ids", text_input("scopeValues"), "scopeValues",
                  f"Comma-separated, for a scope other than the whole cart. Collections: {COLLECTION_KEYS}."),
            rx.el.label(
                rx.checkbox(name="active", default_checked=S.form_values["active"] == "on"),
                rx.text("Active", size="2"),
                style={"display": "flex", "gap": "0.5rem", "align_items": "center"},
            ),
            rx.hstack(
                rx.dialog.close(rx.button("Cancel", type="button", variant="soft", color_scheme="gray")),
                rx.button("Save Discount", type="submit", loading=S.saving, data_testid="discount-save"),
                justify="end",
                spacing="3",
                width="100%",
            ),
            spacing="3",
            width="100%",
        ),
        on_submit=S.save,
        reset_on_submit=False,
        key=S.editing_id + "-" + S.form_values["code"],
    )


def code_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(rx.cond(S.editing_id == "", "New Discount", "Edit Discount")),
            code_form(),
            max_width="560px",
        ),
        open=S.form_open,
        on_open_change=S.set_form_open,
    )


def code_row(row: rx.Var) -> rx.Component:
    discount_id = row["id"].to(str)
    active = row["active"].to(bool)
    return rx.table.row(
        rx.table.cell(rx.text(row["code"], weight="bold")),
        rx.table.cell(row["description"]),
        rx.table.cell(row["scope"]),
        rx.table.cell(row["window"]),
        rx.table.cell(row["uses"]),
        rx.table.cell(row["paid_orders"]),
        rx.table.cell(row["revenue"]),
        rx.table.cell(
            rx.switch(checked=active, on_change=lambda value: S.toggle(discount_id, value), aria_label="Active")
        ),
        rx.table.cell(rx.button("Edit", size="1", variant="outline", on_click=S.edit_code(discount_id))),
        data_testid="discount-row",
    )


def discounts_tab() -> rx.Component:
    return section_card(
        rx.vstack(
            rx.hstack(
                rx.heading("Discount Codes", as_="h2", size="5"),
                rx.hstack(
                    rx.button(rx.icon("download", size=16), "Export CSV", variant="outline", loading=S.exporting,
                              on_click=S.export_csv),
                    rx.button(rx.icon("plus", size=16), "New Discount", on_click=S.new_code,
                              data_testid="discount-new"),
                    spacing="2",
                ),
                justify="between",
                align="center",
                wrap="wrap",
                width="100%",
            ),
            rx.cond(
                S.rows.length() > 0,
                rx.box(
                    rx.table.root(
                        rx.table.header(
                            rx.table.row(
                                *[rx.table.column_header_cell(h) for h in
                                  ("Code", "Discount", "Applies to", "When", "Uses", "Paid orders", "Revenue",
                                   "Active", "")]
                            )
                        ),
                        rx.table.body(rx.foreach(S.rows, code_row)),
                        width="100%",
                    ),
                    overflow_x="auto",
                    width="100%",
                ),
                rx.text(rx.cond(S.loaded, "No discount codes yet.", "Loading…"), color=styles.MUTED),
            ),
            code_dialog(),
            spacing="4",
            width="100%",
        ),
        on_mount=S.load,
    )
