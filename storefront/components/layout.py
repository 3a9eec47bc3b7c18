"""The shared page frame: header on top, content, footer."""

from collections.abc import Callable

import reflex as rx

from storefront.components import styles
from storefront.components.header import header
from storefront.page_texts import (  # noqa: F401 (re-exported: the pages' texts live in page_texts)
    BRAND_TAGLINE,
    BRAND_TITLE,
    PAGE_DESCRIPTIONS,
    PAGE_TITLES,
    STORE_DESCRIPTION,
    page_title,
)


def footer() -> rx.Component:
    # rx.el, not rx.box(as_=...): Radix's Box renders only a div or a span, and the landmarks matter.
    return rx.el.footer(
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
    )


def public_layout(content: rx.Component) -> rx.Component:
    # A column at least as tall as the screen whose main part grows: a short page ends with its
    # footer at the bottom of the screen, not above an empty band.
    return rx.box(
        header(),
        rx.el.main(content, flex_grow="1"),
        footer(),
        display="flex",
        flex_direction="column",
        min_height=styles.SCREEN_HEIGHT,
        width="100%",
        background=rx.color("gray", 1),
        # Lets browser tests wait until the page is live (websocket connected, state loaded).
        data_hydrated=rx.State.is_hydrated,
    )


def public_page(
    route: str,
    title: str | rx.Var | None = None,
    on_load: object = None,
    description: str | None = None,
    *,
    described_by_server: bool = False,
) -> Callable[[Callable[[], rx.Component]], Callable[[], rx.Component]]:
    """Wrap a page function in the public layout and register it under `route`; its title and
    description are page_texts' for the route unless given (a Var title is used as it is).
    `described_by_server`: each address has its own description, which only the served head
    holds (page_head.py); React drawing the route's would add a second one beside it."""
    title = page_title(title or PAGE_TITLES[route]) if not isinstance(title, rx.Var) else title
    description = "" if described_by_server else description or PAGE_DESCRIPTIONS.get(route, STORE_DESCRIPTION)

    def decorator(page: Callable[[], rx.Component]) -> Callable[[], rx.Component]:
        @rx.page(route=route, title=title, description=description, on_load=on_load)
        def wrapped() -> rx.Component:
            return public_layout(page())

        wrapped.__name__ = page.__name__
        return wrapped

    return decorator
