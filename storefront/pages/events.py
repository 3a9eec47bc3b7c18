"""/tours-and-events: featured events, then the other upcoming events; a card opens its details."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.event_card import (
    SECTIONS_CLASSES,
    event_card,
    event_dialog,
    event_grid,
    more_key,
    section_markup,
    skeleton_event_card,
)
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.markup import Slot, to_component
from storefront.components.page_title import centred_title
from storefront.components.product_card import first_view_island
from storefront.services.events.cards import FEATURED, UPCOMING
from storefront.state.events import LOAD_FAILED, EventsState
from storefront.web.html_first import REPLAY_ATTRIBUTE

ROUTE = "/tours-and-events"
TITLE = PAGE_TITLES[ROUTE]
DESCRIPTION = PAGE_DESCRIPTIONS[ROUTE]
SUBTITLE = "Meet the collections in person: tour stops, pop-ups and events near you."
LOADING_TEXT = "Loading events..."
EMPTY_TITLE = "No Events Yet"
SKELETON_CARDS = 6
FEATURED_HEADING = "Featured Events"
UPCOMING_HEADING = "Upcoming Events"
#: The `data-first-view` of the events page (storefront/web/first_view.py fills it).
FIRST_VIEW = "events"


def hero() -> rx.Component:
    return centred_title(TITLE, SUBTITLE, padding_y="2rem")


def section(heading: str, cards: rx.Var, has_more: rx.Var, key: str) -> rx.Component:
    """One list of events with its heading, and Load More while there are more."""
    more = rx.cond(
        has_more,
        rx.center(
            rx.button(
                "Load More",
                variant="outline",
                size="3",
                loading=EventsState.loading_more,
                on_click=EventsState.load_more(key),
                custom_attrs={REPLAY_ATTRIBUTE: more_key(key)},
            ),
            class_name="sf-load-more",
        ),
    )
    grid = rx.foreach(cards, lambda card, index: event_card(card, index, key))
    return rx.cond(cards.length() > 0, to_component(section_markup(heading, key, Slot(grid, ""), Slot(more, ""))))


def loading_view() -> rx.Component:
    return rx.vstack(
        rx.text(LOADING_TEXT, color=styles.MUTED, role="status", data_testid="events-loading"),
        event_grid(*[skeleton_event_card() for _ in range(SKELETON_CARDS)]),
        spacing="4",
        width="100%",
    )


def events_view() -> rx.Component:
    """The lists; while they load, the first view the server wrote (storefront/web/first_view.py), else skeletons."""
    return rx.cond(
        EventsState.loading,
        rx.fragment(
            first_view_island(FIRST_VIEW, SECTIONS_CLASSES),
            # No style prop: Emotion's <style> tag would come between the two, which the CSS that
            # hides the fallback beside a filled first view needs adjacent (assets/styles.css).
            rx.el.div(loading_view(), class_name="sf-grid", custom_attrs={"data-first-view-fallback": ""}),
        ),
        rx.cond(
            EventsState.failed,
            empty_state("circle-alert", LOAD_FAILED),
            rx.cond(
                EventsState.empty,
                empty_state("calendar", EMPTY_TITLE),
                rx.el.div(
                    section(FEATURED_HEADING, EventsState.featured, EventsState.has_more_featured, FEATURED),
                    section(UPCOMING_HEADING, EventsState.upcoming, EventsState.has_more_upcoming, UPCOMING),
                    class_name=SECTIONS_CLASSES,
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
