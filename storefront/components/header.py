"""The public header: brand, navigation, cart badge, mobile menu and the hidden admin corner."""

import reflex as rx

from storefront.components import navigation_menu as nm, styles
from storefront.components.markup import Element, to_component
from storefront.components.picture import tile_image
from storefront.components.product_card import LINK_CLASSES
from storefront.services.catalog.seed import collection_tile_picture
from storefront.services.collections import COLLECTIONS, Collection
from storefront.state.cart import CartState
from storefront.state.header import HeaderState, admin_gesture_click
from storefront.web.page_texts import BRAND_TAGLINE, BRAND_TITLE, SEARCH_PARAM

NAV_HOVER_DELAY_MS = 200
NAV_SKIP_DELAY_MS = 300
NEW_ARRIVALS_PANEL_WIDTH = "800px"
SEARCH_PLACEHOLDER = "Search products..."
#: The hidden admin corner's stacking order within the header (the menu button sits above it; the
#: corner's own rule, .sf-admin-corner in assets/styles.css, says the same number).
ADMIN_CORNER_LAYER = 70

MOBILE_LINKS: list[tuple[str, str]] = [
    ("New Arrivals", "/new-arrivals"),
    ("Our Products", "/products"),
    ("Tours & Events", "/tours-and-events"),
    *[(c.title, c.route) for c in COLLECTIONS],
]


def brand() -> rx.Component:
    """The brand, linking home: plain elements with Radix's and the store's classes (the header is
    on every page, so it draws without per-element generated styles)."""
    return to_component(  # type: ignore[return-value]
        Element(
            "a",
            f"{LINK_CLASSES} sf-brand",
            {"data-accent-color": "", "href": "/"},
            link=True,
            children=(
                Element(
                    "div",
                    "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-0 rx-Stack",
                    children=(
                        Element("p", "rt-Text sf-brand-title", children=(BRAND_TITLE,)),
                        Element("p", "rt-Text sf-brand-tagline", children=(BRAND_TAGLINE,)),
                    ),
                ),
            ),
        )
    )


def cart_button() -> rx.Component:
    return rx.link(
        rx.box(
            rx.icon("shopping-cart", size=22),
            rx.cond(
                CartState.total_quantity > 0,
                rx.badge(
                    CartState.total_quantity,
                    data_testid="cart-badge",
                    color_scheme="ruby",
                    variant="solid",
                    radius="full",
                    position="absolute",
                    top="-8px",
                    right="-10px",
                ),
            ),
            position="relative",
            color=styles.INK,
        ),
        href="/cart",
        aria_label="Cart",
        padding="0.5rem",
    )


def search_button() -> rx.Component:
    return rx.icon_button(rx.icon("search", size=20), variant="ghost", color_scheme="gray", aria_label="Search")


def search_dialog() -> rx.Component:
    """The search icon opens a search field (a sheet along the top on phones, a panel on larger
    screens); submitting it opens the listing with the query in its address."""
    return rx.dialog.root(
        rx.dialog.trigger(search_button()),
        rx.dialog.content(
            rx.dialog.title("Search products"),
            rx.form(
                rx.hstack(
                    rx.input(
                        rx.input.slot(rx.icon("search", size=16)),
                        name=SEARCH_PARAM,
                        type="search",
                        placeholder=SEARCH_PLACEHOLDER,
                        aria_label="Search products",
                        auto_focus=True,
                        size="3",
                        flex="1",
                    ),
                    rx.button("Search", type="submit", size="3"),
                    spacing="2",
                    align="center",
                    width="100%",
                ),
                on_submit=HeaderState.search,
                reset_on_submit=True,
            ),
            custom_attrs={"align": "start"},  # Radix Themes' prop: the panel sits near the top
            position=["fixed", "relative"],
            top=["0", "auto"],
            left=["0", "auto"],
            width=["100vw", "100%"],
            max_width=["100vw", "560px"],
            border_radius=["0 0 12px 12px", "12px"],
            data_testid="search-dialog",
        ),
        open=HeaderState.search_open,
        on_open_change=HeaderState.set_search_open,
    )


def collection_tile(collection: Collection) -> rx.Component:
    """A New Arrivals panel tile; selecting it closes the panel (Radix Link behaviour)."""
    return nm.nav_link(
        rx.link(
            rx.box(
                tile_image(collection_tile_picture(collection.key), collection.title, sizes="220px"),
                height="110px",
                overflow="hidden",
                border_radius="8px",
            ),
            rx.text(collection.label, font_weight="700", margin_top="0.4rem", color=styles.INK),
            rx.text(collection.title, font_size="0.8rem", color=styles.MUTED),
            href=collection.route,
            underline="none",
            class_name="group",
            display="block",
            padding="0.5rem",
            border_radius="10px",
            _hover={"background": rx.color("gray", 3)},
        ),
        as_child=True,
    )


