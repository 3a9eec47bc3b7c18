"""Admin dashboard tab: Order Management (stat cards, revenue chart, orders table with its paid /
awaiting-payment filter, detail dialog with the order's history and emails, Resend confirmation,
Refund and Cancel order)."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card, tab_list
from storefront.components.admin.newsletter_card import newsletter_card
from storefront.components.admin.refund_form import refund_form
from storefront.components.admin.resolve_form import resolve_form
from storefront.components.admin.thumbnail import product_thumbnail
from storefront.components.empty_state import empty_state
from storefront.services.admin.admin_orders import VIEW_AWAITING, VIEW_PAID
from storefront.services.staff import roles
from storefront.state.admin.orders import REFUND, EmailRow, HistoryRow, ItemRow, OrderRow, OrdersState
from storefront.state.admin.session import AdminState

COLUMNS = ["Order ID", "Customer", "Total", "Status", "Payment", "Printify Status", "Date", "Actions"]
AUTO_SEND_NOTE = "Orders are sent to Printify automatically after payment confirmation."


def status_badge(label: rx.Var) -> rx.Component:
    colour = rx.match(
        label, ("Processing", "blue"), ("Fulfilled", "green"), ("Pending", "amber"), ("Cancelled", "red"), "gray"
    )
    return rx.badge(label, color_scheme=colour, variant="soft")


def payment_badge(label: rx.Var) -> rx.Component:
    colour = rx.match(
        label, ("Paid", "green"), ("Pending", "amber"), ("Failed", "red"), ("Refund pending", "orange"), "gray"
    )
    return rx.badge(label, color_scheme=colour, variant="soft")


# --------------------------------------------------------------------------- stat cards and chart


def stat_card(label: str, value: rx.Var, icon: str) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.text(label, size="2", weight="medium", color=styles.MUTED),
            rx.icon(icon, size=18, color=styles.MUTED),
            justify="between",
            width="100%",
        ),
        rx.heading(value, size="7", margin_top="0.5rem"),
        data_testid="order-stat",
        width="100%",
    )


def stat_cards() -> rx.Component:
    return rx.grid(
        stat_card("Total Orders", OrdersState.total_orders, "shopping-bag"),
        stat_card("Processing", OrdersState.processing, "loader"),
        stat_card("Fulfilled", OrdersState.fulfilled, "package-check"),
        stat_card("Revenue", OrdersState.revenue, "dollar-sign"),
        columns=rx.breakpoints(initial="1", sm="2", lg="4"),
        spacing="4",
        width="100%",
    )


def revenue_chart() -> rx.Component:
    return section_card(
        rx.heading("Revenue by Day", as_="h3", size="4"),
        rx.text("Paid orders, last 30 days (UTC)", size="2", color=styles.MUTED),
        rx.recharts.bar_chart(
            rx.recharts.cartesian_grid(stroke_dasharray="3 3", vertical=False),
            rx.recharts.x_axis(data_key="day", interval="preserveStartEnd", tick_line=False),
            rx.recharts.y_axis(tick_line=False, width=60),
            rx.recharts.graphing_tooltip(),
            rx.recharts.bar(data_key="revenue", name="Revenue ($)", fill=styles.BRAND, is_animation_active=False),
            data=OrdersState.chart,
            width="100%",
            height=240,
            margin={"top": 16, "right": 8, "left": 0, "bottom": 0},
        ),
        data_testid="revenue-chart",
    )


# --------------------------------------------------------------------------- the table


def provider_cell(row: OrderRow) -> rx.Component:
    """The provider status, or the provider's reason when it refused the order."""
    return rx.cond(
        row["attention"] != "",
        rx.badge(
            rx.icon("triangle-alert", size=14),
            rx.text("Needs attention: ", row["attention"], white_space="normal"),
            color_scheme="red",
            variant="soft",
            max_width="18rem",
            data_testid="needs-attention",
        ),
        rx.text(row["provider_status"], size="2"),
    )


