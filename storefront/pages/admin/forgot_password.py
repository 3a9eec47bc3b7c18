"""/admin/forgot-password: ask for a link to set a new password (no sign-in needed)."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import admin_layout
from storefront.state.admin.session import LOGIN_ROUTE
from storefront.state.admin.staff import ForgotPasswordState as S

ROUTE = "/admin/forgot-password"
#: Nobody's page to find in a search engine.
NOINDEX = [{"name": "robots", "content": "noindex"}]


def back_to_sign_in() -> rx.Component:
    return rx.link("Back to sign in", href=LOGIN_ROUTE, size="2")


def forgot_password_card() -> rx.Component:
    return rx.card(
        rx.cond(
            S.sent,
            rx.vstack(
                rx.heading("Check your email", as_="h1", size="6"),
                rx.text(S.sent, role="status", data_testid="reset-sent"),
                back_to_sign_in(),
                spacing="4",
                width="100%",
            ),
            rx.form(
                rx.vstack(
                    rx.heading("Reset your password", as_="h1", size="6"),
                    rx.text("Enter your username or email; we email its account a link to set a new password.",
                            size="2", color=rx.color("gray", 11)),
                    rx.cond(
                        S.errors["form"],
                        rx.callout(S.errors["form"], icon="triangle_alert", color_scheme="red", role="alert",
                                   width="100%"),
                    ),
                    rx.el.label(
                        rx.text("Username or email", size="2", weight="medium"),
                        rx.input(name="username", auto_complete="username", size="3"),
                        style={"display": "grid", "gap": "0.25rem", "width": "100%"},
                    ),
                    rx.cond(
                        S.errors["username"],
                        rx.text(S.errors["username"], color=rx.color("red", 11), size="1", role="alert",
                                data_testid="error-username"),
                    ),
                    rx.button(
                        rx.cond(S.sending, "Sending...", "Send reset link"),
                        type="submit",
                        size="3",
                        width="100%",
                        disabled=S.sending,
                    ),
                    back_to_sign_in(),
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


@rx.page(route=ROUTE, title="Reset your password | Admin", meta=NOINDEX, on_load=S.open_page)
def forgot_password() -> rx.Component:
    return admin_layout(
        rx.center(forgot_password_card(), min_height=styles.SCREEN_HEIGHT, padding="1rem"), guarded=False
    )
