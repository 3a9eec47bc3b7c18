"""Admin dashboard tab: events (being built)."""

import reflex as rx


def events_tab() -> rx.Component:
    return rx.text("events")