def actions_cell(row: OrderRow) -> rx.Component:
    return rx.hstack(
        rx.button(
            rx.icon("eye", size=14),
            "View",
            size="1",
            variant="outline",
            on_click=OrdersState.open_detail(row["number"]),
        ),
        rx.cond(
            row["retryable"],
            rx.button(
                rx.icon("rotate-cw", size=14),
                "Retry",
                size="1",
                color_scheme="red",
                loading=OrdersState.retrying == row["number"],
                on_click=OrdersState.retry(row["number"]),
            ),
        ),
        spacing="2",
    )


def order_row(row: OrderRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(row["number"], white_space="nowrap"),
        rx.table.cell(
            rx.vstack(rx.text(row["customer"]), rx.text(row["email"], size="1", color=styles.MUTED), spacing="0")
        ),
        rx.table.cell(row["total"]),
        rx.table.cell(status_badge(row["status"])),
        rx.table.cell(payment_badge(row["payment"])),
        rx.table.cell(provider_cell(row)),
        rx.table.cell(row["date"], white_space="nowrap"),
        rx.table.cell(actions_cell(row)),
        background=rx.cond(row["attention"] != "", rx.color("red", 2), "transparent"),
        data_testid="order-row",
        align="center",
    )


def view_filter() -> rx.Component:
    """'Orders' (paid, refunded ones included) or 'Awaiting payment' (checkouts not paid yet)."""
    return rx.segmented_control.root(
        rx.segmented_control.item("Orders", value=VIEW_PAID),
        rx.segmented_control.item("Awaiting payment", value=VIEW_AWAITING),
        value=OrdersState.view,
        on_change=OrdersState.set_view,
        data_testid="order-view",
    )


def orders_table() -> rx.Component:
    return rx.cond(
        OrdersState.rows.length() > 0,
        rx.vstack(
            rx.box(
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(c) for c in COLUMNS])),
                    rx.table.body(rx.foreach(OrdersState.rows, order_row)),
                    width="100%",
                    variant="surface",
                ),
                width="100%",
                overflow_x="auto",
            ),
            rx.cond(
                OrdersState.has_more,
                rx.button(
                    "Load More", variant="outline", loading=OrdersState.loading_more, on_click=OrdersState.load_more
                ),
            ),
            align="center",
            spacing="4",
            width="100%",
        ),
        rx.cond(
            OrdersState.loaded,
            rx.cond(
                OrdersState.view == VIEW_AWAITING,
                empty_state("clock", "No checkouts awaiting payment", heading_level="h3"),
                empty_state("shopping-bag", "No orders yet", heading_level="h3"),
            ),
            rx.center(rx.spinner(size="3"), padding_y="4rem", width="100%"),
        ),
    )


# --------------------------------------------------------------------------- the detail dialog


def field(label: str, value: rx.Var | str, **props) -> rx.Component:
    return rx.hstack(
        rx.text(label, size="2", color=styles.MUTED),
        rx.text(value, size="2", weight="medium", text_align="right", **props),
        justify="between",
        width="100%",
    )


def or_dash(value: rx.Var) -> rx.Var:
    return rx.cond(value != "", value, "—")


def history_line(line: HistoryRow) -> rx.Component:
    return rx.hstack(
        rx.text(line["at"], size="2", color=styles.MUTED, white_space="nowrap"),
        rx.vstack(
            rx.text(
                rx.text.strong(line["label"], data_testid="history-label"),
                line["by"],
                size="2",
            ),
            rx.cond(line["detail"] != "", rx.text(line["detail"], size="1", color=styles.MUTED)),
            spacing="0",
        ),
        spacing="3",
        align="start",
        # On a phone the time goes above what happened rather than squeezing it.
        wrap=rx.breakpoints(initial="wrap", sm="nowrap"),
        row_gap="0",
        width="100%",
        data_testid="history-line",
    )


