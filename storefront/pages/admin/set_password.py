"""/admin/set-password: the page an invitation or reset link opens, to set one's password."""

import reflex as rx

from storefront.components.admin.staff_card import card_form, field_message, labelled_input, staff_card, staff_screen
from storefront.state.admin.staff import SetPasswordState as S


def set_password_card() -> rx.Component:
    return staff_card(
        rx.cond(
            S.done,
            rx.vstack(
                rx.heading("Password set", as_="h1", size="6"),
                rx.text("Your password is set. You can sign in now."),
                rx.link(rx.button("Go to sign in", size="3", width="100%"), href="/admin/login", width="100%"),
                spacing="4",
                width="100%",
            ),
            card_form(
                rx.heading("Set your password", as_="h1", size="6"),
                rx.text("At least 10 characters; not one of the most common passwords.", size="2",
                        color=rx.color("gray", 11)),
                field_message(S.errors, "token"),
                labelled_input("New password", "password", "new-password", "password"),
                field_message(S.errors, "password"),
                labelled_input("Repeat it", "confirm", "new-password", "password"),
                field_message(S.errors, "confirm"),
                rx.button("Set password", type="submit", size="3", width="100%", disabled=S.saving),
                on_submit=S.submit,
            ),
        ),
    )


@rx.page(route="/admin/set-password", title="Set your password | Admin", on_load=S.open_page)
def set_password() -> rx.Component:
    return staff_screen(set_password_card())
