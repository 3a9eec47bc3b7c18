"""/product/{id}: image, price, colour and size choice, Add to Cart, Buy Now and the details."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.layout import public_page
from storefront.components.product_card import DETAIL_SIZES, detail_skeleton, first_view_island, product_image
from storefront.components.product_view import (
    ADD_TO_CART,
    BUY_NOW,
    DETAIL_GRID_CLASSES,
    PRODUCT_VIEW,
    colour_key,
    size_key,
)
from storefront.state.cart import CartState
from storefront.state.catalog import PRODUCT_NOT_FOUND_TEXT, PRODUCT_NOT_FOUND_TITLE, ProductDetailState as S
from storefront.web.html_first import REPLAY_ATTRIBUTE


def colour_swatch(colour: rx.Var) -> rx.Component:
    """A round swatch named after its colour; the chosen one is ringed."""
    name = colour["name"].to(str)
    chosen = S.selected_color == name
    return rx.el.button(
        type="button",
        title=name,
        aria_label=name,
        aria_pressed=rx.cond(chosen, "true", "false"),
        on_click=S.select_color(name),
        style={
            **styles.swatch,
            "background": colour["swatch"],
            "box_shadow": rx.cond(chosen, styles.SWATCH_RING, "none"),
        },
        data_testid="color-swatch",
        custom_attrs={REPLAY_ATTRIBUTE: colour_key(name)},
    )


def colour_picker() -> rx.Component:
    """The 'Color' swatches, only for a product that comes in more than one colour."""
    return rx.cond(
        S.colors.length() > 1,
        rx.vstack(
            rx.hstack(
                rx.text("Color", weight="bold"),
                rx.text(S.selected_color, color=styles.MUTED, data_testid="selected-color"),
                spacing="2",
            ),
            rx.hstack(
                rx.foreach(S.colors, colour_swatch),
                wrap="wrap",
                spacing="3",
                custom_attrs={"role": "group", "aria-label": "Color"},
            ),
            spacing="2",
            align="start",
        ),
    )


def size_option(size: rx.Var) -> rx.Component:
    """A size radio, disabled when the chosen colour does not come in that size."""
    offered = S.available_sizes.contains(size)
    return rx.el.label(
        rx.radio_group.item(
            value=size, aria_label=size, disabled=~offered, custom_attrs={REPLAY_ATTRIBUTE: size_key(size)}
        ),
        rx.text(size),
        display="flex",
        gap="0.4rem",
        align_items="center",
        padding="0.4rem 0.8rem",
        border=styles.BORDER,
        border_radius="8px",
        cursor=rx.cond(offered, "pointer", "not-allowed"),
        opacity=rx.cond(offered, "1", "0.45"),
    )


def size_picker() -> rx.Component:
    return rx.vstack(
        rx.text("Select Size", weight="bold"),
        rx.cond(
            S.sizes.length() == 0,
            rx.text("No sizes available", color=styles.MUTED, data_testid="no-sizes"),
            rx.radio_group.root(
                rx.hstack(
                    rx.foreach(S.sizes, size_option),
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
                on_click=CartState.add(S.product_id, S.selected_size, "", S.selected_color),
                disabled=unavailable,
                custom_attrs={REPLAY_ATTRIBUTE: ADD_TO_CART},
            ),
            rx.button(
                "Buy Now",
                size="3",
                variant="outline",
                on_click=CartState.add(S.product_id, S.selected_size, "/cart", S.selected_color),
                disabled=unavailable,
                custom_attrs={REPLAY_ATTRIBUTE: BUY_NOW},
            ),
            rx.cond(
                S.try_on_url != "",
                rx.link(
                    rx.button(rx.icon("shirt", size=16), "Try It On", size="3", variant="soft"),
                    href=S.try_on_url,
                    data_testid="product-try-on",
                ),
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
        rx.box(
            product_image(S.shown_image, S.name, height="520px", srcset=S.shown_srcset, sizes=DETAIL_SIZES, eager=True),
            border_radius="16px",
            overflow="hidden",
            data_testid="product-image",
        ),
        rx.vstack(
            rx.heading(S.name, as_="h1", size="8"),
            rx.text(S.price, size="6", weight="bold", data_testid="product-price"),
            colour_picker(),
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


def loading_view() -> rx.Component:
    """While the product loads: the opening view the server wrote into the first HTML, or skeletons
    when the page was reached inside the app."""
    return rx.fragment(
        first_view_island(PRODUCT_VIEW, DETAIL_GRID_CLASSES),
        rx.box(detail_skeleton("product-skeleton"), custom_attrs={"data-first-view-fallback": ""}),
    )


def not_found() -> rx.Component:
    return empty_state(
        "package-x",
        PRODUCT_NOT_FOUND_TITLE,
        PRODUCT_NOT_FOUND_TEXT,
        rx.link(rx.button("Back to Products", variant="outline"), href="/products"),
        heading_level="h1",
    )


@public_page(route="/product/[id]", title=S.page_title, on_load=S.load, described_by_server=True)
def product() -> rx.Component:
    return rx.box(
        rx.cond(S.loading, loading_view(), rx.cond(S.not_found, not_found(), details())),
        padding_y="2.5rem",
        style=styles.content_box,
    )
