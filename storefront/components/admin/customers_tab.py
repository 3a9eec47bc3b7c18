"""The Customers tab (owner): who ordered or subscribed, their orders, export and erase."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.components.admin.orders_tab import DIALOG_MAX_WIDTH
from storefront.state.admin.customers import CustomerOrder, CustomerRow, CustomersAdminState as S


def customer_row(row: CustomerRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(row["email"], weight="medium")),
        rx.table.cell(row["name"]),
        rx.table.cell(row["orders"]),
        rx.table.cell(row["spent"]),
        rx.table.cell(row["lastOrderAt"]),
        rx.table.cell(rx.cond(row["subscribed"], "Yes", "No")),
        rx.table.cell(
            rx.hstack(
                rx.button("View", size="1", variant="soft", on_click=S.show(row["email"])),
                rx.button(
                    "Export JSON", size="1", variant="soft", color_scheme="gray", on_click=S.export(row["email"])
                ),
                rx.button("Erase", size="1", variant="soft", color_scheme="red", on_click=S.ask_erase(row["email"])),
                spacing="2",
            )
        ),
        data_testid="customer-row",
    )


def order_line(order: CustomerOrder) -> rx.Component:
    return rx.table.row(
        rx.table.cell(order["number"]), rx.table.cell(order["createdAt"]), rx.table.cell(order["total"]),
        rx.table.cell(order["paymentStatus"]), rx.table.cell(order["status"]),
    )


def customer_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Customer " + S.shown_email, overflow_wrap="anywhere"),
            # A phone scrolls the table sideways inside the dialog, not the page.
            rx.box(
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in
                                                   ("Order", "Date", "Total", "Payment", "Status")])),
                    rx.table.body(rx.foreach(S.shown_orders, order_line)),
                    width="100%",
                ),
                overflow_x="auto",
                width="100%",
            ),
            rx.dialog.close(rx.button("Close", variant="soft", margin_top="1rem")),
            max_width=DIALOG_MAX_WIDTH.format(width="600px"),
        ),
        open=S.shown_email != "",
        on_open_change=S.close,
    )


def erase_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Erase " + S.erase_email + "?"),
            rx.alert_dialog.description(
                "Their orders keep their money and lines for the books; the name, email, phone and address are "
                "replaced everywhere, including sent emails. This cannot be undone.",
            ),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Keep customer", variant="soft", color_scheme="gray")),
                rx.alert_dialog.action(rx.button("Erase customer", color_scheme="red", on_click=S.erase)),
                spacing="3",
                justify="end",
                margin_top="1rem",
            ),
        ),
        open=S.erase_email != "",
        on_open_change=S.cancel_erase,
    )


def customers_tab() -> rx.Component:
    return section_card(
        rx.vstack(
            rx.heading("Customers", as_="h2", size="4"),
            rx.text("Everyone who ordered or subscribed to the newsletter.", size="2", color=styles.MUTED),
            rx.form(
                rx.hstack(rx.input(name="q", placeholder="Search by email", size="2"),
                          rx.button("Search", type="submit", variant="soft")),
                on_submit=S.search,
                reset_on_submit=False,
            ),
            rx.box(
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in
                                                   ("Email", "Name", "Orders", "Spent", "Last order", "Subscribed",
                                                    "")])),
                    rx.table.body(rx.foreach(S.rows, customer_row)),
                    width="100%",
                ),
                overflow_x="auto",
                width="100%",
            ),
            customer_dialog(),
            erase_dialog(),
            spacing="3",
            width="100%",
        ),
        on_mount=S.load,
    )
