"""/admin and /admin/login: the admin sign-in form."""

import reflex as rx

from storefront.components.admin.staff_card import card_form, field_message, labelled_input, staff_card, staff_screen
from storefront.pages.admin.forgot_password import ROUTE as FORGOT_PASSWORD_ROUTE
from storefront.state.admin.login import AdminLoginState as S


def field(name: str, label: str, type_: str, autocomplete: str) -> rx.Component:
    return rx.vstack(
        labelled_input(label, name, autocomplete, type_),
        field_message(S.field_errors, name),
        spacing="1",
        width="100%",
    )


def login_card() -> rx.Component:
    return staff_card(
        card_form(
            rx.heading("Admin Login", as_="h1", size="6"),
            rx.text("Sign in to manage products, orders and events.", color=rx.color("gray", 11), size="2"),
            rx.cond(
                S.alert,
                rx.callout(S.alert, icon="triangle_alert", color_scheme="red", role="alert", width="100%"),
            ),
            field("username", "Username", "text", "username"),
            field("password", "Password", "password", "current-password"),
            # Only for a person with two-factor sign-in, once the password was right.
            rx.cond(S.needs_code, field("code", "Authentication code", "text", "one-time-code")),
            rx.button(
                rx.cond(S.submitting, "Signing in...", "Sign In"),
                type="submit",
                size="3",
                width="100%",
                disabled=S.submitting,
            ),
            rx.cond(
                S.default_hint,
                rx.text(
                    "Default credentials: ",
                    rx.code(S.default_hint),
                    size="2",
                    color=rx.color("gray", 11),
                    data_testid="default-hint",
                ),
            ),
            on_submit=S.login,
            spacing="4",
        ),
        rx.flex(
            rx.link("Forgot your password?", href=FORGOT_PASSWORD_ROUTE, size="2"),
            justify="center",
            margin_top="1rem",
        ),
    )


def login_screen() -> rx.Component:
    return staff_screen(login_card())


@rx.page(route="/admin/login", title="Admin Login", on_load=S.open_login)
def admin_login() -> rx.Component:
    return login_screen()


# The spec routes /admin to the same screen.
@rx.page(route="/admin", title="Admin Login", on_load=S.open_login)
def admin_index() -> rx.Component:
    return login_screen()
