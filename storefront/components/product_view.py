"""The product page's opening view as the server writes it into the first HTML (storefront/web/first_view.py).

Laid out as pages/product.py lays out the product (image beside title, price, colours, sizes, the
buttons and the details), with Radix Themes' classes and the store's own, so React's page takes its
place without a move. Try It On and View on Provider are plain links; a tap on a colour, a size, Add
to Cart or Buy Now is kept and replayed on React's control of the same `data-replay` key once it is
there (storefront/web/html_first.py).
"""

from __future__ import annotations

import re

from storefront.components.markup import Element, Raw, Value
from storefront.components.product_card import DETAIL_SIZES, LINK_CLASSES
from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE, ProductDetail, opening_colour
from storefront.services.platform.money import format_usd
from storefront.services.printify.provider import product_page_url
from storefront.state.tryon import try_on_url
from storefront.web.html_first import REPLAY_ATTRIBUTE

#: The `data-first-view` of the product page.
PRODUCT_VIEW = "product"
#: The page's two columns: one on phones, two from medium screens (pages/product.py `details`).
DETAIL_GRID_CLASSES = "rt-Grid rt-r-gtc-1 md:rt-r-gtc-2 rt-r-gap-8 sf-grid"
_STACK = "rt-Flex rt-r-fd-column rt-r-ai-start rx-Stack"
_ROW = "rt-Flex rt-r-fd-row rt-r-ai-start rt-r-fw-wrap rx-Stack"
_BUTTON = "rt-reset rt-BaseButton rt-r-size-3 rt-Button"
#: A swatch colour written into a style attribute: a hex value or a colour's name, nothing else.
_CSS_COLOUR = re.compile(r"^#?[0-9A-Za-z]{1,20}$")
_BUTTON_ATTRS = {"data-accent-color": "", "type": "button"}
#: The `data-replay` keys of the page's controls (pages/product.py gives React's the same).
ADD_TO_CART, BUY_NOW = "add-to-cart", "buy-now"


def size_key(size: Value) -> Value:
    """A size's `data-replay` key: a str for the server's markup, a Var for React's."""
    return "size:" + size


def colour_key(colour: Value) -> Value:
    """A colour's `data-replay` key: a str for the server's markup, a Var for React's."""
    return "colour:" + colour


def lucide(name: str, shapes: str) -> Raw:
    """A lucide icon at 16 px, as lucide-react draws it."""
    return Raw(
        '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24" fill="none" '
        'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" '
        f'class="lucide lucide-{name}" aria-hidden="true">{shapes}</svg>'
    )


CART_ICON = lucide("shopping-cart", (
    '<circle cx="8" cy="21" r="1"></circle><circle cx="19" cy="21" r="1"></circle>'
    '<path d="M2.05 2.05h2l2.66 12.42a2 2 0 0 0 2 1.58h9.78a2 2 0 0 0 1.95-1.57l1.65-7.43H5.12"></path>'
))
SHIRT_ICON = lucide("shirt", (
    '<path d="M20.38 3.46 16 2a4 4 0 0 1-8 0L3.62 3.46a2 2 0 0 0-1.34 2.23l.58 3.47a1 1 0 0 0 .99.84H6v10c0 '
    '1.1.9 2 2 2h8a2 2 0 0 0 2-2V10h2.15a1 1 0 0 0 .99-.84l.58-3.47a2 2 0 0 0-1.34-2.23z"></path>'
))
LINK_ICON = lucide("external-link", (
    '<path d="M15 3h6v6"></path><path d="M10 14 21 3"></path>'
    '<path d="M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6"></path>'
))


def _colours(product: ProductDetail) -> tuple[Element, ...]:
    """'Color', the opening colour's name and the swatches, for a product in several colours."""
    opening = opening_colour(product)
    if opening is None or len(product.colors) <= 1:
        return ()
    swatches = tuple(
        Element(
            "span",
            "sf-swatch" + (" sf-swatch-chosen" if colour is opening else ""),
            {
                "title": colour.name,
                "style": f"background:{colour.swatch}" if _CSS_COLOUR.match(colour.swatch) else "",
                REPLAY_ATTRIBUTE: colour_key(colour.name),
            },
        )
        for colour in product.colors
    )
    return (Element("div", f"{_STACK} rt-r-gap-2", children=(
        Element("div", "rt-Flex rt-r-fd-row rt-r-ai-start rt-r-gap-2 rx-Stack", children=(
            Element("p", "rt-Text rt-r-weight-bold", children=("Color",)),
            Element("p", "rt-Text sf-muted", children=(opening.name,)),
        )),
        Element("div", f"{_ROW} rt-r-gap-3", children=swatches),
    )),)


