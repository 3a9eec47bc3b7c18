"""/shopify (the store catalogue) and /shopify/product/{product_id} (one store product)."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.product_card import DETAIL_SIZES, card_grid, detail_skeleton, product_image, product_results
from storefront.components.store_product_card import store_product_card
from storefront.state.cart import CartState
from storefront.state.shopify import (
    ALL_COLLECTIONS,
    ALL_COLLECTIONS_LABEL,
    EMPTY_TEXT,
    NOT_FOUND_TITLE,
    PRODUCT_ERROR_TEXT,
    PRODUCT_ERROR_TITLE,
    PRODUCTS_ERROR_TEXT,
    PRODUCTS_ERROR_TITLE,
    STORE_CARDS,
    StoreCard,
    StoreListState as L,
    StoreProductState as S,
)

SKELETON_CARDS = 8
ADMIN_LINK = "/admin/login"

LIST_ROUTE = "/shopify"
DETAIL_ROUTE = "/shopify/product/[product_id]"
LIST_TITLE = PAGE_TITLES[LIST_ROUTE]
LIST_DESCRIPTION = PAGE_DESCRIPTIONS[LIST_ROUTE]
DETAIL_TITLE = PAGE_TITLES[DETAIL_ROUTE]
DETAIL_DESCRIPTION = PAGE_DESCRIPTIONS[DETAIL_ROUTE]

DEMO_BANNER_TITLE = "Demo Mode"
CONFIG_BANNER_TITLE = "Shopify API Configuration Required"
# The setup (settings to set, the store's own reason) is for staff; shoppers get a plain sentence.
CONFIG_BANNER_TEXT = (
    "The store catalogue is not connected to a Shopify store. Set SHOPIFY_STORE_DOMAIN and "
    "SHOPIFY_STOREFRONT_TOKEN (or SHOPIFY_STOREFRONT_PRIVATE_TOKEN; SHOPIFY_API_VERSION defaults to 2026-10) "
    "to show your store's products."
)
SHOPPER_DEMO_TEXT = "These are sample products to browse: they cannot be bought here."
SHOPPER_CONFIG_TEXT = "The store catalogue is not connected to its shop right now. Please check back later."
ERROR_BANNER_TITLE = "Shopify Store Unavailable"
ERROR_BANNER_TEXT = "The store catalogue could not be loaded. Please check the API configuration."
SHOPPER_ERROR_TEXT = "The store catalogue could not be loaded. Please try again later."
SEARCH_PLACEHOLDER = "Search by title..."
BACK_TO_STORE = "Back to Store Catalogue"


# ---------------------------------------------------------------------------------------- list


def banner(icon: str, color: str, testid: str, title: str, *body: rx.Component) -> rx.Component:
    """One status banner of the list page: an icon, a bold title and its lines."""
    return rx.callout.root(
        rx.callout.icon(rx.icon(icon)),
        rx.vstack(rx.text(title, weight="bold"), *body, spacing="1"),
        color_scheme=color,
        width="100%",
        data_testid=testid,
    )


def for_staff(staff_text: rx.Var | str, shopper_text: str, **props) -> rx.Component:
    """A banner line: the setup for a signed-in admin, a plain sentence for shoppers."""
    return rx.text(rx.cond(L.staff, staff_text, shopper_text), size="2", **props)


def status_banners() -> rx.Component:
    """The spec's banners: demo mode (info), any status but 'connected' (configuration warning),
    and a failed request (error, with a link to the admin)."""
    return rx.vstack(
        rx.cond(
            L.show_demo_banner,
            banner("info", "blue", "store-demo-banner", DEMO_BANNER_TITLE, for_staff(L.status_message, SHOPPER_DEMO_TEXT)),
        ),
        rx.cond(
            L.show_config_banner,
            banner(
                "triangle-alert",
                "amber",
                "store-config-banner",
                CONFIG_BANNER_TITLE,
                for_staff(CONFIG_BANNER_TEXT, SHOPPER_CONFIG_TEXT),
                rx.cond(
                    L.staff & ~L.show_demo_banner,
                    rx.text(L.status_message, size="2", data_testid="store-status-message"),
                ),
            ),
        ),
        rx.cond(
            L.request_failed,
            banner(
                "circle-alert",
                "red",
                "store-error-banner",
                ERROR_BANNER_TITLE,
                for_staff(ERROR_BANNER_TEXT, SHOPPER_ERROR_TEXT),
                rx.link(rx.button("Go to Admin", variant="outline", size="2"), href=ADMIN_LINK),
            ),
        ),
        spacing="3",
        width="100%",
    )


def search_box() -> rx.Component:
    """Uncontrolled (`default_value`), as on /products: each keystroke is sent at once, without
    the debounce a controlled input gets; the state drops overtaken answers."""
    return rx.input(
        rx.input.slot(rx.icon("search", size=16)),
        default_value=L.query,
        on_change=L.set_query,
        placeholder=SEARCH_PLACEHOLDER,
        size="3",
        width=["100%", "320px"],
        aria_label="Search products by title",
    )


def collection_select() -> rx.Component:
    return rx.select.root(
        rx.select.trigger(aria_label="Collection", width=["100%", "240px"]),
        rx.select.content(
            rx.select.item(ALL_COLLECTIONS_LABEL, value=ALL_COLLECTIONS),
            rx.foreach(L.collections, lambda c: rx.select.item(c["title"], value=c["id"])),
        ),
        value=L.collection,
        on_change=L.set_collection,
        size="3",
    )


def load_more_button() -> rx.Component:
    return rx.cond(
        L.has_more,
        rx.center(
            rx.button("Load More", variant="outline", size="3", on_click=L.load_more, loading=L.loading),
            width="100%",
        ),
    )


@public_page(route=LIST_ROUTE, title=LIST_TITLE, description=LIST_DESCRIPTION, on_load=L.load)
def shopify_list() -> rx.Component:
    return rx.vstack(
        status_banners(),
        rx.hstack(
            rx.heading(LIST_TITLE, as_="h1", size="8"),
            rx.hstack(search_box(), collection_select(), spacing="3", wrap="wrap", width=["100%", "auto"]),
            justify="between",
            align="center",
            wrap="wrap",
            width="100%",
            spacing="4",
        ),
        product_results(
            loading=L.loading,
            failed=L.failed,
            shown=L.count > 0,
            skeletons=SKELETON_CARDS,
            failed_view=empty_state("circle-alert", PRODUCTS_ERROR_TITLE, PRODUCTS_ERROR_TEXT),
            empty_view=empty_state("package-search", EMPTY_TEXT),
            results=rx.vstack(
                card_grid(
                    rx.foreach(STORE_CARDS.value.to(list[StoreCard]), lambda c, i: store_product_card(c, index=i)),
                ),
                load_more_button(),
                spacing="6",
                width="100%",
            ),
        ),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
    )


# ---------------------------------------------------------------------------------------- detail


def variant_selector() -> rx.Component:
    """The variant dropdown, only for a product with more than one variant, labelled by the
    product's first option name."""
    return rx.cond(
        S.variants.length() > 1,
        rx.vstack(
            rx.el.label(S.option_name, html_for="store-variant", style={"font_weight": "bold"}),
            rx.select.root(
                rx.select.trigger(id="store-variant", aria_label=S.option_name, placeholder="Select " + S.option_name, width="100%"),
                rx.select.content(rx.foreach(S.variants, lambda v: rx.select.item(v["title"], value=v["id"]))),
                value=S.selected_variant,
                on_change=S.select_variant,
                size="3",
            ),
            spacing="2",
            align="start",
            width=["100%", "320px"],
        ),
    )


