"""Admin dashboard tab: Events. Tours & events (the public page, the event model and uploads) are
not built yet; until they are, the tab says so instead of pretending."""

import reflex as rx


def events_tab() -> rx.Component:
    return rx.callout(
        "Tours & events are not available yet: creating and editing events arrives with the Tours & Events page.",
        icon="calendar",
        color_scheme="gray",
        width="100%",
    )
