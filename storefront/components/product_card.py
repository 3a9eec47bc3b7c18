"""Product cards, their loading skeletons and the grid they sit in."""

from dataclasses import dataclass

import reflex as rx
from reflex.experimental.client_state import ClientStateVar
from reflex.vars.base import Var

from storefront.components import styles
from storefront.components.markup import Element, Node, Raw, Slot, Value, pick, to_component, to_html
from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE
from storefront.state.cart import CartState
from storefront.state.catalog import FIRST_VIEW_SHOWN
from storefront.web.html_first import REPLAY_ATTRIBUTE

# Swaps a broken image for the placeholder. Its srcset and sizes go too: while an <img> has a
# srcset the browser keeps choosing from it and never shows the new src. Stops at the placeholder,
# should that fail as well.
_IMAGE_FALLBACK = rx.Var(
    _js_expr=(
        "(e) => { const img = e.target; "
        f"if (img.getAttribute('src') === '{PLACEHOLDER_IMAGE}') return; "
        "img.removeAttribute('srcset'); img.removeAttribute('sizes'); "
        f"img.src = '{PLACEHOLDER_IMAGE}'; }}"
    )
)


#: The width a card's image is drawn at: the whole column on phones, half or a quarter above.
CARD_SIZES = "(min-width: 1024px) 300px, (min-width: 768px) 50vw, 100vw"
#: The product page's image: about half the content width on desktops, the full width on phones.
DETAIL_SIZES = "(min-width: 1024px) 600px, 100vw"
#: Cards in the first row of a grid (four on large screens) load at once, with high priority.
EAGER_CARDS = 4


def product_image(
    src: rx.Var | str,
    alt: rx.Var | str,
    height: str = "260px",
    *,
    srcset: rx.Var | str = "",
    sizes: str = CARD_SIZES,
    eager: rx.Var | bool = False,
    size: tuple[rx.Var | int, rx.Var | int] = (800, 800),
) -> rx.Component:
    """A product image from its renditions (the browser picks the width it needs); the placeholder
    when it has none or it fails to load. `eager` marks an image above the fold."""
    if isinstance(eager, rx.Var):
        loading: rx.Var | str = rx.cond(eager, "eager", "lazy")
        priority: rx.Var | str = rx.cond(eager, "high", "auto")
    else:
        loading, priority = ("eager", "high") if eager else ("lazy", "auto")
    shown = rx.cond(src == "", PLACEHOLDER_IMAGE, src) if isinstance(src, rx.Var) else src or PLACEHOLDER_IMAGE
    return rx.box(
        rx.el.img(
            src=shown,
            src_set=srcset,
            sizes=sizes,
            alt=alt,
            loading=loading,
            decoding="async",
            custom_attrs={"onError": _IMAGE_FALLBACK, "fetchPriority": priority, "width": size[0], "height": size[1]},
            style=styles.tile_image,
        ),
        height=height,
        overflow="hidden",
        background=styles.SURFACE,
    )


def quick_add_key(product_id: Value) -> Value:
    """The `data-replay` key of a card's Quick Add: a tap on the server's button before the app is
    ready is replayed on React's (storefront/web/html_first.py)."""
    return "quick-add:" + product_id


def quick_add_button(product_id: rx.Var, attrs: dict[str, str] | None = None, **props) -> rx.Component:
    """Quick Add (its width and wrapping come from the card's `sf-card-actions`)."""
    custom_attrs = {REPLAY_ATTRIBUTE: quick_add_key(product_id), "type": "button", **(attrs or {})}
    return rx.button(rx.icon("plus", size=16), "Quick Add", custom_attrs=custom_attrs, **props)


#: The product whose Quick Add menu is mounted ('' for none). A card draws a plain button until its
#: first tap: a listing mounts no menu machinery per card (24 menu roots, their contexts and
#: listeners, at every start, search and Load More), only the one being used.
QUICK_ADD_MENU = ClientStateVar.create("quick_add_menu", default="", global_ref=True)


def colour_submenu(product_id: rx.Var, colour: rx.Var) -> rx.Component:
    """One colour of the Quick Add menu, opening onto the sizes it comes in."""
    name = colour["name"].to(str)
    return rx.dropdown_menu.sub(
        rx.dropdown_menu.sub_trigger(name),
        rx.dropdown_menu.sub_content(
            rx.foreach(
                colour["sizes"].to(list[str]),
                lambda size: rx.dropdown_menu.item(size, on_select=CartState.add(product_id, size, "", name)),
            ),
        ),
    )


def quick_add_menu(product_id: rx.Var, *items: rx.Component) -> rx.Component:
    """Quick Add opening a menu of `items`, mounted on the first tap (pointer or keyboard) and then
    open at once. The menu is not modal: a modal menu hides every other element of the page from
    assistive technology and locks its scrolling as it opens, which cost a phone about 100 ms per tap
    on a listing of cards."""
    arm = QUICK_ADD_MENU.set_value(product_id)
    return rx.cond(
        QUICK_ADD_MENU.value == product_id,
        rx.dropdown_menu.root(
            rx.dropdown_menu.trigger(quick_add_button(product_id)),
            rx.dropdown_menu.content(*items),
            modal=False,
            default_open=True,
        ),
        quick_add_button(
            product_id,
            {"aria-haspopup": "menu", "aria-expanded": "false"},
            on_mouse_down=arm,
            on_click=arm,
        ),
    )


