"""The Orders tab's newsletter card: confirmed subscribers and their CSV export."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.state.admin.newsletter import NewsletterAdminState as S


def newsletter_card() -> rx.Component:
    return section_card(
        rx.hstack(
            rx.vstack(
                rx.hstack(
                    rx.icon("mail", size=18, color=styles.MUTED),
                    rx.heading("Newsletter", as_="h3", size="4"),
                    align="center",
                    spacing="2",
                ),
                rx.text(
                    "Confirmed subscribers: ",
                    rx.text.strong(rx.cond(S.counted, S.subscribers, "…"), data_testid="newsletter-subscribers"),
                    size="2",
                    color=styles.MUTED,
                ),
                spacing="1",
            ),
            rx.button(
                rx.icon("download", size=16),
                "Export Subscribers",
                variant="outline",
                loading=S.exporting,
                on_click=S.export_csv,
            ),
            justify="between",
            align="center",
            wrap="wrap",
            spacing="3",
            width="100%",
        ),
        on_mount=S.load_count,
    )
