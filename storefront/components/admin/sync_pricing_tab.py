"""Admin dashboard tab: sync pricing (being built)."""

import reflex as rx


def sync_pricing_tab() -> rx.Component:
    return rx.text("sync pricing")
