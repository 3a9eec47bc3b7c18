"""The Activity tab (owner): who did what, when and from where, filtered, with a CSV export."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.state.admin.activity import ActivityAdminState as S, ActivityRow


def activity_row(row: ActivityRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(row["at"], size="1", white_space="nowrap")),
        rx.table.cell(rx.text(row["actor"], weight="medium")),
        rx.table.cell(rx.badge(row["action"])),
        rx.table.cell(row["target"]),
        rx.table.cell(rx.text(row["change"], size="1")),
        rx.table.cell(rx.text(row["client"], size="1", color=styles.MUTED)),
        data_testid="activity-row",
    )


def filters() -> rx.Component:
    return rx.form(
        rx.flex(
            rx.input(name="actor", placeholder="Person (username)", size="2"),
            rx.el.select(
                rx.foreach(S.actions, lambda action: rx.el.option(action, value=action)),
                name="action",
                default_value="all",
                style={"height": "2rem", "border": "1px solid var(--gray-7)", "border_radius": "6px"},
            ),
            rx.button("Filter", type="submit", variant="soft"),
            rx.button(rx.icon("download", size=14), "Export CSV", type="button", variant="outline",
                      disabled=S.exporting, on_click=S.export_csv),
            spacing="2",
            wrap="wrap",
            align="center",
        ),
        on_submit=S.filter,
        reset_on_submit=False,
    )


def activity_tab() -> rx.Component:
    return section_card(
        rx.vstack(
            rx.heading("Activity", as_="h2", size="4"),
            filters(),
            rx.box(
                rx.table.root(
                    rx.table.header(
                        rx.table.row(*[rx.table.column_header_cell(text) for text in
                                       ("When (UTC)", "Who", "Action", "What", "Change", "Address")])
                    ),
                    rx.table.body(rx.foreach(S.rows, activity_row)),
                    width="100%",
                ),
                overflow_x="auto",
                width="100%",
            ),
            rx.cond(S.has_more, rx.button("Load More", variant="soft", on_click=S.load_more)),
            spacing="3",
            width="100%",
        ),
        on_mount=S.load,
    )
