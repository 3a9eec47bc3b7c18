"""Store-catalogue cards (/shopify): image, title and first variant price, linking to the detail."""

import reflex as rx

from storefront.components.product_card import EAGER_CARDS, product_image


def store_product_href(product_id: rx.Var) -> rx.Var:
    return "/shopify/product/" + product_id.to(str)


def store_product_card(card: rx.Var, index: rx.Var | int | None = None) -> rx.Component:
    """A card of the store catalogue. `index` is its place in the grid: the first row's images
    load at once with high priority, the rest lazily."""
    href = store_product_href(card["id"])
    eager = (index < EAGER_CARDS) if isinstance(index, rx.Var) else index is not None and index < EAGER_CARDS
    image = product_image(
        card["image"].to(str),
        card["title"].to(str),
        srcset=card["srcset"].to(str),
        eager=eager,
        size=(card["image_width"].to(int), card["image_height"].to(int)),
    )
    return rx.card(
        rx.link(image, href=href, class_name="group"),
        rx.vstack(
            rx.link(
                rx.text(
                    card["title"],
                    weight="medium",
                    style={
                        "display": "-webkit-box",
                        "-webkit-line-clamp": "2",
                        "-webkit-box-orient": "vertical",
                        "overflow": "hidden",
                    },
                    min_height="2.6em",
                    data_testid="store-product-title",
                ),
                href=href,
                color="inherit",
                underline="hover",
            ),
            rx.text(card["price"], weight="bold", size="4", data_testid="store-product-price"),
            rx.link(
                rx.button("View Details", variant="outline", width="100%", white_space="nowrap"),
                href=href,
                width="100%",
            ),
            spacing="2",
            padding_top="0.75rem",
            width="100%",
        ),
        data_testid="store-product-card",
        size="2",
    )
