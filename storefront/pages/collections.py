"""/collections (tabbed) and one page per collection under /collections/{key}."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.components.product_card import card_grid, product_card, product_results
from storefront.pages.products import load_more_button, search_box
from storefront.services.collections import COLLECTIONS, Collection
from storefront.state.catalog import (
    COLLECTION_CARDS,
    COLLECTION_TAB_CARDS,
    CollectionPageState,
    CollectionsTabsState,
    ProductCard,
)

LOAD_FAILED = "Unable to load products at this time."
#: The name of a collection page's first view (storefront/web/first_view.py fills it).
FIRST_VIEW = "collection"


def showing(state, cards) -> rx.Var:
    """Whether the list's cards are on screen: the browser holds some and they are this list's (a new
    collection or tab sets the count to 0 until its own cards arrive)."""
    return (cards.value.length() > 0) & (state.count > 0)


def paged_grid(state, cards) -> rx.Component:
    """The cards loaded so far (held by the browser) and Load More for the next page."""
    return rx.vstack(
        card_grid(rx.foreach(cards.value.to(list[ProductCard]), lambda p, i: product_card(p, index=i))),
        load_more_button(state),
        spacing="6",
        width="100%",
    )


def tab_panel(collection: Collection) -> rx.Component:
    S = CollectionsTabsState  # noqa: N806 - `S` is the page's state, as in the other pages
    return rx.tabs.content(
        rx.vstack(
            rx.hstack(
                rx.vstack(
                    rx.heading(collection.title, as_="h2", size="6"),
                    rx.text(collection.description, color=styles.MUTED),
                    spacing="1",
                    align="start",
                ),
                rx.badge(
                    S.total.to(str) + rx.cond(S.total == 1, " product", " products"),
                    size="2",
                    data_testid="product-count",
                ),
                justify="between",
                align="start",
                width="100%",
                spacing="4",
            ),
            search_box(S.query, S.set_query),
            product_results(
                loading=S.loading,
                failed=S.failed,
                shown=showing(S, COLLECTION_TAB_CARDS),
                matches=S.total > 0,
                skeletons=4,
                failed_view=rx.text(LOAD_FAILED, color=styles.MUTED),
                empty_view=rx.text("No products found", color=styles.MUTED, padding_y="2rem"),
                results=paged_grid(S, COLLECTION_TAB_CARDS),
            ),
            spacing="4",
            width="100%",
            padding_top="1.5rem",
        ),
        value=collection.key,
    )


@public_page(route="/collections", on_load=CollectionsTabsState.load)
def collections() -> rx.Component:
    return rx.vstack(
        rx.heading("Collections", as_="h1", size="8"),
        rx.tabs.root(
            # Wrapped, not scrolled: a sideways-scrolling row cut HWDPN off a phone's screen with no
            # sign that more tabs followed.
            rx.tabs.list(*[rx.tabs.trigger(c.label, value=c.key) for c in COLLECTIONS], flex_wrap="wrap"),
            *[tab_panel(c) for c in COLLECTIONS],
            value=CollectionsTabsState.tab,
            on_change=CollectionsTabsState.select_tab,
            width="100%",
        ),
        spacing="5",
        padding_y="2.5rem",
        style=styles.content_box,
    )


def coming_soon_tile(collection: Collection) -> rx.Component:
    return rx.card(
        rx.center(
            rx.vstack(
                rx.icon("sparkles", size=32, color=collection.primary),
                rx.heading("Coming Soon", as_="h2", size="5"),
                rx.text(f"New {collection.label} pieces are on their way.", color=styles.MUTED),
                align="center",
            ),
            height="260px",
        ),
        data_testid="coming-soon",
    )


def collection_page(collection: Collection):
    """The page function of one collection."""
    S = CollectionPageState  # noqa: N806 - `S` is the page's state, as in the other pages

    def page() -> rx.Component:
        return rx.vstack(
            rx.box(
                rx.text(collection.label, weight="bold", letter_spacing="0.08em", color=collection.secondary),
                rx.heading(collection.title, as_="h1", size="8", color="white"),
                rx.text(collection.tagline, size="4", color="rgba(255,255,255,0.85)"),
                padding="3rem 2rem",
                border_radius="16px",
                background=f"linear-gradient(120deg, {collection.primary}, #1b1b1b)",
                width="100%",
            ),
            product_results(
                loading=S.loading,
                failed=S.failed,
                shown=showing(S, COLLECTION_CARDS),
                matches=S.total > 0,
                skeletons=4,
                failed_view=rx.text(LOAD_FAILED, color=styles.MUTED),
                empty_view=card_grid(coming_soon_tile(collection)),
                first_view=FIRST_VIEW,
                results=paged_grid(S, COLLECTION_CARDS),
            ),
            rx.link(rx.button(rx.icon("arrow-left", size=16), "Back to Home", variant="outline"), href="/"),
            spacing="6",
            padding_y="2.5rem",
            style=styles.content_box,
        )

    page.__name__ = f"collection_{collection.key}"
    return public_page(route=collection.route, on_load=S.load(collection.key))(page)


for _collection in COLLECTIONS:
    collection_page(_collection)
