"""The shared page frame: header on top, content, footer."""

from collections.abc import Callable

import reflex as rx

from storefront.components.header import header
from storefront.components.markup import Element, to_component
from storefront.components.product_card import LINK_CLASSES
from storefront.services.platform.store_routes import STORE_PAGES
from storefront.web.page_texts import (
    BRAND_TAGLINE,
    BRAND_TITLE,
    PAGE_DESCRIPTIONS,
    PAGE_TITLES,
    STORE_DESCRIPTION,
    page_title,
)

#: The footer's links: the order lookup, then the policies and the contact page.
FOOTER_LINKS: tuple[tuple[str, str], ...] = (
    ("Order status", "/order-status"),
    *((page.link, page.route) for page in STORE_PAGES),
)


def footer_link(name: str, href: str) -> rx.Component:
    """A footer link as rx.link draws it, without its generated hover style (sf-link has it)."""
    classes = f"{LINK_CLASSES} sf-small-muted"
    return to_component(Element("a", classes, {"data-accent-color": "", "href": href}, link=True, children=(name,)))  # type: ignore[return-value]


def footer() -> rx.Component:
    # rx.el, not rx.box(as_=...): Radix's Box renders only a div or a span, and the landmarks matter.
    # Classes from assets/styles.css, not per-element styles: the frame is on every page.
    return rx.el.footer(
        rx.hstack(
            rx.text(f"© {BRAND_TITLE}: {BRAND_TAGLINE}", class_name="sf-small-muted"),
            rx.el.nav(
                *[footer_link(name, href) for name, href in FOOTER_LINKS],
                aria_label="Store information",
                class_name="sf-footer-nav",
            ),
            justify="between",
            align="center",
            wrap="wrap",
            spacing="3",
        ),
        class_name="sf-content sf-footer",
    )


def public_layout(content: rx.Component) -> rx.Component:
    # A column at least as tall as the screen whose main part grows: a short page ends with its
    # footer at the bottom of the screen, not above an empty band.
    return rx.el.div(
        header(),
        rx.el.main(content, class_name="sf-main"),
        footer(),
        class_name="sf-frame",
        # Lets browser tests wait until the page is live (websocket connected, state loaded).
        custom_attrs={"data-hydrated": rx.State.is_hydrated},
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
