"""Product cards, their loading skeletons and the grid they sit in."""

import reflex as rx

from storefront.components import styles
from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE
from storefront.state.cart import CartState

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


def quick_add_button(**props) -> rx.Component:
    return rx.button(rx.icon("plus", size=16), "Quick Add", width="100%", white_space="nowrap", **props)


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


def quick_add_control(product: rx.Var) -> rx.Component:
    """Quick Add: a colour menu (each colour opening onto its sizes) when the product comes in
    several colours, a size menu when it comes in several sizes, else one button."""
    product_id = product["id"].to(str)
    return rx.cond(
        product["colors"].length() > 1,
        rx.dropdown_menu.root(
            rx.dropdown_menu.trigger(quick_add_button()),
            rx.dropdown_menu.content(rx.foreach(product["colors"], lambda colour: colour_submenu(product_id, colour))),
        ),
        rx.cond(
            product["sizes"].length() > 1,
            rx.dropdown_menu.root(
                rx.dropdown_menu.trigger(quick_add_button()),
                rx.dropdown_menu.content(
                    rx.foreach(
                        product["sizes"],
                        lambda size: rx.dropdown_menu.item(size, on_select=CartState.add(product_id, size, "")),
                    ),
                ),
            ),
            quick_add_button(on_click=CartState.quick_add(product_id)),
        ),
    )


def product_card(product: rx.Var, quick_add: bool = True, index: rx.Var | int | None = None) -> rx.Component:
    """A listing card: image, two-line title, price or N/A, View Details and Quick Add. `index`
    is the card's place in its grid (the first row's images load eagerly)."""
    image = product_image(
        product["image"],
        product["name"],
        srcset=product["srcset"].to(str),
        eager=(index < EAGER_CARDS) if isinstance(index, rx.Var) else index is not None and index < EAGER_CARDS,
        size=(product["image_width"].to(int), product["image_height"].to(int)),
    )
    return rx.card(
        rx.link(image, href="/product/" + product["id"].to(str), class_name="group"),
        rx.vstack(
            rx.text(
                product["name"],
                weight="medium",
                style={"display": "-webkit-box", "-webkit-line-clamp": "2", "-webkit-box-orient": "vertical", "overflow": "hidden"},
                min_height="2.6em",
                data_testid="product-name",
            ),
            rx.text(product["price"], weight="bold", size="4", data_testid="product-price"),
            rx.grid(
                rx.link(
                    rx.button("View Details", variant="outline", width="100%", white_space="nowrap"),
                    href="/product/" + product["id"].to(str),
                ),
                *([quick_add_control(product)] if quick_add else []),
                columns=rx.breakpoints(initial="2", sm="1", xl="2") if quick_add else "1",
                spacing="2",
                width="100%",
            ),
            spacing="2",
            padding_top="0.75rem",
        ),
        data_testid="product-card",
        size="2",
    )


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
    return rx.grid(*children, columns=rx.breakpoints(initial="1", sm="2", lg="4"), spacing="5", width="100%", **props)


def skeleton_grid(count: int) -> rx.Component:
    return card_grid(*[skeleton_card() for _ in range(count)])


def product_results(
    *,
    loading: rx.Var,
    failed: rx.Var | bool,
    products: rx.Var | None = None,
    count: rx.Var | None = None,
    skeletons: int,
    failed_view: rx.Component,
    empty_view: rx.Component,
    results: rx.Component,
) -> rx.Component:
    """Skeletons while the first results load, else the failure, else the empty view, else the
    results (results already shown stay put while a new search loads). Empty is judged by `count`
    (cards shown) when given, else by the length of `products`."""
    empty = (count == 0) if count is not None else products.length() == 0  # type: ignore[union-attr]
    return rx.cond(
        loading & empty,
        skeleton_grid(skeletons),
        rx.cond(failed, failed_view, rx.cond(empty, empty_view, results)),
    )


def detail_skeleton(testid: str) -> rx.Component:
    """A product page while its product loads: the image and the text column."""
    return rx.grid(
        rx.skeleton(rx.box(height="520px")),
        rx.vstack(*[rx.skeleton(rx.box(height=h, width="100%")) for h in ("3rem", "2rem", "6rem", "3rem")], spacing="4"),
        columns=rx.breakpoints(initial="1", md="2"),
        spacing="8",
        width="100%",
        data_testid=testid,
    )
