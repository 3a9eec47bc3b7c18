"""Admin dashboard tab: product editor (being built)."""

import reflex as rx


def product_editor_tab() -> rx.Component:
    return rx.text("product editor")
