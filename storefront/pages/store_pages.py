"""/policies/privacy, /policies/terms, /policies/refunds, /policies/shipping and /contact: the shop's
own texts (staff edit them in the back office), and the contact form."""

import reflex as rx

from storefront.components import styles
from storefront.components.layout import public_page
from storefront.components.product_card import first_view_island
from storefront.services.platform.store_routes import CONTACT_PAGE, POLICIES, StorePageRoute
from storefront.state.store_pages import ContactState, StorePageState

#: The `data-first-view` of a store page's text (web/first_view.py writes it into the served HTML).
STORE_PAGE_VIEW = "store-page"
PAGE_WIDTH = "760px"
#: The rendered Markdown's spacing (its elements carry no classes of their own).
PROSE = {
    "line_height": "1.65",
    "& h2": {"font_size": "1.25rem", "font_weight": "700", "margin": "1.75rem 0 0.5rem"},
    "& h3": {"font_size": "1.1rem", "font_weight": "700", "margin": "1.25rem 0 0.5rem"},
    "& p": {"margin": "0 0 0.9rem"},
    "& ul, & ol": {"margin": "0 0 0.9rem", "padding_left": "1.4rem"},
    "& li": {"margin": "0.25rem 0"},
    "& a": {"color": rx.color("accent", 11), "text_decoration": "underline"},
    "& table": {"border_collapse": "collapse", "margin": "0 0 0.9rem"},
    "& th, & td": {"border": styles.BORDER, "padding": "0.35rem 0.6rem"},
}


def page_text(route: str) -> rx.Component:
    """The page's text: as the server wrote it into the first HTML, then as the state holds it."""
    return rx.box(
        rx.cond(
            StorePageState.route == route,
            rx.html(StorePageState.html, data_testid="store-page-text"),
            first_view_island(STORE_PAGE_VIEW, classes=""),
        ),
        style=PROSE,
        width="100%",
    )


def page_frame(page: StorePageRoute, *children: rx.Component) -> rx.Component:
    return rx.vstack(
        rx.heading(page.title, as_="h1", size="8"),
        page_text(page.route),
        *children,
        spacing="4",
        align="start",
        max_width=PAGE_WIDTH,
        margin_x="auto",
        padding_y="3rem",
        style=styles.content_box,
    )


def _policy_page(page: StorePageRoute) -> None:
    @public_page(route=page.route, on_load=StorePageState.load)
    def policy() -> rx.Component:
        return page_frame(page)

    policy.__name__ = f"policy_{page.slug}"


for _page in POLICIES:
    _policy_page(_page)


def field_error(key: str) -> rx.Component:
    message = ContactState.field_errors[key]
    return rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1", data_testid=f"contact-error-{key}"))


def contact_field(key: str, label: str, control: rx.Component) -> rx.Component:
    return rx.vstack(
        rx.el.label(
            rx.text(label, size="2", weight="medium"),
            control,
            style={"display": "grid", "gap": "0.25rem", "width": "100%"},
        ),
        field_error(key),
        spacing="1",
        width="100%",
    )


def contact_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.grid(
                contact_field("name", "Your name", rx.input(name="name", auto_complete="name", size="3")),
                contact_field(
                    "email", "Your email", rx.input(name="email", type="email", auto_complete="email", size="3")
                ),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="3",
                width="100%",
            ),
            contact_field(
                "order", "Order number (optional)", rx.input(name="order", placeholder="SF-000123", size="3")
            ),
            contact_field("message", "Message", rx.text_area(name="message", rows="6", size="3")),
            rx.cond(
                ContactState.sent,
                rx.callout(
                    ContactState.sent,
                    icon="circle-check",
                    color_scheme="green",
                    role="status",
                    data_testid="contact-sent",
                ),
            ),
            rx.cond(
                ContactState.error,
                rx.callout(
                    ContactState.error,
                    icon="triangle-alert",
                    color_scheme="red",
                    role="alert",
                    data_testid="contact-refused",
                ),
            ),
            rx.button(
                rx.cond(ContactState.sending, "Sending...", "Send message"),
                type="submit",
                size="3",
                disabled=ContactState.sending,
            ),
            spacing="3",
            width="100%",
            align="start",
        ),
        on_submit=ContactState.send,
        reset_on_submit=False,
        no_validate=True,
        width="100%",
    )


@public_page(route=CONTACT_PAGE.route, on_load=StorePageState.load)
def contact() -> rx.Component:
    return page_frame(CONTACT_PAGE, contact_form())
