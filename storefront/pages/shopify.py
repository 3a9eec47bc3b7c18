"""/shopify (the store catalogue) and /shopify/product/{product_id} (one store product)."""

import reflex as rx

from storefront.components import styles
from storefront.components.empty_state import empty_state
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.markup import Element, Node, Raw, Slot, Value, to_component, to_html
from storefront.components.product_card import (
    DETAIL_SIZES,
    card_grid,
    detail_skeleton,
    first_view_island,
    product_image,
    product_results,
)
from storefront.components.product_view import DETAIL_GRID_CLASSES
from storefront.components.store_product_card import store_product_card
from storefront.services.shopify.cards import StoreCard
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
    StoreListState as L,
    StoreProductState as S,
    shows_config_banner,
    shows_demo_banner,
)

SKELETON_CARDS = 8
#: The `data-first-view` of the cards and of a product's opening view (storefront/web/first_view.py fills them).
STORE_VIEW = "store"
STORE_PRODUCT_VIEW = "store-product"
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


#: lucide's icons of the banners, as lucide-react draws them at 24 px.
_BANNER_ICONS = {
    "info": '<circle cx="12" cy="12" r="10"></circle><path d="M12 16v-4"></path><path d="M12 8h.01"></path>',
    "triangle-alert": '<path d="m21.73 18-8-14a2 2 0 0 0-3.48 0l-8 14A2 2 0 0 0 4 21h16a2 2 0 0 0 1.73-3"></path>'
                      '<path d="M12 9v4"></path><path d="M12 17h.01"></path>',
}
#: The banners' column; hidden while it holds none (no gap above the heading).
BANNERS_CLASSES = "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-3 rx-Stack sf-grid sf-banners"
#: The `data-first-view` of the banners (storefront/web/first_view.py writes them when the store's status is known).
BANNERS_VIEW = "store-banners"


def banner_markup(icon: str, color: str, testid: str, title: str, *lines: Node) -> Element:
    """One status banner of the list page: an icon, a bold title and its lines (high contrast: the
    soft colours' own text falls short of 4.5:1 on their backgrounds)."""
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" '
        f'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" '
        f'class="lucide lucide-{icon}" aria-hidden="true">{_BANNER_ICONS[icon]}</svg>'
    )
    return Element("div", "rt-CalloutRoot rt-r-size-2 rt-variant-soft rt-high-contrast sf-grid",
                   {"data-accent-color": color, "data-testid": testid}, (
                       Element("div", "rt-CalloutIcon", children=(Raw(svg, rx.icon(icon)),)),
                       Element("div", "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-1 rx-Stack", children=(
                           Element("p", "rt-Text rt-r-weight-bold", children=(title,)), *lines,
                       )),
                   ))


def banner_line(text: Value) -> Element:
    return Element("p", "rt-Text rt-r-size-2", children=(text,))


def demo_banner(text: Value) -> Element:
    return banner_markup("info", "blue", "store-demo-banner", DEMO_BANNER_TITLE, banner_line(text))


def config_banner(text: Value, *more: Node) -> Element:
    return banner_markup(
        "triangle-alert", "amber", "store-config-banner", CONFIG_BANNER_TITLE, banner_line(text), *more
    )


def shopper_banners_html(status: str) -> str:
    """The banners a shopper sees for the store's `status`, as the server writes them."""
    banners = [demo_banner(SHOPPER_DEMO_TEXT)] if shows_demo_banner(status) else []
    banners += [config_banner(SHOPPER_CONFIG_TEXT)] if shows_config_banner(status) else []
    return "".join(to_html(banner) for banner in banners)


def for_staff(staff_text: rx.Var | str, shopper_text: str) -> rx.Var:
    """A banner line: the setup for a signed-in admin, a plain sentence for shoppers."""
    return rx.cond(L.staff, staff_text, shopper_text)


def status_banners() -> rx.Component:
    """The spec's banners: demo mode (info), any status but 'connected' (configuration warning),
    and a failed request (error, with a link to the admin). Until the status is known, the ones
    the server wrote into the first HTML."""
    staff_status = rx.cond(
        L.staff & ~L.show_demo_banner,
        rx.text(L.status_message, size="2", data_testid="store-status-message"),
    )
    error = rx.callout.root(
        rx.callout.icon(rx.icon("circle-alert")),
        rx.vstack(
            rx.text(ERROR_BANNER_TITLE, weight="bold"),
            rx.text(for_staff(ERROR_BANNER_TEXT, SHOPPER_ERROR_TEXT), size="2"),
            rx.link(rx.button("Go to Admin", variant="outline", size="2"), href=ADMIN_LINK),
            spacing="1",
        ),
        color_scheme="red",
        high_contrast=True,
        class_name="sf-grid",
        data_testid="store-error-banner",
    )
    return rx.cond(
        (L.status == "") & ~L.request_failed,
        first_view_island(BANNERS_VIEW, BANNERS_CLASSES),
        rx.el.div(
            rx.cond(L.show_demo_banner, to_component(demo_banner(for_staff(L.status_message, SHOPPER_DEMO_TEXT)))),
            rx.cond(
                L.show_config_banner,
                to_component(config_banner(for_staff(CONFIG_BANNER_TEXT, SHOPPER_CONFIG_TEXT), Slot(staff_status, ""))),
            ),
            rx.cond(L.request_failed, error),
            class_name=BANNERS_CLASSES,
        ),
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
            # Judged by the cards the browser holds: the count and the cards come by separate
            # events, and a count without its cards would show an empty grid for a frame.
            shown=STORE_CARDS.value.length() > 0,
            matches=L.count > 0,
            skeletons=SKELETON_CARDS,
            failed_view=empty_state("circle-alert", PRODUCTS_ERROR_TITLE, PRODUCTS_ERROR_TEXT),
            empty_view=empty_state("package-search", EMPTY_TEXT),
            first_view=STORE_VIEW,
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
                rx.select.trigger(
                    id="store-variant", aria_label=S.option_name, placeholder="Select " + S.option_name, width="100%"
                ),
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
            rx.icon_button(
                rx.icon("plus", size=16), variant="outline", on_click=S.increment, aria_label="Increase quantity"
            ),
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
                rx.callout(
                    S.not_for_sale, icon="info", color_scheme="blue", size="1", data_testid="store-not-for-sale"
                ),
            ),
            rx.button(
                rx.icon("shopping-cart", size=16),
                "Add to Cart",
                size="3",
                disabled=~S.can_add,
                on_click=CartState.add_store_item(S.shown_id, S.selected_variant, S.quantity),
            ),
            rx.divider(),
            rx.box(
                rx.html(S.description_html),
                data_testid="store-product-description",
                width="100%",
                style=styles.rich_text,
            ),
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
    """While the product loads: the picture, title and price the server wrote into the first HTML,
    or skeletons when the page was reached inside the app (or the server held nothing for it)."""
    return rx.fragment(
        first_view_island(STORE_PRODUCT_VIEW, DETAIL_GRID_CLASSES),
        rx.box(detail_skeleton("store-product-skeleton"), custom_attrs={"data-first-view-fallback": ""}),
    )


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
                    empty_state(
                        "circle-alert", PRODUCT_ERROR_TITLE, PRODUCT_ERROR_TEXT, back_link(), heading_level="h1"
                    ),
                    details(),
                ),
            ),
        ),
        padding_y="2.5rem",
        style=styles.content_box,
    )
