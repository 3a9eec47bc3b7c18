"""/cart: the cart lines, the order summary and the checkout dialog."""

import reflex as rx

from storefront.components import styles
from storefront.components.checkout_form import checkout_dialog
from storefront.components.discount_field import discount_field, discount_row, shipping_amount, total_amount
from storefront.components.empty_state import empty_state
from storefront.components.layout import public_page
from storefront.components.product_card import product_image
from storefront.services.orders.cart import CART_STORAGE_KEY
from storefront.state.cart import CartState
from storefront.state.discount import DiscountState


def stepper_button(
    icon: str, label: str, on_click: rx.event.EventSpec, disabled: rx.Var | bool = False
) -> rx.Component:
    return rx.icon_button(
        rx.icon(icon, size=14), on_click=on_click, disabled=disabled, variant="outline", size="1", aria_label=label
    )


def cart_row(row: rx.Var) -> rx.Component:
    product_id, size, color = row["id"].to(str), row["size"].to(str), row["color"].to(str)
    source = row["source"].to(str)
    return rx.card(
        rx.hstack(
            rx.box(
                product_image(row["image"], row["name"], height="96px"),
                width="96px",
                border_radius="8px",
                overflow="hidden",
                flex_shrink="0",
            ),
            rx.vstack(
                rx.text(row["name"], weight="bold"),
                rx.text(row["options"], color=styles.MUTED, size="2", data_testid="line-options"),
                rx.text(row["price"], size="2"),
                spacing="1",
                flex="1",
            ),
            rx.hstack(
                stepper_button(
                    "minus",
                    "Decrease quantity",
                    CartState.decrement(product_id, size, color, source),
                    row["quantity"].to(int) <= 1,
                ),
                rx.text(row["quantity"], min_width="2ch", text_align="center", data_testid="line-quantity"),
                stepper_button("plus", "Increase quantity", CartState.increment(product_id, size, color, source)),
                align="center",
                spacing="2",
            ),
            rx.text(row["line_total"], weight="bold", min_width="5rem", text_align="right"),
            rx.icon_button(
                rx.icon("trash-2", size=16),
                on_click=CartState.remove(product_id, size, color, source),
                variant="ghost",
                color_scheme="red",
                aria_label="Remove",
            ),
            align="center",
            spacing="4",
            width="100%",
            wrap="wrap",
        ),
        data_testid="cart-line",
        width="100%",
    )


def summary_row(label: str, value: rx.Var, strong: bool = False) -> rx.Component:
    weight = "bold" if strong else "regular"
    return rx.hstack(rx.text(label, weight=weight), rx.text(value, weight=weight), justify="between", width="100%")


def order_summary() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Order Summary", as_="h2", size="5"),
            summary_row("Subtotal", CartState.subtotal),
            discount_row(summary_row("Discount", DiscountState.discount)),
            summary_row("Shipping", shipping_amount()),
            rx.divider(),
            summary_row("Total", total_amount(), strong=True),
            discount_field("cart"),
            checkout_dialog(),
            rx.text("Free shipping on orders over $100", color=styles.MUTED, size="2"),
            spacing="3",
            width="100%",
        ),
        width="100%",
        data_testid="order-summary",
    )


def store_checkout_button() -> rx.Component:
    """'Checkout on <store name>': makes a cart on the store for the store lines and goes to its
    checkout when the store is connected (what the store refuses is listed under it); otherwise
    disabled, with the reason beside it (demo mode needs a connected store)."""
    label = "Checkout on " + CartState.store_label
    return rx.cond(
        CartState.store_checkout_ready,
        rx.vstack(
            rx.button(label, size="3", width="100%", loading=CartState.store_checkout_busy,
                      on_click=CartState.checkout_on_store, data_testid="store-checkout"),
            rx.foreach(
                CartState.store_checkout_problems,
                lambda problem: rx.callout(problem, icon="triangle-alert", color_scheme="red", size="1", width="100%",
                                           data_testid="store-checkout-problem"),
            ),
            spacing="2",
            width="100%",
        ),
        rx.vstack(
            rx.button(label, size="3", width="100%", disabled=True, data_testid="store-checkout"),
            rx.text(CartState.store_checkout_note, color=styles.MUTED, size="2", data_testid="store-checkout-note"),
            spacing="2",
            width="100%",
        ),
    )


def store_group() -> rx.Component:
    """The store-catalogue lines: their own subtotal and checkout on the store itself."""
    return rx.card(
        rx.vstack(
            rx.heading("From " + CartState.store_label, as_="h2", size="5"),
            rx.text(
                "These items are sold and shipped by the store and checked out there.", color=styles.MUTED, size="2"
            ),
            rx.foreach(CartState.store_rows, cart_row),
            rx.divider(),
            summary_row("Subtotal", CartState.store_subtotal),
            store_checkout_button(),
            spacing="3",
            width="100%",
        ),
        width="100%",
        data_testid="store-group",
    )


def empty_cart() -> rx.Component:
    return empty_state(
        "shopping-cart",
        "Your cart is empty",
        "Start shopping to add items to your cart.",
        rx.link(rx.button("Browse Products", size="3"), href="/products"),
    )


#: Marks the page when the browser's storage holds cart lines, before any of the app's scripts has
#: run (it runs as the HTML is parsed), so the first screen never says "empty" of a full cart.
STORED_CART_PROBE = (
    f"try{{var c=JSON.parse(localStorage.getItem({CART_STORAGE_KEY!r})||'[]');"
    "if(Array.isArray(c)&&c.length)document.documentElement.setAttribute('data-stored-cart','')}catch(e){}"
)


def stored_cart_view() -> rx.Component:
    """What the page shows until the app has read the stored cart: the empty state for an empty
    cart, placeholders of lines for a cart with lines (assets/styles.css picks by the probe's mark)."""
    return rx.box(
        rx.el.script(STORED_CART_PROBE),
        rx.box(empty_cart(), class_name="sf-cart-empty"),
        rx.vstack(
            *[rx.skeleton(rx.box(height="120px", width="100%")) for _ in range(2)],
            spacing="3",
            width="100%",
            class_name="sf-cart-pending",
            custom_attrs={"aria-busy": "true", "aria-label": "Loading your cart"},
        ),
        width="100%",
    )


@public_page(route="/cart", on_load=[CartState.refresh_prices, DiscountState.requote])
def cart_page() -> rx.Component:
    return rx.vstack(
        rx.heading("Shopping Cart", as_="h1", size="8"),
        rx.cond(
            CartState.total_quantity == 0,
            rx.cond(rx.State.is_hydrated, empty_cart(), stored_cart_view()),
            rx.vstack(
                rx.cond(
                    CartState.has_own_lines,
                    rx.grid(
                        rx.vstack(
                            rx.foreach(CartState.rows, cart_row), spacing="3", width="100%", data_testid="own-lines"
                        ),
                        order_summary(),
                        columns=rx.breakpoints(initial="1", md="3fr 2fr"),
                        spacing="6",
                        width="100%",
                    ),
                ),
                rx.cond(CartState.has_store_lines, store_group()),
                spacing="6",
                width="100%",
            ),
        ),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
    )
