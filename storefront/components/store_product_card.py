"""Store-catalogue cards (/shopify): image, title and first variant price, linking to the detail.

Written once as markup (components/markup.py): React draws it in the page and the server writes it
into the first view (storefront/web/first_view.py)."""

from dataclasses import dataclass

import reflex as rx

from storefront.components.markup import Element, Value, to_component, to_html
from storefront.components.product_card import BUTTON_CLASSES, CARD_CLASSES, EAGER_CARDS, LINK_CLASSES, card_image

#: The title's link: the card's text colour, underlined on hover.
TITLE_LINK_CLASSES = "rt-Text rt-reset rt-Link rt-underline-hover sf-plain-link"


@dataclass(frozen=True)
class StoreCardFields:
    """What a store card shows: Vars when React draws it, plain values when the server writes it."""

    id: Value
    title: Value
    price: Value
    image: Value
    srcset: Value
    width: Value
    height: Value
    eager: rx.Var | bool


def store_product_href(product_id: Value) -> Value:
    return "/shopify/product/" + (product_id.to(str) if isinstance(product_id, rx.Var) else str(product_id))


def store_card_markup(card: StoreCardFields) -> Element:
    """A card of the store catalogue: the first row's images load at once with high priority."""
    href = store_product_href(card.id)
    image = card_image(card.image, card.srcset, card.title, card.eager, card.width, card.height)
    return Element("div", CARD_CLASSES, {"data-testid": "store-product-card"}, (
        Element("a", f"{LINK_CLASSES} group", {"data-accent-color": "", "href": href}, link=True, children=(
            Element("div", "rt-Box sf-card-image", children=(image,)),
        )),
        Element("div", "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-2 rx-Stack sf-card-body sf-grid", children=(
            Element("a", TITLE_LINK_CLASSES, {"data-accent-color": "", "href": href}, link=True, children=(
                Element("p", "rt-Text rt-r-weight-medium sf-card-name", {"data-testid": "store-product-title"},
                        (card.title,)),
            )),
            Element("p", "rt-Text rt-r-size-4 rt-r-weight-bold", {"data-testid": "store-product-price"}, (card.price,)),
            Element("a", f"{LINK_CLASSES} sf-card-actions", {"data-accent-color": "", "href": href}, link=True,
                    children=(
                        Element("button", f"{BUTTON_CLASSES} rt-variant-outline", {"data-accent-color": ""},
                                ("View Details",)),
                    )),
        )),
    ))


def store_product_card(card: rx.Var, index: rx.Var | int | None = None) -> rx.Component:
    """A card of the store catalogue as React draws it. `index` is its place in the grid."""
    eager = (index < EAGER_CARDS) if isinstance(index, rx.Var) else index is not None and index < EAGER_CARDS
    fields = StoreCardFields(
        id=card["id"].to(str), title=card["title"].to(str), price=card["price"].to(str), image=card["image"].to(str),
        srcset=card["srcset"].to(str), width=card["image_width"].to(int), height=card["image_height"].to(int),
        eager=eager,
    )
    return to_component(store_card_markup(fields))  # type: ignore[return-value]


def store_card_html(card: dict, index: int) -> str:
    """A store card as the server writes it (`card` as storefront.services.shopify.cards.StoreCard)."""
    fields = StoreCardFields(
        id=card["id"], title=card["title"], price=card["price"], image=card["image"], srcset=card["srcset"],
        width=card["image_width"], height=card["image_height"], eager=index < EAGER_CARDS,
    )
    return to_html(store_card_markup(fields))