def quantity_stepper() -> rx.Component:
    return rx.vstack(
        rx.text("Quantity", weight="bold", id="store-quantity-label"),
        rx.hstack(
            rx.icon_button(
                rx.icon("minus", size=16),
                variant="outline",
                on_click=S.decrement,
                disabled=S.quantity <= 1,
                aria_label="Decrease quantity",
            ),
            rx.text(
                S.quantity,
                min_width="3ch",
                text_align="center",
                data_testid="store-quantity",
                custom_attrs={"aria-live": "polite"},
            ),
            rx.icon_button(rx.icon("plus", size=16), variant="outline", on_click=S.increment, aria_label="Increase quantity"),
            align="center",
            spacing="3",
        ),
        spacing="2",
        align="start",
    )


def facts() -> rx.Component:
    return rx.vstack(
        rx.cond(S.vendor != "", rx.text(rx.text.strong("Vendor: "), S.vendor, data_testid="store-vendor")),
        rx.cond(S.product_type != "", rx.text(rx.text.strong("Type: "), S.product_type, data_testid="store-type")),
        rx.cond(
            S.tags.length() > 0,
            rx.hstack(
                rx.text("Tags:", weight="bold"),
                rx.foreach(S.tags, lambda tag: rx.badge(tag, variant="soft", data_testid="store-tag")),
                wrap="wrap",
                spacing="2",
                align="center",
            ),
        ),
        spacing="2",
        align="start",
    )


def details() -> rx.Component:
    return rx.grid(
        rx.box(
            product_image(
                S.image,
                S.title,
                height="520px",
                srcset=S.image_srcset,
                sizes=DETAIL_SIZES,
                eager=True,
                size=(S.image_width, S.image_height),
            ),
            border_radius="16px",
            overflow="hidden",
            data_testid="store-product-image",
        ),
        rx.vstack(
            rx.heading(S.title, as_="h1", size="8"),
            rx.text(S.price, size="6", weight="bold", data_testid="store-product-price"),
            variant_selector(),
            quantity_stepper(),
            rx.cond(
                S.not_for_sale != "",
                rx.callout(S.not_for_sale, icon="info", color_scheme="blue", size="1", data_testid="store-not-for-sale"),
            ),
            rx.button(
                rx.icon("shopping-cart", size=16),
                "Add to Cart",
                size="3",
                disabled=~S.can_add,
                on_click=CartState.add_store_item(S.shown_id, S.selected_variant, S.quantity),
            ),
            rx.divider(),
            rx.box(rx.html(S.description_html), data_testid="store-product-description", width="100%", style=styles.rich_text),
            facts(),
            rx.link(rx.icon("arrow-left", size=14), BACK_TO_STORE, href="/shopify", size="2"),
            spacing="4",
            align="start",
        ),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="8",
        width="100%",
    )


def loading_skeleton() -> rx.Component:
    return detail_skeleton("store-product-skeleton")


def back_link() -> rx.Component:
    return rx.link(rx.button(BACK_TO_STORE, variant="outline"), href="/shopify")


@public_page(route=DETAIL_ROUTE, title=DETAIL_TITLE, description=DETAIL_DESCRIPTION, on_load=S.load)
def shopify_product() -> rx.Component:
    return rx.box(
        rx.cond(
            S.loading,
            loading_skeleton(),
            rx.cond(
                S.not_found,
                empty_state("package-x", NOT_FOUND_TITLE, "", back_link(), heading_level="h1"),
                rx.cond(
                    S.failed,
                    empty_state("circle-alert", PRODUCT_ERROR_TITLE, PRODUCT_ERROR_TEXT, back_link(), heading_level="h1"),
                    details(),
                ),
            ),
        ),
        padding_y="2.5rem",
        style=styles.content_box,
    )
