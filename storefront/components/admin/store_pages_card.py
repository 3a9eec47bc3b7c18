"""The Sync & Pricing tab's store pages card: a policy's or the contact page's text, edited as
Markdown beside its preview."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.state.admin.store_pages import PREVIEW_DEBOUNCE_MS, StorePagesAdminState as S

#: The preview's spacing, as on the page itself.
PREVIEW_STYLE = {
    "line_height": "1.6",
    "& h2": {"font_size": "1.1rem", "font_weight": "700", "margin": "1rem 0 0.4rem"},
    "& p": {"margin": "0 0 0.7rem"},
    "& ul, & ol": {"margin": "0 0 0.7rem", "padding_left": "1.3rem"},
}


def store_pages_card() -> rx.Component:
    return section_card(
        rx.vstack(
            rx.hstack(
                rx.hstack(
                    rx.icon("file-text", size=18, color=styles.MUTED),
                    rx.heading("Store pages", as_="h3", size="4"),
                    align="center",
                    spacing="2",
                ),
                rx.el.select(
                    rx.foreach(S.page_options, lambda option: rx.el.option(option["label"], value=option["value"])),
                    value=S.slug,
                    on_change=S.load,
                    aria_label="Page",
                    style={
                        "height": "32px",
                        "padding": "0 0.5rem",
                        "border": styles.BORDER,
                        "border_radius": "var(--radius-2)",
                    },
                ),
                justify="between",
                align="center",
                wrap="wrap",
                spacing="3",
                width="100%",
            ),
            rx.text(
                rx.cond(S.edited, "Your text (Markdown). ", "The default text, written from the settings (Markdown). "),
                rx.link("Open the page", href=S.page_route, is_external=True),
                size="2",
                color=styles.MUTED,
            ),
            rx.grid(
                rx.text_area(
                    value=S.markdown,
                    on_change=S.set_markdown,
                    debounce_timeout=PREVIEW_DEBOUNCE_MS,
                    rows="18",
                    aria_label="Page text (Markdown)",
                    font_family="var(--code-font-family)",
                    width="100%",
                ),
                rx.box(
                    rx.html(S.preview_html),
                    aria_label="Preview",
                    data_testid="store-page-preview",
                    border=styles.BORDER,
                    border_radius="var(--radius-3)",
                    padding="1rem",
                    max_height="28rem",
                    overflow_y="auto",
                    style=PREVIEW_STYLE,
                ),
                columns=rx.breakpoints(initial="1", md="2"),
                spacing="4",
                width="100%",
            ),
            rx.cond(S.error, rx.text(S.error, color=rx.color("red", 11), size="2")),
            rx.hstack(
                rx.button("Save page", on_click=S.save, loading=S.saving),
                rx.button(
                    "Restore default", variant="outline", on_click=S.restore_default, disabled=~S.edited | S.saving
                ),
                spacing="3",
            ),
            spacing="3",
            width="100%",
        ),
        on_mount=S.load(""),
    )
