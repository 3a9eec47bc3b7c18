"""The centred message shown when a page has nothing to list (empty, not found, failed)."""

import reflex as rx

from storefront.components import styles


def empty_state(
    icon: str, title: str, text: str = "", *actions: rx.Component, heading_level: str = "h2"
) -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.icon(icon, size=40, color=styles.MUTED),
            rx.heading(title, as_=heading_level, size="6"),
            *([rx.text(text, color=styles.MUTED)] if text else []),
            *actions,
            align="center",
            spacing="3",
            text_align="center",
        ),
        padding_y="4rem",
        width="100%",
    )