def history_panel() -> rx.Component:
    """What happened to the order (refunds, cancellations, expiry), oldest first; only when something did."""
    return rx.cond(
        OrdersState.detail_history.length() > 0,
        section_card(
            rx.heading("History", as_="h4", size="3"),
            rx.vstack(rx.foreach(OrdersState.detail_history, history_line), spacing="2", width="100%"),
        ),
    )


def email_line(mail: EmailRow) -> rx.Component:
    return rx.hstack(
        rx.text(mail["at"], size="2", color=styles.MUTED, white_space="nowrap"),
        rx.vstack(
            rx.text(rx.text.strong(mail["subject"], data_testid="email-subject"), size="2"),
            rx.text(
                rx.text.span(mail["state"], data_testid="email-state"),
                rx.cond(mail["state"] == "Sent", " to ", " for "),
                mail["recipient"],
                rx.cond(mail["error"] != "", ": " + mail["error"], ""),
                size="1",
                color=styles.MUTED,
            ),
            spacing="0",
        ),
        spacing="3",
        align="start",
        # On a phone the time goes above what happened rather than squeezing it.
        wrap=rx.breakpoints(initial="wrap", sm="nowrap"),
        row_gap="0",
        width="100%",
        data_testid="email-line",
    )


def emails_panel() -> rx.Component:
    """The emails to the customer about the order (sent, queued, or failed with its attempts)."""
    return rx.cond(
        OrdersState.detail_emails.length() > 0,
        section_card(
            rx.heading("Emails", as_="h4", size="3"),
            rx.vstack(rx.foreach(OrdersState.detail_emails, email_line), spacing="2", width="100%"),
        ),
    )


def details_panel() -> rx.Component:
    return rx.vstack(details_grid(), history_panel(), emails_panel(), spacing="3", width="100%")


def details_grid() -> rx.Component:
    detail = OrdersState.detail
    return rx.grid(
        section_card(
            rx.heading("Customer Information", as_="h4", size="3"),
            field("Name", detail["customer_name"]),
            field("Email", detail["customer_email"]),
            field("Phone", or_dash(detail["customer_phone"])),
            field("Order date", detail["date"]),
        ),
        section_card(
            rx.heading("Order Summary", as_="h4", size="3"),
            field("Subtotal", detail["subtotal"]),
            rx.cond(detail["discount"] != "", field("Discount", detail["discount"], data_testid="detail-discount")),
            field("Shipping", detail["shipping"]),
            field("Tax", detail["tax"]),
            rx.separator(size="4"),
            field("Total", detail["total"], data_testid="detail-total"),
        ),
        section_card(
            rx.heading("Shipping Address", as_="h4", size="3"),
            rx.text(detail["ship_to"], size="2"),
            rx.text(detail["address1"], size="2"),
            rx.cond(detail["address2"] != "", rx.text(detail["address2"], size="2")),
            rx.text(detail["city_line"], size="2"),
            rx.text(detail["country"], size="2"),
        ),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="3",
        width="100%",
    )


def item_row(item: ItemRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(product_thumbnail(item["image"])),
        rx.table.cell(item["name"], min_width="8rem"),
        rx.table.cell(item["size"], white_space="nowrap"),
        rx.table.cell(item["color"], white_space="nowrap"),
        rx.table.cell(item["quantity"], white_space="nowrap"),
        rx.table.cell(item["price"], white_space="nowrap"),
        data_testid="order-item",
        align="center",
    )


def items_panel() -> rx.Component:
    return rx.table.root(
        rx.table.header(
            rx.table.row(
                # Words kept whole: a phone scrolls the table sideways instead.
                *[
                    rx.table.column_header_cell(c, white_space="nowrap")
                    for c in ["Image", "Name", "Size", "Color", "Quantity", "Price"]
                ]
            )
        ),
        rx.table.body(rx.foreach(OrdersState.detail_items, item_row)),
        width="100%",
    )


