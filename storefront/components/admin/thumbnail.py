"""A product's small picture beside its name in the back office's lists."""

import reflex as rx

#: A fixed square: the row keeps its size before the picture arrives (no layout shift).
THUMBNAIL_PX = 40
_SQUARE = {
    "width": f"{THUMBNAIL_PX}px",
    "height": f"{THUMBNAIL_PX}px",
    "flex_shrink": "0",
    "border_radius": "6px",
    "background": rx.color("gray", 3),
}


def product_thumbnail(src: rx.Var) -> rx.Component:
    """The picture at `src` (the smallest rendition, services/admin/product_rows.thumbnail_url),
    cropped to the square and loaded lazily; an empty neutral box when `src` is "". Decorative
    (alt=""): the product's name is right beside it."""
    return rx.cond(
        src != "",
        rx.el.img(
            src=src,
            alt="",
            loading="lazy",
            decoding="async",
            custom_attrs={"width": THUMBNAIL_PX, "height": THUMBNAIL_PX, "data-testid": "product-thumbnail"},
            style={**_SQUARE, "object_fit": "cover", "display": "block"},
        ),
        rx.box(style=_SQUARE, data_testid="product-thumbnail-empty"),
    )
