"""Shop buttons over the shared shop selection of the product tabs."""

import reflex as rx

from storefront.state.admin.shops import ShopsState


def shop_buttons(on_select: rx.event.EventType | None = None) -> rx.Component:
    """One button per shop, the selected one solid; `on_select` runs after a change (e.g. a reload)."""
    return rx.hstack(
        rx.foreach(
            ShopsState.shops,
            lambda shop: rx.button(
                shop["title"],
                variant=rx.cond(ShopsState.shop_id == shop["id"], "solid", "outline"),
                on_click=[ShopsState.select_shop(shop["id"]), *([on_select] if on_select is not None else [])],
                size="2",
            ),
        ),
        wrap="wrap",
        spacing="2",
    )