def tracking_link(url: rx.Var) -> rx.Component:
    """The carrier's tracking page, in a new tab."""
    return rx.hstack(
        rx.text("Tracking", size="2", color=styles.MUTED),
        rx.link(
            "Track shipment",
            rx.icon("external-link", size=14),
            href=url,
            is_external=True,
            rel="noopener noreferrer",
            size="2",
            weight="medium",
            display="inline-flex",
            align_items="center",
            gap="0.25rem",
            data_testid="tracking-link",
        ),
        justify="between",
        width="100%",
    )


def fulfilment_panel() -> rx.Component:
    detail = OrdersState.detail
    return rx.vstack(
        rx.cond(
            detail["attention"] != "",
            rx.callout(
                rx.text("Needs attention: ", detail["attention"]),
                icon="triangle-alert",
                color_scheme="red",
                width="100%",
            ),
        ),
        resolve_form(),
        section_card(
            field("Order Status", detail["status"]),
            field("Payment Status", detail["payment"]),
            rx.cond(detail["card"] != "", field("Card", detail["card"])),
            field("Printify Order ID", or_dash(detail["provider_order_id"])),
            field("Printify Status", or_dash(detail["provider_status"])),
            field("Tracking Number", or_dash(detail["tracking_number"])),
            rx.cond(detail["carrier"] != "", field("Carrier", detail["carrier"])),
            rx.cond(detail["tracking_url"] != "", tracking_link(detail["tracking_url"])),
            rx.cond(detail["shipped"] != "", field("Shipped", detail["shipped"])),
            rx.cond(detail["delivered"] != "", field("Delivered", detail["delivered"])),
        ),
        rx.cond(
            detail["retryable"],
            rx.button(
                rx.icon("rotate-cw", size=14),
                "Retry",
                color_scheme="red",
                loading=OrdersState.retrying == detail["number"],
                on_click=OrdersState.retry(detail["number"]),
            ),
        ),
        rx.callout(AUTO_SEND_NOTE, icon="info", color_scheme="blue", width="100%"),
        spacing="3",
        width="100%",
    )


def action_confirmation() -> rx.Component:
    """'Refund' or 'Cancel order', asked once more with the amount; open over the detail dialog."""
    is_refund = OrdersState.confirm_kind == REFUND
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(rx.cond(is_refund, "Refund order ", "Cancel order ") + OrdersState.detail["number"]),
            rx.alert_dialog.description(OrdersState.confirmation, size="2"),
            rx.cond(
                is_refund,
                refund_form(),
                rx.hstack(
                    rx.alert_dialog.cancel(
                        rx.button("Keep order", variant="soft", color_scheme="gray", disabled=OrdersState.acting)
                    ),
                    rx.button(
                        "Cancel order",
                        color_scheme="red",
                        loading=OrdersState.acting,
                        on_click=OrdersState.confirm,
                        data_testid="confirm-action",
                    ),
                    justify="end",
                    spacing="3",
                    margin_top="1rem",
                ),
            ),
            max_width="460px",
        ),
        open=OrdersState.confirming != "",
        on_open_change=OrdersState.set_confirm_open,
    )