def quick_add_control(product: rx.Var) -> rx.Component:
    """Quick Add: a colour menu (each colour opening onto its sizes) when the product comes in
    several colours, a size menu when it comes in several sizes, else one button."""
    product_id = product["id"].to(str)
    return rx.cond(
        product["colors"].length() > 1,
        quick_add_menu(product_id, rx.foreach(product["colors"], lambda colour: colour_submenu(product_id, colour))),
        rx.cond(
            product["sizes"].length() > 1,
            quick_add_menu(
                product_id,
                rx.foreach(
                    product["sizes"],
                    lambda size: rx.dropdown_menu.item(size, on_select=CartState.add(product_id, size, "")),
                ),
            ),
            quick_add_button(product_id, on_click=CartState.quick_add(product_id)),
        ),
    )


#: A card's classes: Radix Themes' own (what rx.card, rx.text, rx.grid and rx.button render) and the
#: store's from assets/styles.css in place of per-component generated ones (components/markup.py).
CARD_CLASSES = "rt-reset rt-BaseCard rt-Card rt-r-size-2 rt-variant-surface sf-card"
LINK_CLASSES = "rt-Text rt-reset rt-Link rt-underline-auto sf-link"
BUTTON_CLASSES = "rt-reset rt-BaseButton rt-r-size-2 rt-Button"
#: The grid the cards sit in: 4 columns large, 2 medium, 1 small.
GRID_CLASSES = "rt-Grid rt-r-gtc-1 sm:rt-r-gtc-2 lg:rt-r-gtc-4 rt-r-gap-5 sf-grid"
#: lucide's "plus" at 16 px, as lucide-react draws it.
PLUS_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24" fill="none" '
    'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" '
    'class="lucide lucide-plus" aria-hidden="true"><path d="M5 12h14"></path><path d="M12 5v14"></path></svg>'
)


@dataclass(frozen=True)
class CardFields:
    """What a card shows: Vars when React draws it, plain values when the server writes it."""

    id: Value
    name: Value
    price: Value
    image: Value
    srcset: Value
    width: Value
    height: Value
    eager: rx.Var | bool


def or_placeholder(image: Value) -> Value:
    """The image's address, or the placeholder's when it has none."""
    return rx.cond(image == "", PLACEHOLDER_IMAGE, image) if isinstance(image, rx.Var) else image or PLACEHOLDER_IMAGE


def card_image(image: Value, srcset: Value, alt: Value, eager: rx.Var | bool, width: Value, height: Value) -> Element:
    """A listing card's picture (ours or the store catalogue's): the first row's load at once, at high
    priority; a broken one gives way to the placeholder."""
    return Element(
        "img",
        attrs={
            "src": or_placeholder(image),
            "srcset": srcset,
            "sizes": CARD_SIZES,
            "alt": alt,
            "loading": pick(eager, "eager", "lazy"),
            "fetchpriority": pick(eager, "high", "auto"),
            "decoding": "async",
            "width": width,
            "height": height,
        },
        react_attrs={"onError": _IMAGE_FALLBACK},
    )


def card_markup(card: CardFields, quick_add: Node | None) -> Element:
    """A listing card: image, two-line title, price or N/A, View Details and (in a Slot) Quick Add."""
    href = "/product/" + card.id
    image = card_image(card.image, card.srcset, card.name, card.eager, card.width, card.height)
    view_details = Element(
        "a",
        LINK_CLASSES,
        {"data-accent-color": "", "href": href},
        link=True,
        children=(
            Element("button", f"{BUTTON_CLASSES} rt-variant-outline", {"data-accent-color": ""}, ("View Details",)),
        ),
    )
    columns = "rt-r-gtc-2 sm:rt-r-gtc-1 xl:rt-r-gtc-2" if quick_add is not None else "rt-r-gtc-1"
    return Element(
        "div",
        CARD_CLASSES,
        {"data-testid": "product-card"},
        (
            Element(
                "a",
                f"{LINK_CLASSES} group",
                {"data-accent-color": "", "href": href},
                link=True,
                children=(Element("div", "rt-Box sf-card-image", children=(image,)),),
            ),
            Element(
                "div",
                "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-2 rx-Stack sf-card-body",
                children=(
                    Element(
                        "p", "rt-Text rt-r-weight-medium sf-card-name", {"data-testid": "product-name"}, (card.name,)
                    ),
                    Element(
                        "p", "rt-Text rt-r-size-4 rt-r-weight-bold", {"data-testid": "product-price"}, (card.price,)
                    ),
                    Element(
                        "div",
                        f"rt-Grid {columns} rt-r-gap-2 sf-card-actions",
                        children=(
                            view_details,
                            *([quick_add] if quick_add is not None else []),
                        ),
                    ),
                ),
            ),
        ),
    )


