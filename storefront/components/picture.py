"""A prepared picture (services/media/images.py) as a lazily loaded <img> with its renditions."""

import reflex as rx

from storefront.components import styles
from storefront.services.media.images import Picture


def tile_image(picture: Picture, alt: str, sizes: str) -> rx.Component:
    """A fixed picture below the fold: the browser picks the rendition for `sizes`."""
    return rx.el.img(
        src=picture.src,
        src_set=picture.srcset,
        sizes=sizes,
        alt=alt,
        loading="lazy",
        decoding="async",
        custom_attrs={"width": picture.width, "height": picture.height},
        style=styles.tile_image,
    )
