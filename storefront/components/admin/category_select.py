"""A product's category picked by its collection's name ('HWDPN · He Wit Da Poodles Now'); the key is what is sent."""

from collections.abc import Callable
from typing import Any

import reflex as rx

from storefront.services.collections import COLLECTIONS


def category_name(key: str) -> str:
    collection = next((c for c in COLLECTIONS if c.key == key), None)
    return f"{collection.label} · {collection.title}" if collection else key


def category_select(value: rx.Var, on_change: Callable[[Any], Any] | Any, size: str = "2") -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder="Category", aria_label="Category"),
        rx.select.content(*[rx.select.item(category_name(c.key), value=c.key) for c in COLLECTIONS]),
        value=value,
        on_change=on_change,
        size=size,
    )
