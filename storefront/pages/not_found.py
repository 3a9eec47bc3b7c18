"""The page shown for any path that is not a route."""

import reflex as rx

from storefront.components.layout import public_page


@public_page(route="404")
def not_found() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.heading("404 Page Not Found", size="8"),
            rx.text("Did you forget to add the page to the router?", size="4", color=rx.color("gray", 11)),
            rx.link(rx.button("Back to Home", variant="outline"), href="/"),
            align="center",
            spacing="4",
        ),
        min_height="60vh",
        padding="2rem",
    )
