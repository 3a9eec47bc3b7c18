"""/admin/forgot-password: ask for a link to set a new password (no sign-in needed)."""

import reflex as rx

from storefront.components.admin.staff_card import card_form, field_message, labelled_input, staff_card, staff_screen
from storefront.state.admin.session import LOGIN_ROUTE
from storefront.state.admin.staff import ForgotPasswordState as S

ROUTE = "/admin/forgot-password"
#: Nobody's page to find in a search engine.
NOINDEX = [{"name": "robots", "content": "noindex"}]


def back_to_sign_in() -> rx.Component:
    return rx.link("Back to sign in", href=LOGIN_ROUTE, size="2")


def forgot_password_card() -> rx.Component:
    return staff_card(
        rx.cond(
            S.sent,
            rx.vstack(
                rx.heading("Check your email", as_="h1", size="6"),
                rx.text(S.sent, role="status", data_testid="reset-sent"),
                back_to_sign_in(),
                spacing="4",
                width="100%",
            ),
            card_form(
                rx.heading("Reset your password", as_="h1", size="6"),
                rx.text("Enter your username or email; we email its account a link to set a new password.",
                        size="2", color=rx.color("gray", 11)),
                rx.cond(
                    S.errors["form"],
                    rx.callout(S.errors["form"], icon="triangle_alert", color_scheme="red", role="alert",
                               width="100%"),
                ),
                labelled_input("Username or email", "username", "username"),
                field_message(S.errors, "username", role="alert"),
                rx.button(
                    rx.cond(S.sending, "Sending...", "Send reset link"),
                    type="submit",
                    size="3",
                    width="100%",
                    disabled=S.sending,
                ),
                back_to_sign_in(),
                on_submit=S.submit,
            ),
        ),
    )


@rx.page(route=ROUTE, title="Reset your password | Admin", meta=NOINDEX, on_load=S.open_page)
def forgot_password() -> rx.Component:
    return staff_screen(forgot_password_card())
