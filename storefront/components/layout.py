"""The shared page frame: header on top, content, footer."""

from collections.abc import Callable

import reflex as rx

from storefront.components import styles
from storefront.components.header import BRAND_TAGLINE, BRAND_TITLE, header


def footer() -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.text(f"© {BRAND_TITLE}: {BRAND_TAGLINE}", color=styles.MUTED, font_size="0.85rem"),
            rx.link("Order status", href="/order-status", color=styles.MUTED, font_size="0.85rem"),
            justify="between",
            align="center",
            wrap="wrap",
            spacing="3",
        ),
        style=styles.content_box,
        padding_y="2rem",
        border_top=styles.BORDER,
        margin_top="4rem",
        as_="footer",
    )


def public_layout(content: rx.Component) -> rx.Component:
    return rx.box(
        header(),
        rx.box(content, as_="main", min_height="60vh"),
        footer(),
        width="100%",
        background=rx.color("gray", 1),
        # Lets browser tests wait until the page is live (websocket connected, state loaded).
        data_hydrated=rx.State.is_hydrated,
    )


def public_page(
    route: str, title: str, on_load: object = None
) -> Callable[[Callable[[], rx.Component]], Callable[[], rx.Component]]:
    """Wrap a page function in the public layout and register it under `route`."""

    def decorator(page: Callable[[], rx.Component]) -> Callable[[], rx.Component]:
        @rx.page(route=route, title=title, on_load=on_load)
        def wrapped() -> rx.Component:
            return public_layout(page())

        wrapped.__name__ = page.__name__
        return wrapped

    return decorator
