"""/order-status: this browser's last order straight away, and a lookup by number and email."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.state.order_status import OrderCard, OrderStatusState as S

INTRO = "Enter the order number from your confirmation and the email you used at checkout."
PAGE_WIDTH = "760px"
THANK_YOU = "Thank you for your order!"
WHAT_NEXT = (
    "What happens next: each garment is printed for you after your payment, which usually takes 2 to 5 business"
    " days; delivery then takes 3 to 8 business days. We email you the tracking number as soon as it ships."
)
TONES = ("amber", "red", "gray", "blue", "green", "violet")


def status_badge(order: rx.Var) -> rx.Component:
    """The order's one customer status (customer_status.py), coloured by its tone."""
    return rx.badge(
        order["status"],
        color_scheme=rx.match(order["status_tone"], *((tone, tone) for tone in TONES), "gray"),
        size="2",
        variant="soft",
        data_testid="order-status",
    )


def thank_you(order: rx.Var) -> rx.Component:
    """What the shopper reads first after paying (and whenever the link opens the order)."""
    return rx.vstack(
        rx.heading(THANK_YOU, as_="h2", size="6", data_testid="thank-you"),
        rx.text("We sent a confirmation to ", rx.text.strong(order["email"]), ".", data_testid="confirmation-to"),
        rx.text(WHAT_NEXT, color=styles.MUTED, size="2"),
        spacing="2",
        width="100%",
    )


def ship_to(order: rx.Var) -> rx.Component:
    return rx.cond(
        order["address"].length() > 0,  # type: ignore[attr-defined]
        rx.vstack(
            rx.heading("Shipping to", as_="h3", size="4"),
            rx.foreach(order["address"], lambda line: rx.text(line, size="2")),
            spacing="1",
            width="100%",
            data_testid="ship-to",
        ),
    )


def order_line(line: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.cond(
            line["image_url"] != "",
            rx.image(
                src=line["image_url"],
                alt=line["name"],
                width="56px",
                height="56px",
                object_fit="cover",
                border_radius="6px",
                loading="lazy",
            ),
        ),
        rx.vstack(
            rx.text(line["name"], weight="medium"),
            rx.text(line["options"], color=styles.MUTED, size="2"),
            spacing="0",
            flex="1",
            min_width="0",
        ),
        rx.text("× ", line["quantity"], color=styles.MUTED, size="2"),
        rx.text(line["line_total"], min_width="5rem", text_align="right"),
        align="center",
        spacing="3",
        width="100%",
        data_testid="order-line",
    )


def summary_row(label: str, value: rx.Var, strong: bool = False) -> rx.Component:
    weight = "bold" if strong else "regular"
    return rx.hstack(rx.text(label, weight=weight), rx.text(value, weight=weight), justify="between", width="100%")


def tracking(order: rx.Var) -> rx.Component:
    return rx.cond(
        order["tracking_number"] != "",
        rx.vstack(
            rx.heading("Tracking", as_="h3", size="4"),
            rx.text(
                rx.cond(order["tracking_carrier"] != "", order["tracking_carrier"] + " · ", ""),
                order["tracking_number"],
                data_testid="tracking-number",
            ),
            rx.cond(
                order["tracking_url"] != "",
                rx.link(
                    rx.hstack(rx.text("Track package"), rx.icon("external-link", size=14), align="center", spacing="1"),
                    href=order["tracking_url"],
                    is_external=True,
                ),
            ),
            spacing="1",
            width="100%",
        ),
    )


