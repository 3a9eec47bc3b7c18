"""The staff's sign-in screens (sign in, forgot password, set password): one centred card, its
labelled fields and their messages."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import admin_layout


def labelled_input(label: str, name: str, autocomplete: str, type_: str = "text") -> rx.Component:
    return rx.el.label(
        rx.text(label, size="2", weight="medium"),
        rx.input(name=name, type=type_, auto_complete=autocomplete, size="3"),
        style={"display": "grid", "gap": "0.25rem", "width": "100%"},
    )


def field_message(errors: rx.Var, name: str, **props) -> rx.Component:
    """The message of field `name` in `errors` (the state's dict of messages), shown while there is one."""
    return rx.cond(
        errors[name],
        rx.text(errors[name], color=rx.color("red", 11), size="1", data_testid=f"error-{name}", **props),
    )


def card_form(*children: rx.Component, on_submit: rx.EventHandler, spacing: str = "3") -> rx.Component:
    """The card's form: its children stacked, kept as typed after a submit, checked by the server."""
    return rx.form(
        rx.vstack(*children, spacing=spacing, width="100%"),
        on_submit=on_submit,
        reset_on_submit=False,
        no_validate=True,
    )


def staff_card(*children: rx.Component) -> rx.Component:
    return rx.card(*children, width="100%", max_width="420px", size="4")


def staff_screen(card: rx.Component) -> rx.Component:
    """The card in the middle of the admin layout, open to anyone (no sign-in needed)."""
    return admin_layout(rx.center(card, min_height=styles.SCREEN_HEIGHT, padding="1rem"), guarded=False)