def _sizes(product: ProductDetail) -> Element:
    opening = opening_colour(product)
    offered = opening.sizes if opening else product.sizes
    if not product.sizes:
        sizes: Element = Element("p", "rt-Text sf-muted", children=("No sizes available",))
    else:
        sizes = Element(
            "div",
            f"{_ROW} rt-r-gap-2",
            children=tuple(
                Element(
                    "span",
                    "sf-size" + ("" if size in offered else " sf-size-off"),
                    {REPLAY_ATTRIBUTE: size_key(size)},
                    (
                        Element("span", "rt-reset rt-BaseRadioRoot rt-r-size-2 rt-variant-classic"),
                        Element("p", "rt-Text", children=(size,)),
                    ),
                )
                for size in product.sizes
            ),
        )
    return Element("div", f"{_STACK} rt-r-gap-2", children=(
        Element("p", "rt-Text rt-r-weight-bold", children=("Select Size",)), sizes,
    ))


def _buttons(product: ProductDetail, try_on: bool) -> Element:
    buttons = [
        Element("button", f"{_BUTTON} rt-variant-solid", {**_BUTTON_ATTRS, REPLAY_ATTRIBUTE: ADD_TO_CART},
                (CART_ICON, "Add to Cart")),
        Element("button", f"{_BUTTON} rt-variant-outline", {**_BUTTON_ATTRS, REPLAY_ATTRIBUTE: BUY_NOW}, ("Buy Now",)),
    ]
    if try_on:
        buttons.append(Element("a", LINK_CLASSES, {"data-accent-color": "", "href": try_on_url(product.id)}, children=(
            Element("button", f"{_BUTTON} rt-variant-soft", _BUTTON_ATTRS, (SHIRT_ICON, "Try It On")),
        )))
    buttons.append(Element("a", LINK_CLASSES, {
        "data-accent-color": "", "href": product_page_url(product.id), "target": "_blank", "rel": "noopener noreferrer",
    }, children=(Element("button", f"{_BUTTON} rt-variant-ghost", _BUTTON_ATTRS, (LINK_ICON, "View on Provider")),)))
    return Element(
        "div", f"{_STACK} rt-r-gap-2", children=(Element("div", f"{_ROW} rt-r-gap-3", children=tuple(buttons)),)
    )


def product_markup(product: ProductDetail, try_on: bool) -> tuple[Element, Element]:
    """The two columns of a product's opening view (the page's grid holds them), as the page shows
    the product before the shopper picks: the first colour chosen, with its price and picture."""
    colour = opening_colour(product)
    price = format_usd(colour.price_cents) if colour else (
        format_usd(product.price_cents) if product.price_cents is not None else "N/A"
    )
    picture = colour.picture if colour else product.picture
    image = Element("img", attrs={
        "src": picture.src or PLACEHOLDER_IMAGE, "srcset": picture.srcset, "sizes": DETAIL_SIZES,
        "alt": product.name, "loading": "eager", "fetchpriority": "high", "decoding": "async",
        "width": picture.width, "height": picture.height,
    })
    return (
        Element("div", "rt-Box sf-detail-image", children=(Element("div", "rt-Box sf-card-image", children=(image,)),)),
        Element("div", f"{_STACK} rt-r-gap-4", children=(
            Element("h1", "rt-Heading rt-r-size-8", children=(product.name,)),
            Element("p", "rt-Text rt-r-size-6 rt-r-weight-bold", children=(price,)),
            *_colours(product),
            _sizes(product),
            _buttons(product, try_on),
            Element("span", "rt-Separator rt-r-orientation-horizontal rt-r-size-4", {"data-accent-color": "gray"}),
            Element("h2", "rt-Heading rt-r-size-4", children=("Product Details",)),
            Element("p", "rt-Text sf-muted sf-pre-line", children=(product.description,)),
        )),
    )
