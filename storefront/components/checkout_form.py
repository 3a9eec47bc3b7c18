"""The 'Complete Your Order' dialog with its four sections."""

import reflex as rx

from storefront.components import styles
from storefront.components.discount_field import discount_field, discount_row, shipping_amount, total_amount
from storefront.services.orders.ship_to import US, all_countries, us_states
from storefront.services.platform.store_routes import BY_SLUG, PRIVACY, REFUNDS, SHIPPING, TERMS, StorePageRoute
from storefront.state.cart import CartState
from storefront.state.checkout import PAYMENT_ELEMENT_ID, CheckoutState as S
from storefront.state.discount import DiscountState

ADDRESS_FIELDS: list[tuple[str, str, str]] = [
    ("first_name", "First name", "given-name"),
    ("last_name", "Last name", "family-name"),
    ("address1", "Address", "address-line1"),
    ("address2", "Apartment, suite (optional)", "address-line2"),
    ("city", "City", "address-level2"),
    ("state_code", "State", "address-level1"),
    ("zip", "ZIP code", "postal-code"),
    ("country_code", "Country", "country"),
]


FORM_ID = "checkout-form"
# A neutral pattern: a working test card as the hint would invite paying with it by mistake.
CARD_NUMBER_PLACEHOLDER = "1234 1234 1234 1234"
# The form's named fields as they stand, read when the dialog opens or closes (while it is still
# on the page). The card inputs have no name, so they are never part of it.
_TYPED_FIELDS = rx.Var(
    _js_expr=(
        f"(() => {{ const form = document.getElementById('{FORM_ID}'); "
        "return form ? Object.fromEntries(new FormData(form)) : {}; })()"
    )
)


# Styled like the theme's size-2 text fields, since these are plain inputs.
CARD_INPUT_STYLE = {
    "height": "32px",
    "width": "100%",
    "padding": "0 0.5rem",
    "font_size": "14px",
    "border": f"1px solid {rx.color('gray', 7)}",
    "border_radius": "var(--radius-2)",
    "background": rx.color("gray", 1),
    "outline": "none",
    "&::placeholder": {"color": rx.color("gray", 9)},
    "&:focus": {"border_color": rx.color("accent", 8), "box_shadow": f"0 0 0 1px {rx.color('accent', 8)}"},
}


def field_error(key: str) -> rx.Component:
    message = S.field_errors[key]
    return rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1", data_testid=f"error-{key}"))


def labelled(label: str, control: rx.Component, key: str) -> rx.Component:
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


def text_field(
    key: str, label: str, *, type_: str = "text", autocomplete: str = "", first_focus: bool = False
) -> rx.Component:
    """A form field whose value travels with the form (never used for card data); it starts with
    what was typed in it before the dialog last closed. The `first_focus` field takes the focus when
    the dialog opens (Radix's dialog keeps a focus already inside it)."""
    control = rx.input(
        name=key, type=type_, auto_complete=autocomplete, default_value=S.form_values[key].to(str), size="2",
        auto_focus=first_focus,
    )
    return labelled(label, control, key)


def card_field(
    key: str, label: str, *, placeholder: str = "", autocomplete: str = "", inputmode: str = "text", maxlength: int = 64
) -> rx.Component:
    """An uncontrolled card input without name or id: its value is never part of the form data."""
    return labelled(
        label,
        rx.el.input(
            data_card=key,
            placeholder=placeholder,
            auto_complete=autocomplete,
            input_mode=inputmode,
            max_length=maxlength,
            style=CARD_INPUT_STYLE,
        ),
        key,
    )


def select_field(
    key: str, label: str, options: rx.Component, *, autocomplete: str, on_change: rx.EventHandler | None = None
) -> rx.Component:
    """A native select whose value travels with the form (names shown, codes sent)."""
    # Labelled by id, not by wrapping: a wrapping label's name would include the chosen option's text.
    control_id = "checkout-" + key.replace(".", "-")
    control = rx.el.select(
        options,
        id=control_id,
        name=key,
        default_value=S.form_values[key].to(str),
        auto_complete=autocomplete,
        on_change=on_change,
        style=CARD_INPUT_STYLE,
    )
    return rx.vstack(
        rx.el.label(rx.text(label, size="2", weight="medium"), html_for=control_id),
        control,
        field_error(key),
        spacing="1",
        width="100%",
    )


def _options(pairs: tuple[tuple[str, str], ...]) -> list[rx.Component]:
    return [rx.el.option(name, value=code) for code, name in pairs]


#: The state select's options: a blank first one, so a state must be picked ('State is required').
_STATE_OPTIONS = [rx.el.option("Select a state", value=""), *_options(us_states())]


def country_field(prefix: str, label: str, autocomplete: str) -> rx.Component:
    """The shipping address picks one of the ship-to countries; a billing address any country."""
    key = f"{prefix}.country_code"
    if prefix == "shippingAddress":
        options: rx.Component = rx.foreach(S.country_options, lambda o: rx.el.option(o["label"], value=o["value"]))
    else:
        options = rx.fragment(*_options(all_countries()))
    return select_field(
        key, label, options, autocomplete=autocomplete, on_change=lambda value: S.pick_country(prefix, value)
    )


def state_field(prefix: str, label: str, autocomplete: str) -> rx.Component:
    """A US address picks its state; any other country's region is typed."""
    key = f"{prefix}.state_code"
    return rx.cond(
        S.address_countries[prefix] == US,
        select_field(key, label, rx.fragment(*_STATE_OPTIONS), autocomplete=autocomplete),
        text_field(key, label, autocomplete=autocomplete),
    )


