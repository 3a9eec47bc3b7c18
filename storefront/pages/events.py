"""/tours-and-events: featured events, then the other upcoming events; a card opens its details."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.event_card import (
    event_card,
    event_dialog,
    event_grid,
    skeleton_event_card,
)
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.page_title import centred_title
from storefront.state.events import FEATURED, LOAD_FAILED, UPCOMING, EventsState

ROUTE = "/tours-and-events"
TITLE = PAGE_TITLES[ROUTE]
DESCRIPTION = PAGE_DESCRIPTIONS[ROUTE]
SUBTITLE = "Meet the collections in person: tour stops, pop-ups and events near you."
LOADING_TEXT = "Loading events..."
EMPTY_TITLE = "No Events Yet"
SKELETON_CARDS = 6


def hero() -> rx.Component:
    return centred_title(TITLE, SUBTITLE, padding_y="2rem")


def section(heading: str, cards: rx.Var, has_more: rx.Var, key: str) -> rx.Component:
    """One list of events with its heading, and Load More while there are more."""
    return rx.cond(
        cards.length() > 0,
        rx.el.section(
            rx.vstack(
                rx.heading(heading, as_="h2", size="6"),
                event_grid(rx.foreach(cards, lambda card, index: event_card(card, index, key))),
                rx.cond(
                    has_more,
                    rx.center(
                        rx.button(
                            "Load More",
                            variant="outline",
                            size="3",
                            loading=EventsState.loading_more,
                            on_click=EventsState.load_more(key),
                        ),
                        width="100%",
                    ),
                ),
                spacing="4",
                width="100%",
            ),
            aria_label=heading,
            data_testid=f"{key}-events",
        ),
    )


def loading_view() -> rx.Component:
    return rx.vstack(
        rx.text(LOADING_TEXT, color=styles.MUTED, role="status", data_testid="events-loading"),
        event_grid(*[skeleton_event_card() for _ in range(SKELETON_CARDS)]),
        spacing="4",
        width="100%",
    )


def events_view() -> rx.Component:
    return rx.cond(
        EventsState.loading,
        loading_view(),
        rx.cond(
            EventsState.failed,
            empty_state("circle-alert", LOAD_FAILED),
            rx.cond(
                EventsState.empty,
                empty_state("calendar", EMPTY_TITLE),
                rx.vstack(
                    section("Featured Events", EventsState.featured, EventsState.has_more_featured, FEATURED),
                    section("Upcoming Events", EventsState.upcoming, EventsState.has_more_upcoming, UPCOMING),
                    spacing="8",
                    width="100%",
                ),
            ),
        ),
    )


@public_page(route=ROUTE, title=TITLE, on_load=EventsState.load, description=DESCRIPTION)
def tours_and_events() -> rx.Component:
    return rx.vstack(
        hero(),
        events_view(),
        event_dialog(),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
    )
