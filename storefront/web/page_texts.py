"""The title and description of every public page, in one place: the pages (through
components/layout.py) and the served `<head>` (page_head.py) both read them. No reflex here."""

from __future__ import annotations

from storefront.services.collections import COLLECTIONS
from storefront.services.newsletter.subscriptions import CONFIRM_ROUTE, UNSUBSCRIBE_ROUTE
from storefront.services.platform.store_routes import CONTACT, PRIVACY, REFUNDS, SHIPPING, STORE_PAGES, TERMS

BRAND_TITLE = "SWDNN"
BRAND_TAGLINE = "She Wit Da Nupes Now"

HOME_ROUTE = "/"
PRODUCTS_ROUTE = "/products"
NEW_ARRIVALS_ROUTE = "/new-arrivals"
COLLECTIONS_ROUTE = "/collections"
PRODUCT_ROUTE = "/product/[id]"
EVENTS_ROUTE = "/tours-and-events"
SHOPIFY_ROUTE = "/shopify"
SHOPIFY_PRODUCT_ROUTE = "/shopify/product/[product_id]"
TRY_ON_ROUTE = "/try-it-on"
CART_ROUTE = "/cart"
ORDER_STATUS_ROUTE = "/order-status"
NOT_FOUND_ROUTE = "404"

#: The listing's search in its address (/products?q=hoodie), so a search can be shared and reloaded.
SEARCH_PARAM = "q"
#: `/tours-and-events?event=<id>` opens that event's details: the address the sitemap and the
#: event's link preview give it.
EVENT_PARAM = "event"
#: The query parameter naming the item to choose (`/try-it-on?item=<product id>`).
ITEM_PARAM = "item"

STORE_DESCRIPTION = (
    f"{BRAND_TITLE}: {BRAND_TAGLINE}. Print-on-demand tees, hoodies and crewnecks in five themed collections."
)

#: The policy and contact pages' descriptions (their texts are the shop's own, see services/content).
STORE_PAGE_DESCRIPTIONS: dict[str, str] = {
    PRIVACY: (
        f"How {BRAND_TITLE} uses and protects the details you give with an order, a try-on photo or the newsletter."
    ),
    TERMS: f"The terms of every order placed at {BRAND_TITLE}: orders, payment, shipping, returns and designs.",
    REFUNDS: "Printed on demand: misprinted or damaged items are replaced or refunded; no change-of-mind returns.",
    SHIPPING: (
        "Where we ship, what shipping costs (free over $100, else $9.99) and how long printing and delivery take."
    ),
    CONTACT: f"Write to {BRAND_TITLE} about an order, a size or a design: we answer within two business days.",
}

#: The name of each public page (its <title> adds the brand, see `page_title`).
PAGE_TITLES: dict[str, str] = {
    HOME_ROUTE: f"{BRAND_TITLE} | {BRAND_TAGLINE}",
    PRODUCTS_ROUTE: "Our Products",
    NEW_ARRIVALS_ROUTE: "New Arrivals",
    COLLECTIONS_ROUTE: "Collections",
    **{c.route: c.title for c in COLLECTIONS},
    PRODUCT_ROUTE: "Product",
    EVENTS_ROUTE: "Tours & Events",
    SHOPIFY_ROUTE: "Store Catalogue",
    SHOPIFY_PRODUCT_ROUTE: "Store Product",
    TRY_ON_ROUTE: "Virtual Try-On",
    CART_ROUTE: "Shopping Cart",
    ORDER_STATUS_ROUTE: "Order Status",
    CONFIRM_ROUTE: "Confirm your subscription",
    UNSUBSCRIBE_ROUTE: "Unsubscribe",
    **{page.route: page.title for page in STORE_PAGES},
    NOT_FOUND_ROUTE: "404 Page Not Found",
}

#: The <meta name="description"> of each public page (search engines show it under the title).
PAGE_DESCRIPTIONS: dict[str, str] = {
    HOME_ROUTE: STORE_DESCRIPTION,
    PRODUCTS_ROUTE: "Browse every tee, hoodie and crewneck in the store, search by name and add your size to the cart.",
    NEW_ARRIVALS_ROUTE: "The latest designs from all five collections, fresh off the press.",
    COLLECTIONS_ROUTE: "All five collections side by side: SWDNN, HWDKN, HWDRN, HWDZN and HWDPN.",
    **{c.route: c.description for c in COLLECTIONS},
    PRODUCT_ROUTE: "Product details: pick a size, add it to your cart or buy it now.",
    EVENTS_ROUTE: (
        "Tour dates, pop-ups and events: where to meet the collections in person, with dates, places and tickets."
    ),
    SHOPIFY_ROUTE: "Browse the store catalogue: search products by title, filter by collection and pick a variant.",
    SHOPIFY_PRODUCT_ROUTE: "A product of the store catalogue: choose a variant and a quantity and add it to your cart.",
    TRY_ON_ROUTE: "Upload a photo and see yourself wearing our tees and hoodies before you buy.",
    CART_ROUTE: "Your shopping cart: review sizes and quantities, then check out securely.",
    ORDER_STATUS_ROUTE: "Look up an order with its number and email address to see its status and tracking.",
    CONFIRM_ROUTE: "Confirm your subscription to the newsletter.",
    UNSUBSCRIBE_ROUTE: "Stop the newsletter to your address.",
    **{page.route: STORE_PAGE_DESCRIPTIONS[page.slug] for page in STORE_PAGES},
    NOT_FOUND_ROUTE: "The page was not found.",
}

#: Pages for one shopper (a cart, an order, an email link): never in a search engine's index.
NOINDEX_ROUTES: frozenset[str] = frozenset(
    {CART_ROUTE, ORDER_STATUS_ROUTE, CONFIRM_ROUTE, UNSUBSCRIBE_ROUTE, NOT_FOUND_ROUTE}
)


def page_title(title: str) -> str:
    """A page's <title>: the page's own name, then the brand."""
    return title if BRAND_TITLE in title else f"{title} | {BRAND_TITLE}"
