"""The frame of admin pages: no storefront header, a hydration marker for browser tests."""

from collections.abc import Callable

import reflex as rx

from storefront.components import styles
from storefront.state.admin.session import AdminState


def admin_layout(content: rx.Component, *, guarded: bool = True) -> rx.Component:
    """The admin frame; a `guarded` page draws nothing of itself until the server confirmed the session."""
    return rx.box(
        rx.cond(AdminState.session_checked, content, rx.center(rx.spinner(size="3"), min_height=styles.SCREEN_HEIGHT))
        if guarded
        else content,
        width="100%",
        min_height=styles.SCREEN_HEIGHT,
        background=rx.color("gray", 2),
        data_hydrated=rx.State.is_hydrated,
    )


def admin_page(
    route: str, title: str, on_load: object = None
) -> Callable[[Callable[[], rx.Component]], Callable[[], rx.Component]]:
    """Register an admin page under `route` in the admin frame."""

    def decorator(page: Callable[[], rx.Component]) -> Callable[[], rx.Component]:
        @rx.page(route=route, title=f"{title} | Admin", on_load=on_load)
        def wrapped() -> rx.Component:
            return admin_layout(page())

        wrapped.__name__ = page.__name__
        return wrapped

    return decorator


def section_card(*children: rx.Component, **props) -> rx.Component:
    """A white card holding one admin panel."""
    return rx.card(*children, width="100%", size="3", **props)


def tab_list(*triggers: rx.Component) -> rx.Component:
    """A tab bar whose tabs wrap onto another line on a narrow screen: Radix's own scrolls sideways
    with no scrollbar, so a phone showed no sign of the tabs past its edge."""
    return rx.tabs.list(*triggers, flex_wrap="wrap")


content_box = {**styles.content_box, "padding_y": "2rem"}