def new_arrivals_menu() -> rx.Component:
    return nm.nav_item(
        nm.nav_trigger(
            rx.hstack(rx.text("New Arrivals"), rx.icon("chevron-down", size=14), spacing="1", align="center"),
            style={
                **styles.nav_link,
                "background": "transparent",
                "border": "none",
                "cursor": "pointer",
                "white_space": "nowrap",
            },
        ),
        nm.nav_content(
            rx.grid(
                *[collection_tile(c) for c in COLLECTIONS],
                columns="3",
                spacing="3",
                data_testid="new-arrivals-grid",
            ),
            width=NEW_ARRIVALS_PANEL_WIDTH,
            padding="1rem",
            position="absolute",
            top="100%",
            left="0",
            margin_top="0.5rem",
            background=rx.color("gray", 1),
            border=styles.BORDER,
            border_radius="12px",
            box_shadow="0 12px 32px rgba(0,0,0,0.12)",
            z_index="60",
            data_testid="new-arrivals-panel",
        ),
        # Not positioned: the panel anchors to the whole menu, so its 800 px stay on screen.
    )


def plain_nav_item(label: str, href: str) -> rx.Component:
    return nm.nav_item(
        nm.nav_link(rx.link(label, href=href, style=styles.nav_link, white_space="nowrap"), as_child=True)
    )


def desktop_nav() -> rx.Component:
    return nm.nav_root(
        nm.nav_list(
            plain_nav_item("Our Products", "/products"),
            plain_nav_item("Tours & Events", "/tours-and-events"),
            new_arrivals_menu(),
            *[plain_nav_item(c.label, c.route) for c in COLLECTIONS],
            style={
                "display": "flex",
                "align_items": "center",
                "gap": "0.1rem",
                "list_style": "none",
                "margin": "0",
                "padding": "0",
            },
        ),
        delay_duration=NAV_HOVER_DELAY_MS,
        skip_delay_duration=NAV_SKIP_DELAY_MS,
        position="relative",
        aria_label="Main",
    )


def mobile_menu() -> rx.Component:
    return rx.cond(
        HeaderState.mobile_menu_open,
        rx.vstack(
            *[
                rx.link(label, href=href, on_click=HeaderState.close_mobile_menu, style=styles.nav_link, width="100%")
                for label, href in MOBILE_LINKS
            ],
            spacing="0",
            width="100%",
            padding="0.5rem 1rem 1rem",
            border_top=styles.BORDER,
            background=rx.color("gray", 1),
            data_testid="mobile-menu",
        ),
    )


def hidden_admin_corner() -> rx.Component:
    """An invisible area in the top-right corner; five quick clicks open the admin login. Where the
    menu button shows, it overlaps the corner and wins: the gesture keeps the strip above and beside it."""
    return rx.el.div(
        on_click=admin_gesture_click(),
        class_name="sf-admin-corner",  # its z-index is ADMIN_CORNER_LAYER
        custom_attrs={"data-testid": "admin-gesture", "aria-hidden": "true"},
    )


def header() -> rx.Component:
    return rx.el.header(
        rx.hstack(
            brand(),
            rx.el.div(desktop_nav(), class_name="sf-wide-only"),
            rx.hstack(
                search_dialog(),
                cart_button(),
                rx.box(
                    rx.icon_button(
                        rx.cond(HeaderState.mobile_menu_open, rx.icon("x"), rx.icon("menu")),
                        on_click=HeaderState.toggle_mobile_menu,
                        variant="ghost",
                        color_scheme="gray",
                        aria_label="Menu",
                        data_testid="mobile-menu-toggle",
                        # Above the hidden admin corner, which would otherwise take taps on its top-right.
                        position="relative",
                        z_index=ADMIN_CORNER_LAYER + 1,
                    ),
                    class_name="sf-narrow-only",
                ),
                spacing="3",
                align="center",
                flex_shrink="0",
            ),
            justify="between",
            align="center",
            class_name="sf-content sf-header-bar",
        ),
        rx.el.div(mobile_menu(), class_name="sf-narrow-only"),
        hidden_admin_corner(),
        class_name="sf-header",  # classes from assets/styles.css: the header is on every page
    )
