"""The 'Discount code' field of the cart's order summary and the checkout dialog, and the summary's
amounts with the code the server priced (the cart's own amounts without one)."""

import reflex as rx

from storefront.state.cart import CartState
from storefront.state.discount import DiscountState as D


def discount_field(where: str) -> rx.Component:
    """The field, its Apply button, the applied code with Remove, and why a code does not apply.
    In no form: Enter applies the code and never places the order."""
    return rx.vstack(
        rx.el.label(
            "Discount code", html_for=f"discount-code-{where}", class_name="rt-Text rt-r-size-2 rt-r-weight-medium"
        ),
        rx.hstack(
            rx.input(
                id=f"discount-code-{where}",
                value=D.typed,
                on_change=D.set_typed,
                on_key_down=D.key_down,
                placeholder="Enter code",
                autocomplete="off",
                max_length=40,
                flex="1",
                data_testid=f"discount-input-{where}",
            ),
            rx.button(
                "Apply", type="button", variant="outline", on_click=D.apply, data_testid=f"discount-apply-{where}"
            ),
            width="100%",
        ),
        rx.cond(
            D.applied,
            rx.hstack(
                rx.badge(D.label, color_scheme="green", data_testid=f"discount-applied-{where}"),
                rx.button("Remove", type="button", variant="ghost", size="1", on_click=D.remove),
                align="center",
                justify="between",
                width="100%",
            ),
        ),
        rx.cond(
            D.message != "",
            rx.text(
                D.message, color=rx.color("red", 11), size="2", role="alert", data_testid=f"discount-message-{where}"
            ),
        ),
        spacing="2",
        width="100%",
        data_testid=f"discount-field-{where}",
    )


def shipping_amount() -> rx.Var:
    return rx.cond(D.applied, D.shipping, CartState.shipping)


def total_amount() -> rx.Var:
    return rx.cond(D.applied, D.total, CartState.total)


def discount_row(row: rx.Component) -> rx.Component:
    """The summary's Discount line, shown while a code applies."""
    return rx.cond(D.applied, row)