def order_actions() -> rx.Component:
    """Resend confirmation (a paid order), Revoke email links, Refund (a paid order) and Cancel order
    (neither cancelled nor refunded), once it is loaded."""
    detail = OrdersState.detail
    return rx.cond(
        OrdersState.detail_loading,
        rx.fragment(),
        rx.hstack(
            rx.cond(
                detail["resendable"],
                rx.button(
                    rx.icon("mail", size=14),
                    rx.cond(OrdersState.resent, "Confirmation queued", "Resend confirmation"),
                    variant="soft",
                    disabled=OrdersState.resending | OrdersState.resent,
                    on_click=OrdersState.resend_confirmation,
                    data_testid="resend-confirmation",
                ),
            ),
            rx.button(
                rx.icon("link-2-off", size=14),
                "Revoke email links",
                variant="soft",
                color_scheme="gray",
                disabled=OrdersState.revoking,
                on_click=OrdersState.revoke_links,
                data_testid="revoke-links",
            ),
            rx.cond(
                detail["refundable"] & AdminState.permissions.contains(roles.REFUNDS),
                rx.button(
                    rx.icon("undo-2", size=14),
                    "Refund",
                    color_scheme="red",
                    variant="soft",
                    disabled=OrdersState.acting,
                    on_click=OrdersState.ask_refund,
                ),
            ),
            rx.cond(
                detail["cancellable"] & AdminState.permissions.contains(roles.REFUNDS),
                rx.button(
                    rx.icon("ban", size=14),
                    "Cancel order",
                    color_scheme="red",
                    variant="outline",
                    disabled=OrdersState.acting,
                    on_click=OrdersState.ask_cancel,
                ),
            ),
            spacing="2",
            wrap="wrap",
        ),
    )


#: A dialog's widest, never wider than the screen less the dialog's own margins.
DIALOG_MAX_WIDTH = "min({width}, calc(100vw - 2rem))"


def order_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(
                rx.cond(OrdersState.detail["number"] != "", "Order " + OrdersState.detail["number"], "Order")
            ),
            rx.dialog.description("Order details, items and fulfillment", size="2", color=styles.MUTED),
            rx.cond(
                OrdersState.detail_loading,
                rx.center(rx.spinner(size="3"), padding_y="3rem"),
                rx.tabs.root(
                    tab_list(
                        rx.tabs.trigger("Order Details", value="details"),
                        rx.tabs.trigger("Items", value="items"),
                        rx.tabs.trigger("Fulfillment", value="fulfillment"),
                    ),
                    rx.tabs.content(details_panel(), value="details", padding_top="1rem"),
                    rx.tabs.content(items_panel(), value="items", padding_top="1rem"),
                    rx.tabs.content(fulfilment_panel(), value="fulfillment", padding_top="1rem"),
                    default_value="details",
                ),
            ),
            rx.hstack(
                order_actions(),
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                justify="between",
                wrap="wrap",
                spacing="2",
                margin_top="1rem",
            ),
            action_confirmation(),
            # Capped by the screen too: a width cap also caps what the items table asks for, so on
            # a phone the table scrolls inside the dialog instead of widening it past the screen.
            max_width=DIALOG_MAX_WIDTH.format(width="760px"),
            # Payment ids and addresses have no spaces: they break rather than widen the dialog past a phone.
            overflow_wrap="anywhere",
        ),
        open=OrdersState.detail_open,
        on_open_change=OrdersState.set_detail_open,
    )


# --------------------------------------------------------------------------- the tab


def toolbar() -> rx.Component:
    return rx.hstack(
        rx.heading("Order Management", as_="h2", size="5"),
        rx.hstack(
            rx.button(
                rx.icon("download", size=16),
                "Export CSV",
                variant="outline",
                loading=OrdersState.exporting,
                on_click=OrdersState.export_csv,
            ),
            rx.button(
                rx.icon("refresh-cw", size=16),
                "Refresh Orders",
                loading=OrdersState.loading,
                on_click=OrdersState.load,
            ),
            spacing="2",
        ),
        justify="between",
        align="center",
        wrap="wrap",
        width="100%",
    )


def orders_tab() -> rx.Component:
    # The tab's content mounts each time the tab is shown, so the orders load fresh then.
    return rx.vstack(
        toolbar(),
        stat_cards(),
        revenue_chart(),
        section_card(rx.vstack(view_filter(), orders_table(), spacing="4", width="100%")),
        newsletter_card(),
        order_dialog(),
        spacing="4",
        width="100%",
        on_mount=OrdersState.load,
    )
