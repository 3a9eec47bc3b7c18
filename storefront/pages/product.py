"""/product/{id}: image, price, size choice, Add to Cart, Buy Now and the details."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.layout import public_page
from storefront.components.product_card import product_image
from storefront.state.cart import CartState
from storefront.state.catalog import PRODUCT_NOT_FOUND_TEXT, PRODUCT_NOT_FOUND_TITLE, ProductDetailState as S


def size_picker() -> rx.Component:
    return rx.vstack(
        rx.text("Select Size", weight="bold"),
        rx.cond(
            S.sizes.length() == 0,
            rx.text("No sizes available", color=styles.MUTED, data_testid="no-sizes"),
            rx.radio_group.root(
                rx.hstack(
                    rx.foreach(
                        S.sizes,
                        lambda size: rx.el.label(
                            rx.radio_group.item(value=size, aria_label=size),
                            rx.text(size),
                            display="flex",
                            gap="0.4rem",
                            align_items="center",
                            padding="0.4rem 0.8rem",
                            border=styles.BORDER,
                            border_radius="8px",
                            cursor="pointer",
                        ),
                    ),
                    wrap="wrap",
                    spacing="2",
                ),
                value=S.selected_size,
                on_change=S.select_size,
                aria_label="Select Size",
            ),
        ),
        spacing="2",
        align="start",
    )


def buy_buttons() -> rx.Component:
    unavailable = (S.sizes.length() == 0) | S.is_sample
    return rx.vstack(
        rx.hstack(
            rx.button(
                rx.icon("shopping-cart", size=16),
                "Add to Cart",
                size="3",
                on_click=CartState.add(S.product_id, S.selected_size, ""),
                disabled=unavailable,
            ),
            rx.button(
                "Buy Now",
                size="3",
                variant="outline",
                on_click=CartState.add(S.product_id, S.selected_size, "/cart"),
                disabled=unavailable,
            ),
            rx.link(
                rx.button(rx.icon("external-link", size=16), "View on Provider", size="3", variant="ghost"),
                href=S.provider_url,
                is_external=True,
            ),
            wrap="wrap",
            spacing="3",
        ),
        rx.cond(S.is_sample, rx.text("This is a sample product and cannot be ordered.", color=styles.MUTED, size="2")),
        spacing="2",
    )


def details() -> rx.Component:
    return rx.grid(
        rx.box(product_image(S.image, S.name, height="520px"), border_radius="16px", overflow="hidden"),
        rx.vstack(
            rx.heading(S.name, as_="h1", size="8"),
            rx.text(S.price, size="6", weight="bold", data_testid="product-price"),
            size_picker(),
            buy_buttons(),
            rx.divider(),
            rx.heading("Product Details", as_="h2", size="4"),
            rx.text(S.description, color=styles.MUTED, white_space="pre-line"),
            spacing="4",
            align="start",
        ),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="8",
        width="100%",
    )


def loading_skeleton() -> rx.Component:
    return rx.grid(
        rx.skeleton(rx.box(height="520px")),
        rx.vstack(*[rx.skeleton(rx.box(height=h, width="100%")) for h in ("3rem", "2rem", "6rem", "3rem")], spacing="4"),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="8",
        width="100%",
        data_testid="product-skeleton",
    )


def not_found() -> rx.Component:
    return empty_state(
        "package-x",
        PRODUCT_NOT_FOUND_TITLE,
        PRODUCT_NOT_FOUND_TEXT,
        rx.link(rx.button("Back to Products", variant="outline"), href="/products"),
        heading_level="h1",
    )


@public_page(route="/product/[id]", title="Product", on_load=S.load)
def product() -> rx.Component:
    return rx.box(
        rx.cond(S.loading, loading_skeleton(), rx.cond(S.not_found, not_found(), details())),
        padding_y="2.5rem",
        style=styles.content_box,
    )
