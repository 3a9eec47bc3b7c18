"""/products: search box, product grid, loading, empty and error states."""

import reflex as rx

from storefront.components import styles
from storefront.components.config_banner import config_banner
from storefront.components.empty_state import empty_state
from storefront.components.layout import public_page
from storefront.components.product_card import card_grid, product_card, product_results
from storefront.state.catalog import PRODUCTS_CARDS, ProductCard, ProductsState
from storefront.state.config_banner import ConfigBannerState

SKELETON_CARDS = 8
#: The name of the listing's first view (storefront/web/first_view.py fills it).
FIRST_VIEW = "products"


def search_box(
    value: rx.Var, on_change, placeholder: str = "Search products...", key: rx.Var | None = None
) -> rx.Component:
    """The search input. Uncontrolled (`default_value`): a controlled input would be wrapped in a
    300 ms debounce; each keystroke is sent at once instead and the server drops overtaken results.
    A new `key` makes the input anew, showing a `value` set from elsewhere (the address)."""
    return rx.input(
        rx.input.slot(rx.icon("search", size=16)),
        default_value=value,
        on_change=on_change,
        placeholder=placeholder,
        size="3",
        width=["100%", "360px"],
        aria_label="Search",
        **({"key": key} if key is not None else {}),
    )


def load_more_button(state=ProductsState) -> rx.Component:
    """Load More: appends the next page of `state`'s list (shown only while there is more)."""
    return rx.cond(
        state.has_more,
        rx.center(
            rx.button("Load More", variant="outline", size="3", on_click=state.load_more, loading=state.loading),
            width="100%",
        ),
    )


@public_page(route="/products", on_load=[ProductsState.load, ConfigBannerState.check])
def products() -> rx.Component:
    return rx.vstack(
        config_banner(),
        rx.hstack(
            rx.heading("Our Products", as_="h1", size="8"),
            search_box(ProductsState.query, ProductsState.set_query, key=ProductsState.search_key),
            justify="between",
            align="center",
            wrap="wrap",
            width="100%",
            spacing="4",
        ),
        product_results(
            loading=ProductsState.loading,
            failed=ProductsState.failed,
            shown=PRODUCTS_CARDS.value.length() > 0,
            matches=ProductsState.total > 0,
            skeletons=SKELETON_CARDS,
            first_view=FIRST_VIEW,
            failed_view=empty_state("circle-alert", "Unable to Load Products", "Please try again later"),
            empty_view=empty_state("package-search", "No Products Found", "Try adjusting your search criteria"),
            results=rx.vstack(
                card_grid(
                    rx.foreach(PRODUCTS_CARDS.value.to(list[ProductCard]), lambda p, i: product_card(p, index=i))
                ),
                load_more_button(ProductsState),
                spacing="6",
                width="100%",
            ),
        ),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
    )
