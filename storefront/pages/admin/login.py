"""/admin and /admin/login: the admin sign-in form."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import admin_layout
from storefront.pages.admin.forgot_password import ROUTE as FORGOT_PASSWORD_ROUTE
from storefront.state.admin.login import AdminLoginState as S


def field(name: str, label: str, type_: str, autocomplete: str) -> rx.Component:
    message = S.field_errors[name]
    return rx.vstack(
        rx.el.label(
            rx.text(label, size="2", weight="medium"),
            rx.input(name=name, type=type_, auto_complete=autocomplete, size="3"),
            style={"display": "grid", "gap": "0.25rem", "width": "100%"},
        ),
        rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1", data_testid=f"error-{name}")),
        spacing="1",
        width="100%",
    )


def login_card() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
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
                spacing="4",
                width="100%",
            ),
            on_submit=S.login,
            reset_on_submit=False,
            no_validate=True,
        ),
        rx.flex(
            rx.link("Forgot your password?", href=FORGOT_PASSWORD_ROUTE, size="2"),
            justify="center",
            margin_top="1rem",
        ),
        width="100%",
        max_width="420px",
        size="4",
    )


def login_screen() -> rx.Component:
    return admin_layout(rx.center(login_card(), min_height=styles.SCREEN_HEIGHT, padding="1rem"), guarded=False)


@rx.page(route="/admin/login", title="Admin Login", on_load=S.open_login)
def admin_login() -> rx.Component:
    return login_screen()


# The spec routes /admin to the same screen.
@rx.page(route="/admin", title="Admin Login", on_load=S.open_login)
def admin_index() -> rx.Component:
    return login_screen()
