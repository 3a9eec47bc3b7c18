"""Home: full-screen hero, the five collection tiles and the newsletter sign-up."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.components.picture import tile_image
from storefront.services.catalog.seed import HERO_IMAGE_URL, collection_tile_picture
from storefront.services.collections import COLLECTIONS, SWDNN, Collection
from storefront.state.newsletter import NewsletterState
from storefront.web.page_texts import BRAND_TAGLINE

HERO_TITLE = BRAND_TAGLINE
HERO_TAGLINE = "Bold letters, loud colours, printed on demand for every chapter."

#: WCAG AA for normal text; the tile labels sit on the page's white.
MIN_TEXT_CONTRAST = 4.5
WHITE = "#ffffff"


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of a `#rrggbb` colour."""
    channels = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG contrast ratio between two `#rrggbb` colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable_on_white(hex_colour: str) -> str:
    """The colour itself when it reads on white, else the same hue darkened until it does."""
    colour, factor = hex_colour, 1.0
    while contrast_ratio(colour, WHITE) < MIN_TEXT_CONTRAST:
        factor -= 0.02
        colour = "#" + "".join(
            f"{round(int(hex_colour.lstrip('#')[i : i + 2], 16) * factor):02x}" for i in (0, 2, 4)
        )
    return colour


def hero() -> rx.Component:
    """The hero: its picture is an image loaded first (the page's largest paint), under a shade."""
    return rx.box(
        rx.el.img(
            src=HERO_IMAGE_URL, alt="", loading="eager", decoding="async", class_name="sf-hero-image",
            custom_attrs={"fetchPriority": "high"},
        ),
        rx.box(class_name="sf-hero-shade"),
        rx.box(
            rx.heading(HERO_TITLE, size="9", color="white", weight="bold", letter_spacing="-0.02em"),
            rx.text(HERO_TAGLINE, size="5", color="rgba(255,255,255,0.9)", margin_top="1rem"),
            rx.link(
                rx.button("Shop the collection", size="4", color_scheme="gray", variant="solid", high_contrast=True),
                href=SWDNN.route,
                margin_top="2rem",
                display="inline-block",
            ),
            style=styles.content_box,
            position="relative",
            data_testid="hero-slide",
        ),
        min_height=f"calc(100vh - {styles.HEADER_HEIGHT})",
        display="flex",
        align_items="center",
        position="relative",
        overflow="hidden",
        background="rgb(60,0,10)",
        aria_roledescription="carousel",
    )


def collection_tile(collection: Collection) -> rx.Component:
    return rx.link(
        rx.box(
            tile_image(
                collection_tile_picture(collection.key),
                collection.title,
                sizes="(min-width: 1024px) 33vw, (min-width: 640px) 50vw, 100vw",
            ),
            height="260px",
            overflow="hidden",
        ),
        rx.box(
            rx.text(
                collection.label,
                font_weight="800",
                letter_spacing="0.06em",
                color=readable_on_white(collection.primary),
            ),
            rx.heading(collection.title, as_="h3", size="4", color=styles.INK),
            rx.text(collection.tagline, size="2", color=styles.MUTED),
            padding="1rem",
        ),
        href=collection.route,
        underline="none",
        class_name="group",
        display="block",
        overflow="hidden",
        border_radius="14px",
        border=styles.BORDER,
        background=rx.color("gray", 1),
        transition="box-shadow 0.2s ease",
        _hover={"box_shadow": "0 10px 30px rgba(0,0,0,0.12)"},
        data_testid="collection-tile",
    )


def collections_grid() -> rx.Component:
    return rx.box(
        rx.heading("Shop the collections", as_="h2", size="7", margin_bottom="1.5rem"),
        rx.grid(
            *[collection_tile(c) for c in COLLECTIONS],
            columns=rx.breakpoints(initial="1", sm="2", lg="3"),
            spacing="5",
        ),
        style=styles.content_box,
        padding_y="4rem",
    )


def newsletter() -> rx.Component:
    return rx.box(
        rx.vstack(
            rx.heading("Join the newsletter", as_="h2", size="6"),
            rx.text("New drops, restocks and event dates, straight to your inbox.", color=styles.MUTED),
            rx.form(
                rx.hstack(
                    rx.input(
                        type="email",
                        name="email",
                        placeholder="you@example.com",
                        required=True,
                        size="3",
                        aria_label="Email address",
                        width=["100%", "320px"],
                    ),
                    # High contrast: white on the theme's ruby 9 is 3.9:1, under WCAG AA's 4.5:1.
                    rx.button(
                        "Subscribe", type="submit", size="3", high_contrast=True, loading=NewsletterState.sending
                    ),
                    spacing="2",
                    width="100%",
                    justify="center",
                ),
                on_submit=NewsletterState.subscribe,
                prevent_default=True,
                width="100%",
            ),
            # Always on the page (empty until a submit), so screen readers announce the text.
            rx.text(
                rx.cond(NewsletterState.error != "", NewsletterState.error, NewsletterState.notice),
                color=rx.cond(NewsletterState.error != "", rx.color("red", 11), styles.MUTED),
                size="2",
                role="status",
                data_testid="newsletter-notice",
            ),
            align="center",
            spacing="3",
            text_align="center",
            max_width="560px",
            margin_x="auto",
        ),
        padding="3rem 1.5rem",
        background=styles.SURFACE,
        border_radius="16px",
        style={**styles.content_box},
    )


@public_page(route="/")
def home() -> rx.Component:
    return rx.box(hero(), collections_grid(), newsletter())
