"""/new-arrivals: the newest products."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.components.page_title import centred_title
from storefront.components.product_card import card_grid, product_card, product_results
from storefront.state.catalog import FIRST_VIEW_SHOWN, NewArrivalsState

SUBTITLE = (
    "Discover our latest collections and exclusive releases. "
    "Be the first to showcase these fresh designs."
)
SKELETON_CARDS = 4
#: The name of the page's first view (storefront/web/first_view.py fills it).
FIRST_VIEW = "new-arrivals"
#: The class of a card that rises into place (assets/styles.css: 0.3 s, each card 0.1 s after the
#: one before, its turn read from RISE_INDEX); the server's first view uses the same class.
RISE_CLASS = "sf-rise"
RISE_INDEX = "--sf-rise-index"


def rising_card(product: rx.Var, index: rx.Var) -> rx.Component:
    """A card that rises into place in its turn (the server's first view rose already: the cards
    taking its place appear at once). A static class and one inline custom property, so starting
    the page serialises and inserts no style of its own per card."""
    return rx.el.div(
        product_card(product, quick_add=False, index=index),
        class_name=rx.cond(FIRST_VIEW_SHOWN.value, "", RISE_CLASS),
        custom_attrs={"data-rise": "", "style": {RISE_INDEX: index}},
    )


@public_page(route="/new-arrivals", on_load=NewArrivalsState.load)
def new_arrivals() -> rx.Component:
    return rx.vstack(
        centred_title("New Arrivals", SUBTITLE),
        product_results(
            loading=NewArrivalsState.loading,
            failed=False,  # the spec shows no handling of failed fetches here
            shown=NewArrivalsState.products.length() > 0,
            skeletons=SKELETON_CARDS,
            first_view=FIRST_VIEW,
            failed_view=rx.fragment(),
            empty_view=rx.text(
                "No products found. New arrivals will be added soon.",
                color=styles.MUTED,
                text_align="center",
                width="100%",
                padding_y="3rem",
            ),
            results=card_grid(rx.foreach(NewArrivalsState.products, rising_card)),
        ),
        rx.center(
            rx.link(rx.button("View All Products", variant="outline", size="3"), href="/products"),
            width="100%",
        ),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
    )