def order_card() -> rx.Component:
    order = S.order.to(OrderCard)
    return rx.card(
        rx.vstack(
            rx.cond(order["thank_you"], thank_you(order)),
            rx.hstack(
                rx.vstack(
                    rx.heading("Order ", order["number"], as_="h2", size="6", data_testid="order-number"),
                    rx.text("Placed ", order["placed"], color=styles.MUTED, size="2"),
                    spacing="1",
                ),
                status_badge(order),
                justify="between",
                align="start",
                wrap="wrap",
                spacing="3",
                width="100%",
            ),
            rx.text(order["status_text"], data_testid="status-text"),
            tracking(order),
            ship_to(order),
            rx.divider(),
            rx.vstack(rx.foreach(order["items"], order_line), spacing="3", width="100%"),
            rx.divider(),
            summary_row("Subtotal", order["subtotal"]),
            rx.cond(order["discount"] != "", summary_row("Discount", order["discount"])),
            summary_row("Shipping", order["shipping"]),
            summary_row("Total", order["total"], strong=True),
            rx.cond(order["refunded"] != "", summary_row("Refunded", order["refunded"])),
            rx.cond(order["thank_you"], rx.link("Keep shopping", href="/products", data_testid="keep-shopping")),
            spacing="4",
            width="100%",
        ),
        width="100%",
        data_testid="order-card",
    )


def loading_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.skeleton(height="1.75rem", width="60%"),
            rx.skeleton(height="1rem", width="40%"),
            rx.skeleton(height="4rem", width="100%"),
            spacing="3",
            width="100%",
        ),
        width="100%",
        aria_busy="true",
        data_testid="order-loading",
    )


def load_failed() -> rx.Component:
    return rx.callout(
        rx.hstack(
            rx.text("We couldn't load your order right now. Please try again."),
            rx.button("Try again", size="1", variant="outline", on_click=S.open_page),
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        icon="triangle_alert",
        color_scheme="red",
        role="alert",
        width="100%",
    )


def field(name: str, label: str, type_: str, autocomplete: str, placeholder: str) -> rx.Component:
    message = S.field_errors[name]
    return rx.vstack(
        rx.el.label(
            rx.text(label, size="2", weight="medium"),
            rx.input(name=name, type=type_, auto_complete=autocomplete, placeholder=placeholder, size="3"),
            style={"display": "grid", "gap": "0.25rem", "width": "100%"},
        ),
        rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1", data_testid=f"error-{name}")),
        spacing="1",
        width="100%",
    )


def lookup_form() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.heading(rx.cond(S.has_order, "Look up another order", "Find your order"), as_="h2", size="5"),
                rx.text(INTRO, color=styles.MUTED, size="2"),
                rx.grid(
                    field("number", "Order number", "text", "off", "SF-000123"),
                    field("email", "Email", "email", "email", "you@example.com"),
                    columns=rx.breakpoints(initial="1", sm="2"),
                    spacing="3",
                    width="100%",
                ),
                rx.cond(
                    S.lookup_error != "",
                    rx.callout(
                        S.lookup_error,
                        icon="triangle_alert",
                        color_scheme="red",
                        role="alert",
                        width="100%",
                        data_testid="lookup-error",
                    ),
                ),
                rx.button(
                    rx.cond(S.searching, "Finding...", "Find order"),
                    type="submit",
                    size="3",
                    disabled=S.searching,
                    width=rx.breakpoints(initial="100%", sm="auto"),
                ),
                spacing="3",
                width="100%",
            ),
            on_submit=S.find_order,
            reset_on_submit=False,
            no_validate=True,
        ),
        width="100%",
    )


@public_page(route="/order-status", on_load=S.open_page)
def order_status_page() -> rx.Component:
    return rx.vstack(
        rx.heading("Order status", as_="h1", size="8"),
        rx.cond(S.loading, loading_card()),
        rx.cond(S.load_failed, load_failed()),
        rx.cond(
            S.link_error != "",
            rx.callout(
                S.link_error,
                icon="triangle_alert",
                color_scheme="red",
                role="alert",
                width="100%",
                data_testid="link-error",
            ),
        ),
        rx.cond(S.has_order, order_card()),
        lookup_form(),
        spacing="6",
        padding_y="2.5rem",
        style={**styles.content_box, "max_width": PAGE_WIDTH},
    )
