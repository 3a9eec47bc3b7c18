"""Admin dashboard tab: orders (being built)."""

import reflex as rx


def orders_tab() -> rx.Component:
    return rx.text("orders")