def address_field(prefix: str, name: str, label: str, auto: str) -> rx.Component:
    autocomplete = f"{'billing' if prefix == 'billingAddress' else 'shipping'} {auto}"
    if name == "country_code":
        return country_field(prefix, label, autocomplete)
    if name == "state_code":
        return state_field(prefix, label, autocomplete)
    return text_field(f"{prefix}.{name}", label, autocomplete=autocomplete)


def address_fields(prefix: str) -> rx.Component:
    return rx.grid(
        *[address_field(prefix, name, label, auto) for name, label, auto in ADDRESS_FIELDS],
        columns=rx.breakpoints(initial="1", sm="2"),
        spacing="3",
        width="100%",
    )


def section(title: str, *children: rx.Component) -> rx.Component:
    return rx.vstack(rx.heading(title, as_="h3", size="4"), *children, spacing="3", width="100%")


def summary() -> rx.Component:
    return section(
        "Order Summary",
        rx.foreach(
            CartState.rows,
            lambda row: rx.hstack(
                rx.text(row["name"], " (", row["options_short"], ") × ", row["quantity"]),
                rx.text(row["line_total"]),
                justify="between",
                width="100%",
            ),
        ),
        rx.hstack(rx.text("Subtotal"), rx.text(CartState.subtotal), justify="between", width="100%"),
        discount_row(
            rx.hstack(rx.text("Discount"), rx.text(DiscountState.discount), justify="between", width="100%")
        ),
        rx.hstack(rx.text("Shipping"), rx.text(shipping_amount()), justify="between", width="100%"),
        rx.hstack(
            rx.text("Total", weight="bold"), rx.text(total_amount(), weight="bold"), justify="between", width="100%"
        ),
    )


def test_card_fields() -> rx.Component:
    """The built-in test gateway's card fields (their values go from the page to the payment API only)."""
    return rx.vstack(
        card_field(
            "cardNumber",
            "Card number",
            placeholder=CARD_NUMBER_PLACEHOLDER,
            autocomplete="cc-number",
            inputmode="numeric",
            maxlength=23,
        ),
        rx.grid(
            card_field("expiryDate", "Expiry date", placeholder="MM/YY", autocomplete="cc-exp", maxlength=7),
            card_field("cvv", "CVV", placeholder="123", autocomplete="cc-csc", inputmode="numeric", maxlength=4),
            columns="2",
            spacing="3",
            width="100%",
        ),
        card_field("cardholderName", "Cardholder name", autocomplete="cc-name"),
        spacing="3",
        width="100%",
    )


def stripe_payment_element() -> rx.Component:
    """Where Stripe's Payment Element is mounted: the card is typed into Stripe's own fields."""
    return rx.box(id=PAYMENT_ELEMENT_ID, min_height="120px", width="100%", data_testid="payment-element")


def _policy_link(page: StorePageRoute) -> rx.Component:
    # A new tab: following it must not close the dialog halfway through the order.
    return rx.link(page.title, href=page.route, is_external=True, underline="always")


def agreement() -> rx.Component:
    """The terms the order is placed under, each a link."""
    privacy, terms, refunds, shipping = (BY_SLUG[slug] for slug in (PRIVACY, TERMS, REFUNDS, SHIPPING))
    return rx.text(
        "By placing your order you agree to our ", _policy_link(terms), ", ", _policy_link(privacy), ", ",
        _policy_link(refunds), " and ", _policy_link(shipping), ".",
        size="1",
        color=styles.MUTED,
        data_testid="checkout-agreement",
    )


def checkout_form() -> rx.Component:
    # The summary and the discount field stand above the form: Enter in the field applies the code
    # and never submits the order.
    return rx.vstack(
        summary(),
        discount_field("dialog"),
        rx.divider(),
        order_form(),
        spacing="4",
        width="100%",
    )


def order_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            section(
                "Customer Information",
                # Email, not the discount code above it, is where a buyer starts typing.
                text_field("customerEmail", "Email", type_="email", autocomplete="email", first_focus=True),
                text_field("customerName", "Full name", autocomplete="name"),
                text_field("customerPhone", "Phone (optional)", type_="tel", autocomplete="tel"),
            ),
            rx.divider(),
            section("Shipping Address", address_fields("shippingAddress")),
            rx.el.label(
                rx.checkbox(checked=S.same_as_shipping, on_change=S.set_same_as_shipping),
                rx.text("Billing address same as shipping", size="2"),
                style={"display": "flex", "gap": "0.5rem", "align_items": "center"},
            ),
            rx.cond(~S.same_as_shipping, section("Billing Address", address_fields("billingAddress"))),
            rx.divider(),
            section(
                "Payment Information",
                rx.match(
                    S.payment_provider,
                    ("stripe", stripe_payment_element()),
                    ("test", test_card_fields()),
                    rx.skeleton(rx.box(height="120px", width="100%")),
                ),
            ),
            agreement(),
            rx.button(
                rx.cond(S.submitting, "Processing...", "Place Order - " + total_amount()),
                type="submit",
                size="3",
                width="100%",
                disabled=S.submitting,
                data_testid="place-order",
            ),
            spacing="4",
            width="100%",
        ),
        on_submit=S.submit,
        reset_on_submit=False,
        no_validate=True,
        id=FORM_ID,
    )


def checkout_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.trigger(rx.button("Checkout", size="3", width="100%")),
        rx.dialog.content(
            rx.dialog.title("Complete Your Order"),
            rx.dialog.description(
                "Your order is sent for printing as soon as payment is confirmed.", size="2", color=styles.MUTED
            ),
            rx.box(checkout_form(), padding_top="1rem"),
            max_width="640px",
            max_height="90vh",
            overflow_y="auto",
        ),
        open=S.dialog_open,
        on_open_change=lambda value: S.set_dialog_open(value, _TYPED_FIELDS),
    )
