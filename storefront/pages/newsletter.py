"""/newsletter/confirm and /newsletter/unsubscribe: the links in the newsletter's emails."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.services.newsletter.subscriptions import CONFIRM_ROUTE, UNSUBSCRIBE_ROUTE
from storefront.state.newsletter import NewsletterLinkState as S


def link_outcome(heading: str) -> rx.Component:
    return rx.vstack(
        rx.heading(heading, as_="h1", size="7"),
        rx.cond(
            S.checking,
            rx.hstack(rx.spinner(size="2"), rx.text("Checking your link...", color=styles.MUTED), align="center"),
            rx.callout.root(
                # Two fixed icons, not one named by the state: an icon chosen at run time brings
                # lucide's map of every icon (about 370 KB of script) into the pages' shared chunk.
                rx.callout.icon(rx.cond(S.refused, rx.icon("triangle-alert"), rx.icon("circle-check"))),
                rx.callout.text(S.outcome),
                color_scheme=rx.cond(S.refused, "red", "green"),
                role=rx.cond(S.refused, "alert", "status"),
                data_testid="newsletter-outcome",
            ),
        ),
        rx.link(rx.button("Back to the store", variant="soft"), href="/"),
        spacing="4",
        align="start",
        max_width="640px",
        margin_x="auto",
        padding_y="4rem",
        style=styles.content_box,
    )


@public_page(route=CONFIRM_ROUTE, on_load=S.confirm)
def newsletter_confirm() -> rx.Component:
    return link_outcome("Newsletter subscription")


@public_page(route=UNSUBSCRIBE_ROUTE, on_load=S.unsubscribe)
def newsletter_unsubscribe() -> rx.Component:
    return link_outcome("Unsubscribe from the newsletter")
