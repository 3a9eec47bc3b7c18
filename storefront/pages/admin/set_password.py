"""/admin/set-password: the page an invitation or reset link opens, to set one's password."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import admin_layout
from storefront.state.admin.staff import SetPasswordState as S


def message(name: str) -> rx.Component:
    return rx.cond(S.errors[name], rx.text(S.errors[name], color=rx.color("red", 11), size="1",
                                           data_testid=f"error-{name}"))


def set_password_card() -> rx.Component:
    return rx.card(
        rx.cond(
            S.done,
            rx.vstack(
                rx.heading("Password set", as_="h1", size="6"),
                rx.text("Your password is set. You can sign in now."),
                rx.link(rx.button("Go to sign in", size="3", width="100%"), href="/admin/login", width="100%"),
                spacing="4",
                width="100%",
            ),
            rx.form(
                rx.vstack(
                    rx.heading("Set your password", as_="h1", size="6"),
                    rx.text("At least 10 characters; not one of the most common passwords.", size="2",
                            color=rx.color("gray", 11)),
                    message("token"),
                    rx.el.label(
                        rx.text("New password", size="2", weight="medium"),
                        rx.input(name="password", type="password", auto_complete="new-password", size="3"),
                        style={"display": "grid", "gap": "0.25rem", "width": "100%"},
                    ),
                    message("password"),
                    rx.el.label(
                        rx.text("Repeat it", size="2", weight="medium"),
                        rx.input(name="confirm", type="password", auto_complete="new-password", size="3"),
                        style={"display": "grid", "gap": "0.25rem", "width": "100%"},
                    ),
                    message("confirm"),
                    rx.button("Set password", type="submit", size="3", width="100%", disabled=S.saving),
                    spacing="3",
                    width="100%",
                ),
                on_submit=S.submit,
                reset_on_submit=False,
                no_validate=True,
            ),
        ),
        width="100%",
        max_width="420px",
        size="4",
    )


@rx.page(route="/admin/set-password", title="Set your password | Admin", on_load=S.open_page)
def set_password() -> rx.Component:
    return admin_layout(rx.center(set_password_card(), min_height=styles.SCREEN_HEIGHT, padding="1rem"), guarded=False)

