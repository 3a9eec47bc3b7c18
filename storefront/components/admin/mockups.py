"""A product's mockups (one picture per colour) as a row of framed thumbnails."""

import reflex as rx

from storefront.components import styles


def mockup_gallery(sources: rx.Var, size: str, testid: str) -> rx.Component:
    """The mockups at `sources`, each `size` square, tagged `testid` for the browser tests."""
    return rx.flex(
        rx.foreach(
            sources,
            lambda src: rx.image(
                src=src,
                alt="Mockup",
                width=size,
                height=size,
                border_radius="8px",
                border=styles.BORDER,
                data_testid=testid,
            ),
        ),
        spacing="3",
        wrap="wrap",
    )
