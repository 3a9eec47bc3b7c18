"""'Mark resolved' in an order's detail dialog: staff settle what the order needed a person for, with a
note of what was done (kept in its history)."""

import reflex as rx

from storefront.state.admin.orders import OrdersState


def resolve_form() -> rx.Component:
    return rx.cond(
        OrdersState.detail["resolvable"],
        rx.form(
            rx.hstack(
                rx.input(
                    name="note",
                    placeholder="What was done to resolve it",
                    aria_label="Resolution note",
                    flex="1",
                    data_testid="resolve-note",
                ),
                rx.button(rx.icon("check", size=14), "Mark resolved", type="submit", variant="soft"),
                spacing="2",
                width="100%",
            ),
            on_submit=OrdersState.resolve,
            reset_on_submit=True,
            width="100%",
        ),
    )
