"""Admin dashboard tab: categories (being built)."""

import reflex as rx


def categories_tab() -> rx.Component:
    return rx.text("categories")