def quick_add_markup(product_id: str) -> Element:
    """What the server writes for the Quick Add control (React draws a menu or a button, looking the
    same); a tap on it before React's is there is replayed on React's."""
    return Element(
        "button",
        f"{BUTTON_CLASSES} rt-variant-solid",
        {"data-accent-color": "", "type": "button", REPLAY_ATTRIBUTE: quick_add_key(product_id)},
        (Raw(PLUS_ICON), "Quick Add"),
    )


def product_card(product: rx.Var, quick_add: bool = True, index: rx.Var | int | None = None) -> rx.Component:
    """A listing card as React draws it. `index` is the card's place in its grid (the first row's
    images load eagerly)."""
    fields = CardFields(
        id=product["id"].to(str),
        name=product["name"].to(str),
        price=product["price"].to(str),
        image=product["image"].to(str),
        srcset=product["srcset"].to(str),
        width=product["image_width"].to(int),
        height=product["image_height"].to(int),
        eager=(index < EAGER_CARDS) if isinstance(index, rx.Var) else index is not None and index < EAGER_CARDS,
    )
    control = Slot(quick_add_control(product), Raw("")) if quick_add else None  # React's tree only
    return to_component(card_markup(fields, control))  # type: ignore[return-value]


def card_html(card: dict, index: int, quick_add: bool = True) -> str:
    """A listing card as the server writes it (`card` as storefront.state.catalog.ProductCard)."""
    fields = CardFields(
        id=card["id"],
        name=card["name"],
        price=card["price"],
        image=card["image"],
        srcset=card["srcset"],
        width=card["image_width"],
        height=card["image_height"],
        eager=index < EAGER_CARDS,
    )
    return to_html(card_markup(fields, quick_add_markup(card["id"]) if quick_add else None))


def skeleton_card() -> rx.Component:
    return rx.card(
        rx.skeleton(rx.box(height="260px")),
        rx.vstack(
            rx.skeleton(rx.text("Loading product name")),
            rx.skeleton(rx.text("$00.00")),
            rx.skeleton(rx.box(height="2rem", width="100%")),
            spacing="2",
            padding_top="0.75rem",
        ),
        data_testid="skeleton-card",
    )


def card_grid(*children: rx.Component, **props) -> rx.Component:
    """The product grid: 4 columns large, 2 medium, 1 small."""
    return rx.el.div(*children, class_name=GRID_CLASSES, **props)


def skeleton_grid(count: int) -> rx.Component:
    return card_grid(*[skeleton_card() for _ in range(count)])


def first_view_island(name: str, classes: str = GRID_CLASSES) -> rx.Component:
    """Where the server writes a page's first view into the HTML it sends (storefront/web/first_view.py).
    React keeps what the server wrote while it hydrates (inner HTML is opaque to it); the element
    stays empty when the page is reached inside the app."""
    filled = Var(_js_expr=f"(document.querySelector('[data-first-view=\"{name}\"]')?.childElementCount ?? 0) > 0")
    props = {
        "class_name": classes,
        "custom_attrs": {"data-first-view": name},
        "on_mount": FIRST_VIEW_SHOWN.set_value(filled),
    }
    # Raw HTML of an empty string: React writes nothing there, only the server does (escaped markup).
    return rx.html("", **props)


def product_results(
    *,
    loading: rx.Var,
    failed: rx.Var | bool,
    shown: rx.Var,
    skeletons: int,
    failed_view: rx.Component,
    empty_view: rx.Component,
    results: rx.Component,
    first_view: str | None = None,
    matches: rx.Var | None = None,
) -> rx.Component:
    """The failure, else the results while cards are `shown` (they stay put while a new search
    loads), else the first view the server wrote (or skeletons) while the first results load, else
    the empty view. Judged by the cards on screen, not a count from the server, so no frame shows
    neither the first view nor the cards. `matches`: the list has matches (cards the browser holds
    arrive by their own event, apart from the state saying so): wait for them, never say empty."""
    fallback = card_grid(*[skeleton_card() for _ in range(skeletons)], custom_attrs={"data-first-view-fallback": ""})
    waiting = rx.fragment(first_view_island(first_view), fallback) if first_view else skeleton_grid(skeletons)
    still_waiting = loading if matches is None else loading | matches
    return rx.cond(failed, failed_view, rx.cond(shown, results, rx.cond(still_waiting, waiting, empty_view)))


def detail_skeleton(testid: str) -> rx.Component:
    """A product page while its product loads: the image and the text column."""
    return rx.grid(
        rx.skeleton(rx.box(height="520px")),
        rx.vstack(
            *[rx.skeleton(rx.box(height=h, width="100%")) for h in ("3rem", "2rem", "6rem", "3rem")], spacing="4"
        ),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="8",
        width="100%",
        data_testid=testid,
    )
