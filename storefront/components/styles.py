"""Design tokens shared by every page: colours, widths and a few reusable style dicts."""

import reflex as rx

BRAND = "#9b111e"
INK = rx.color("gray", 12)
MUTED = rx.color("gray", 11)
SURFACE = rx.color("gray", 2)
BORDER = f"1px solid {rx.color('gray', 5)}"

CONTENT_WIDTH = "1200px"
HEADER_HEIGHT = "4.5rem"
# The visible screen: on a phone 100vh also counts the space under the browser's toolbars, so a
# page that fills 100vh scrolls by their height.
SCREEN_HEIGHT = "100dvh"

content_box = {
    "width": "100%",
    "max_width": CONTENT_WIDTH,
    "margin_x": "auto",
    "padding_x": ["1rem", "1.5rem", "2rem"],
}

tile_image = {
    "width": "100%",
    "height": "100%",
    "object_fit": "cover",
    "transition": "transform 0.3s ease",
    "_group_hover": {"transform": "scale(1.04)"},
}

# Sanitised HTML from the store platform (a product's description). The base reset takes the
# markers and spacing off lists, paragraphs and tables; a description needs them back.
rich_text = {
    "& p, & ul, & ol, & table, & blockquote": {"margin": "0 0 0.75rem"},
    "& ul, & ol": {"padding_left": "1.5rem"},
    "& ul": {"list_style_type": "disc"},
    "& ol": {"list_style_type": "decimal"},
    "& ul ul": {"list_style_type": "circle"},
    "& li": {"display": "list-item", "margin_bottom": "0.25rem"},
    "& h2, & h3, & h4, & h5, & h6": {"font_weight": "600", "margin": "1rem 0 0.5rem"},
    "& table": {"border_collapse": "collapse"},
    "& th, & td": {"padding": "0.375rem 0.75rem", "border": BORDER, "text_align": "left"},
    "& blockquote": {"padding_left": "1rem", "border_left": f"3px solid {rx.color('gray', 6)}", "color": MUTED},
}

nav_link = {
    "color": INK,
    "font_weight": "500",
    "font_size": "0.95rem",
    "padding": "0.5rem 0.75rem",
    "border_radius": "6px",
    "text_decoration": "none",
    "_hover": {"background": rx.color("gray", 3), "text_decoration": "none"},
}

# A round colour swatch; the chosen one gets SWATCH_RING (a gap, then an accent ring).
SWATCH_RING = f"0 0 0 2px var(--color-background), 0 0 0 4px {rx.color('accent', 9)}"
swatch = {
    "width": "2rem",
    "height": "2rem",
    "padding": "0",
    "border_radius": "50%",
    "border": f"1px solid {rx.color('gray', 7)}",
    "cursor": "pointer",
    "&:focus-visible": {"outline": f"2px solid {rx.color('accent', 8)}", "outline_offset": "4px"},
}

base_style = {
    "font_family": "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
}
