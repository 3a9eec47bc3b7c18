"""The refund form over an order's detail dialog: all that is left, an amount, or some lines, with the
warning staff read before refunding a garment already printed."""

import reflex as rx

from storefront.components import styles
from storefront.state.admin.orders import REFUND_LINE_PREFIX, ItemRow, OrdersState

LINES_NOTE = "Or refund lines at their price (a quantity given to any line refunds those lines instead):"


def refund_line(item: ItemRow) -> rx.Component:
    return rx.hstack(
        rx.text(item["name"], " · ", item["size"], " · ", item["price"], size="2", flex="1", min_width="0"),
        rx.input(
            name=REFUND_LINE_PREFIX + item["item_id"],
            type="number",
            min="0",
            max=item["quantity"],
            default_value="0",
            width="5rem",
            aria_label="Quantity to refund of " + item["name"],
        ),
        align="center",
        spacing="2",
        width="100%",
        data_testid="refund-line",
    )


def refund_form() -> rx.Component:
    detail = OrdersState.detail
    return rx.form(
        rx.vstack(
            rx.cond(
                detail["printed_warning"] != "",
                rx.callout(
                    detail["printed_warning"],
                    icon="triangle_alert",
                    color_scheme="amber",
                    width="100%",
                    data_testid="printed-warning",
                ),
            ),
            rx.cond(
                detail["refunded"] != "",
                rx.text("Refunded so far: ", detail["refunded"], size="2", data_testid="refunded-so-far"),
            ),
            rx.el.label(
                rx.text("Amount to refund (dollars)", size="2", weight="medium"),
                rx.input(
                    name="amount",
                    default_value=detail["left_to_refund"],
                    input_mode="decimal",
                    data_testid="refund-amount",
                ),
                style={"display": "grid", "gap": "0.25rem", "width": "100%"},
            ),
            rx.text(LINES_NOTE, size="2", color=styles.MUTED),
            rx.vstack(rx.foreach(OrdersState.detail_items, refund_line), spacing="2", width="100%"),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button(
                        "Keep order", type="button", variant="soft", color_scheme="gray", disabled=OrdersState.acting
                    )
                ),
                rx.button(
                    "Refund",
                    type="submit",
                    color_scheme="red",
                    loading=OrdersState.acting,
                    data_testid="confirm-action",
                ),
                justify="end",
                spacing="3",
                width="100%",
            ),
            spacing="3",
            width="100%",
            margin_top="1rem",
        ),
        on_submit=OrdersState.confirm_refund,
        reset_on_submit=False,
        no_validate=True,
    )
