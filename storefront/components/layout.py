"""The shared page frame: header on top, content, footer."""

from collections.abc import Callable

import reflex as rx

from storefront.collections import COLLECTIONS
from storefront.components import styles
from storefront.components.header import BRAND_TAGLINE, BRAND_TITLE, header


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


STORE_DESCRIPTION = (
    f"{BRAND_TITLE}: {BRAND_TAGLINE}. Print-on-demand tees, hoodies and crewnecks in five themed collections."
)

#: The <meta name="description"> of each public page (search engines show it under the title).
PAGE_DESCRIPTIONS: dict[str, str] = {
    "/": STORE_DESCRIPTION,
    "/products": "Browse every tee, hoodie and crewneck in the store, search by name and add your size to the cart.",
    "/new-arrivals": "The latest designs from all five collections, fresh off the press.",
    "/collections": "All five collections side by side: SWDNN, HWDKN, HWDRN, HWDZN and HWDPN.",
    "/cart": "Your shopping cart: review sizes and quantities, then check out securely.",
    "/order-status": "Look up an order with its number and email address to see its status and tracking.",
    "/product/[id]": "Product details: pick a size, add it to your cart or buy it now.",
    **{c.route: c.description for c in COLLECTIONS},
}


def page_title(title: str) -> str:
    """A page's <title>: the page's own name, then the brand."""
    return title if BRAND_TITLE in title else f"{title} | {BRAND_TITLE}"


def public_page(
    route: str, title: str, on_load: object = None, description: str | None = None
) -> Callable[[Callable[[], rx.Component]], Callable[[], rx.Component]]:
    """Wrap a page function in the public layout and register it under `route`."""
    description = description or PAGE_DESCRIPTIONS.get(route, STORE_DESCRIPTION)

    def decorator(page: Callable[[], rx.Component]) -> Callable[[], rx.Component]:
        @rx.page(route=route, title=page_title(title), description=description, on_load=on_load)
        def wrapped() -> rx.Component:
            return public_layout(page())

        wrapped.__name__ = page.__name__
        return wrapped

    return decorator
