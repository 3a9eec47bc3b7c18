"""The centred title and subtitle that open the New Arrivals, Tours & Events and try-on pages."""

from __future__ import annotations

from typing import Any

import reflex as rx

from storefront.components import styles


def centred_title(title: str, subtitle: str, **props: Any) -> rx.Component:
    """The page's h1 with its subtitle below, centred."""
    return rx.vstack(
        rx.heading(title, as_="h1", size="8"),
        rx.text(subtitle, color=styles.MUTED, size="4", max_width="640px"),
        align="center",
        text_align="center",
        spacing="2",
        width="100%",
        **props,
    )
