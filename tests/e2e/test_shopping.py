"""The shopper's path in a real browser: search, sizes, cart, checkout and payment."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Locator, Page, Route, expect
from sqlalchemy import create_engine, text
from sqlmodel import Session

from storefront.services.catalog.listing import product_page
from storefront.services.orders.cart import CART_TRIMMED
from storefront.services.printify.demo_catalogue import demo_catalogue
from storefront.state.catalog import PRODUCTS_PAGE_SIZE
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

TEST_CARD = "4242 4242 4242 4242"
DECLINED_CARD = "4000 0000 0000 0002"


def product_links(page: Page, name_part: str) -> list[str]:
    """Hrefs of the listing's cards whose name contains `name_part`."""
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.first).to_be_visible()
    matching = cards.filter(has_text=re.compile(name_part, re.I))
    return [matching.nth(i).get_by_role("link").first.get_attribute("href") for i in range(matching.count())]


def add_to_cart(page: Page, href: str, size: str) -> None:
    open_page(page, href)
    page.get_by_role("radio", name=size, exact=True).click()
    page.get_by_role("button", name="Add to Cart").click()
    expect(page.get_by_text("Added to cart", exact=True)).to_be_visible()


def open_checkout(page: Page) -> None:
    open_page(page, "/cart")
    page.get_by_role("button", name="Checkout", exact=True).click()
    expect(page.get_by_role("dialog", name="Complete Your Order")).to_be_visible()


CONTACT_AND_ADDRESS = {
    "Email": "ada@example.com",
    "Full name": "Ada Lovelace",
    "First name": "Ada",
    "Last name": "Lovelace",
    "Address": "1 Main Street",
    "City": "Springfield",
    "State": "IL",
    "ZIP code": "62701",
    "Country": "US",
}
CARD_LABELS = ("Card number", "Expiry date", "CVV", "Cardholder name")
#: The address fields picked from a list (a US state, a ship-to country) rather than typed.
SELECTS = frozenset({"State", "Country"})


def fill_field(dialog: Locator, label: str, value: str) -> None:
    """Type a field's value, or pick it when the field is a select."""
    field = dialog.get_by_label(label, exact=True)
    if label in SELECTS:
        field.select_option(value)
    else:
        field.fill(value)


def fill_checkout(page: Page, card: str) -> None:
    dialog = page.get_by_role("dialog")
    values = {
        **{label: value for label, value in CONTACT_AND_ADDRESS.items() if label != "Country"},
        "Card number": card,
        "Expiry date": "12/39",
        "CVV": "123",
        "Cardholder name": "Ada Lovelace",
    }
    for label, value in values.items():
        fill_field(dialog, label, value)


def badge_count(page: Page):
    return page.get_by_test_id("cart-badge")


def test_search_narrows_the_listing(page: Page) -> None:
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.first).to_be_visible()
    total = cards.count()
    page.get_by_placeholder("Search products...").fill("HOODIE")
    expect(cards).not_to_have_count(total)
    names = cards.get_by_test_id("product-name").all_text_contents()
    assert names and all("hoodie" in n.lower() for n in names)
    page.get_by_placeholder("Search products...").fill("no such garment")
    expect(page.get_by_text("No Products Found", exact=True)).to_be_visible()
    expect(page.get_by_text("Try adjusting your search criteria", exact=True)).to_be_visible()


def _listed_count(store: StoreServer) -> int:
    """How many products the store lists now: the demo catalogue plus any an earlier test of this
    shared store published (a product made from a design, one created in the back office)."""
    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            total = product_page(session, limit=1).total
    finally:
        engine.dispose()
    assert total is not None
    return total


def test_the_listing_loads_more_products_on_request(page: Page, store: StoreServer) -> None:
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    shown = _listed_count(store)
    assert shown >= sum(1 for p in demo_catalogue() if p["visible"] and p["is_published"])
    assert shown > PRODUCTS_PAGE_SIZE, "the demo catalogue should need a second page"
    expect(cards).to_have_count(PRODUCTS_PAGE_SIZE)
    page.get_by_role("button", name="Load More").click()
    expect(cards).to_have_count(min(shown, 2 * PRODUCTS_PAGE_SIZE))
    expect(page.get_by_role("button", name="Load More")).to_have_count(0)


def test_adding_without_a_size_asks_for_one(page: Page) -> None:
    href = product_links(page, "tee")[0]
    open_page(page, href)
    page.get_by_role("button", name="Add to Cart").click()
    expect(page.get_by_text("Please select a size", exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_count(0)


def test_unknown_product_shows_not_found_and_returns_to_products(page: Page) -> None:
    page.goto("/product/no-such-product")
    expect(page.get_by_text("Product not found", exact=True).first).to_be_visible()
    expect(page).to_have_url(re.compile(r"/products$"))


def test_cart_survives_a_reload(page: Page) -> None:
    href = product_links(page, "tee")[0]
    add_to_cart(page, href, "M")
    expect(badge_count(page)).to_have_text("1")
    open_page(page, "/cart")
    expect(page.get_by_test_id("cart-line")).to_have_count(1)
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect(page.get_by_test_id("cart-line")).to_have_count(1)
    expect(page.get_by_test_id("cart-line")).to_contain_text("Size: M")


def test_quantity_plus_minus_and_remove(page: Page) -> None:
    href = product_links(page, "hoodie")[0]
    add_to_cart(page, href, "L")
    open_page(page, "/cart")
    line = page.get_by_test_id("cart-line")
    minus = line.get_by_role("button", name="Decrease quantity")
    expect(minus).to_be_disabled()
    line.get_by_role("button", name="Increase quantity").click()
    expect(line.get_by_test_id("line-quantity")).to_have_text("2")
    expect(badge_count(page)).to_have_text("2")
    minus.click()
    expect(line.get_by_test_id("line-quantity")).to_have_text("1")
    line.get_by_role("button", name="Remove").click()
    expect(page.get_by_text("Your cart is empty", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Browse Products")).to_have_attribute("href", "/products")


def test_checkout_shows_each_fields_message_on_bad_input(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Email", exact=True).fill("not-an-email")
    dialog.get_by_label("Full name", exact=True).fill("A")
    dialog.get_by_test_id("place-order").click()
    for message in [
        "Please enter a valid email address",
        "Name must be at least 2 characters",
        "First name is required",
        "Last name is required",
        "Address is required",
        "City is required",
        "State is required",
        "ZIP code is required",
        "Card number is required",
        "Expiry date is required",
        "CVV is required",
        "Cardholder name is required",
    ]:
        expect(dialog.get_by_text(message, exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_text("1")


def _order_row(store: StoreServer, number: str) -> dict:
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            row = dict(
                connection.execute(text("SELECT * FROM orders WHERE number = :n"), {"n": number}).mappings().one()
            )
            sizes = connection.execute(
                text("SELECT size FROM order_item WHERE order_id = :id"), {"id": row["id"]}
            ).scalars()
            return {**row, "item_sizes": sorted(sizes)}
    finally:
        engine.dispose()


# A synchronous predicate (Playwright polls it): each call starts one status request when none
# is in flight and answers with what the last finished request said.
_SENT_TO_PROVIDER = """([number, token]) => {
    const poll = window.__orderPoll || (window.__orderPoll = {sent: false, busy: false});
    if (!poll.busy) {
        poll.busy = true;
        fetch('/api/orders/' + encodeURIComponent(number) + '/status', {headers: {'X-Order-Token': token}})
            .then(r => r.ok ? r.json() : {})
            .then(body => { poll.sent = !!body.printifyOrderId; })
            .finally(() => { poll.busy = false; });
    }
    return poll.sent;
}"""


def wait_until_sent_to_provider(page: Page, number: str, token: str) -> None:
    """Let the browser poll the order status API until the outbox has sent the order."""
    page.wait_for_function(_SENT_TO_PROVIDER, arg=[number, token], polling=250, timeout=30_000)


def place_order(page: Page) -> tuple[str, dict]:
    """Click 'Place Order'; returns the order's access token, as sent with the payment, and the
    payment's answer."""
    with page.expect_response(lambda r: r.url.endswith("/process-payment")) as paid:
        page.get_by_role("dialog").get_by_test_id("place-order").click()
    response = paid.value
    return response.request.headers["x-order-token"], {"status": response.status, **response.json()}


def test_test_card_purchase_places_a_paid_order_sent_to_the_provider(page: Page, store: StoreServer) -> None:
    sent_frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent_frames.append(str(frame))))
    tee, hoodie = product_links(page, "tee")[0], product_links(page, "hoodie")[0]
    add_to_cart(page, tee, "M")
    add_to_cart(page, tee, "L")
    add_to_cart(page, hoodie, "L")
    open_checkout(page)
    fill_checkout(page, TEST_CARD)
    token, _ = place_order(page)
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(badge_count(page)).to_have_count(0)
    assert page.evaluate("() => localStorage.getItem('cart-storage')") in (None, "[]")
    # The card never travels over the Reflex websocket, so it never enters server state.
    assert sent_frames, "expected the checkout to talk to the Reflex backend"
    full_number = TEST_CARD.replace(" ", "")
    assert not [f for f in sent_frames if full_number in f.replace(" ", "") or '"cvv"' in f.lower()]
    toast = page.get_by_text(re.compile(r"Order SF-\d+ has been submitted for fulfilment\."))
    number = re.search(r"SF-\d+", toast.inner_text()).group(0)
    wait_until_sent_to_provider(page, number, token)
    order = _order_row(store, number)
    assert (order["payment_status"], order["status"]) == ("paid", "processing")
    assert order["printify_order_id"]
    assert order["card_last4"] == "4242"
    assert order["item_sizes"] == ["L", "L", "M"]
    assert order["total_cents"] == order["subtotal_cents"] + order["shipping_cents"]


def test_declined_card_keeps_the_cart_and_shows_the_reason(page: Page) -> None:
    add_to_cart(page, product_links(page, "crewneck")[0], "M")
    open_checkout(page)
    fill_checkout(page, DECLINED_CARD)
    page.get_by_role("dialog").get_by_test_id("place-order").click()
    expect(page.get_by_text("Checkout Failed", exact=True)).to_be_visible()
    expect(page.get_by_text("Your card was declined.", exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_text("1")


def test_a_declined_shopper_fixes_the_card_and_pays_in_the_same_dialog(page: Page, store: StoreServer) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "L")
    open_checkout(page)
    fill_checkout(page, DECLINED_CARD)
    token, declined = place_order(page)
    assert declined["status"] == 402
    expect(page.get_by_text("Your card was declined.", exact=True)).to_be_visible()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Address", exact=True).fill("2 Main Street")
    dialog.get_by_label("Card number", exact=True).fill(TEST_CARD)
    retry_token, paid = place_order(page)
    assert (paid["status"], paid["order"]["paymentStatus"]) == (200, "paid")
    assert retry_token == token  # the same order, paid
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    expect(badge_count(page)).to_have_count(0)
    order = _order_row(store, paid["order"]["id"])
    assert (order["address1"], order["payment_status"], order["item_sizes"]) == ("2 Main Street", "paid", ["L"])


def close_and_reopen_checkout(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    page.get_by_role("button", name="Checkout", exact=True).click()
    expect(page.get_by_role("dialog", name="Complete Your Order")).to_be_visible()


def test_a_declined_shopper_who_closes_the_checkout_finds_the_address_but_no_card(page: Page) -> None:
    sent_frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent_frames.append(str(frame))))
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    fill_checkout(page, DECLINED_CARD)
    _, declined = place_order(page)
    assert declined["status"] == 402
    close_and_reopen_checkout(page)
    dialog = page.get_by_role("dialog")
    for label, value in CONTACT_AND_ADDRESS.items():
        expect(dialog.get_by_label(label, exact=True)).to_have_value(value)
    for label in CARD_LABELS:
        expect(dialog.get_by_label(label, exact=True)).to_have_value("")
    assert not [f for f in sent_frames if DECLINED_CARD.replace(" ", "") in f.replace(" ", "") or "12/39" in f]


def test_what_is_typed_survives_closing_the_checkout_without_placing_the_order(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Email", exact=True).fill("grace@example.com")
    dialog.get_by_label("City", exact=True).fill("Arlington")
    dialog.get_by_label("Card number", exact=True).fill(TEST_CARD)
    close_and_reopen_checkout(page)
    expect(dialog.get_by_label("Email", exact=True)).to_have_value("grace@example.com")
    expect(dialog.get_by_label("City", exact=True)).to_have_value("Arlington")
    expect(dialog.get_by_label("Card number", exact=True)).to_have_value("")


def test_a_paid_order_empties_the_checkout_form(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    fill_checkout(page, TEST_CARD)
    place_order(page)
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    add_to_cart(page, product_links(page, "hoodie")[0], "M")
    open_checkout(page)
    dialog = page.get_by_role("dialog")
    for label in CONTACT_AND_ADDRESS.keys() - {"Country"}:
        expect(dialog.get_by_label(label, exact=True)).to_have_value("")
    expect(dialog.get_by_label("Country", exact=True)).to_have_value("US")


def test_the_checkout_picks_the_country_and_the_state_by_name(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    dialog = page.get_by_role("dialog")
    country = dialog.get_by_label("Country", exact=True)
    expect(country.locator("option")).to_have_text(["United States"])
    expect(country).to_have_value("US")
    state = dialog.get_by_label("State", exact=True)
    state.select_option(label="New York")
    expect(state).to_have_value("NY")


def test_the_card_number_placeholder_is_not_a_working_card(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    expect(page.get_by_role("dialog").get_by_label("Card number", exact=True)).to_have_attribute(
        "placeholder", "1234 1234 1234 1234"
    )


# Records each cart-updated window event with the stored cart at that moment.
_LISTEN_FOR_CART_UPDATES = """() => {
    window.__cartUpdates = [];
    window.addEventListener('cart-updated', () => window.__cartUpdates.push(localStorage.getItem('cart-storage')));
}"""


def test_a_paid_order_fires_cart_updated_after_emptying_the_stored_cart(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    page.evaluate(_LISTEN_FOR_CART_UPDATES)
    fill_checkout(page, TEST_CARD)
    place_order(page)
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    page.wait_for_function("() => window.__cartUpdates.length > 0")
    assert page.evaluate("() => window.__cartUpdates.at(-1)") == "[]"


def test_changing_a_quantity_fires_cart_updated(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_page(page, "/cart")
    page.evaluate(_LISTEN_FOR_CART_UPDATES)
    page.get_by_test_id("cart-line").get_by_role("button", name="Increase quantity").click()
    page.wait_for_function("() => window.__cartUpdates.length > 0")
    assert [line["quantity"] for line in json.loads(page.evaluate("() => window.__cartUpdates.at(-1)"))] == [2]


def test_an_oversized_stored_cart_keeps_its_first_100_lines_and_says_so(page: Page, store: StoreServer) -> None:
    """Issue 23: a 6,500-line cart in local storage cost 12 s of server work for one reprice."""
    engine = create_engine(store.db_url)
    with engine.connect() as connection:
        real = connection.execute(
            text(
                "SELECT DISTINCT v.product_id, v.size, v.color FROM catalog_variant v"
                " JOIN catalog_product p ON p.id = v.product_id"
                " WHERE v.is_enabled AND p.is_active AND p.is_published AND p.archived_at IS NULL"
                " ORDER BY v.product_id, v.size, v.color LIMIT 100"
            )
        ).all()
    engine.dispose()
    assert len(real) == 100
    entries = [
        {"id": pid, "name": "Stored", "price": 1, "size": size, "color": color, "image": "", "quantity": 1}
        for pid, size, color in real
    ] + [{"id": f"gone-{i}", "name": "Gone", "price": 1, "size": "M", "image": "", "quantity": 1} for i in range(6400)]
    open_page(page, "/")
    page.evaluate("(cart) => localStorage.setItem('cart-storage', cart)", json.dumps(entries))
    open_page(page, "/cart")
    expect(page.get_by_text(CART_TRIMMED, exact=True)).to_be_visible()
    expect(page.get_by_test_id("cart-line")).to_have_count(100)
    stored = json.loads(page.evaluate("() => localStorage.getItem('cart-storage')"))
    assert [(e["id"], e["size"]) for e in stored] == [(pid, size) for pid, size, _ in real]


def test_the_test_gateways_card_fields_format_as_typed(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Expiry date", exact=True).press_sequentially("1229")
    expect(dialog.get_by_label("Expiry date", exact=True)).to_have_value("12/29")
    dialog.get_by_label("Card number", exact=True).press_sequentially("4242424242424242")
    expect(dialog.get_by_label("Card number", exact=True)).to_have_value("4242 4242 4242 4242")


def test_card_fields_typed_before_the_checkout_script_arrives_format_once_it_does(page: Page) -> None:
    held: list[Route] = []
    page.route("**/checkout.js*", lambda route: held.append(route))
    add_to_cart(page, product_links(page, "tee")[0], "S")
    with page.expect_request("**/checkout.js*"):
        open_checkout(page)
    expiry = page.get_by_role("dialog").get_by_label("Expiry date", exact=True)
    expiry.press_sequentially("1229")
    expect(expiry).to_have_value("1229")
    for route in held:
        route.continue_()
    expect(expiry).to_have_value("12/29")


def test_card_buttons_line_up_whatever_the_titles_length(page: Page) -> None:
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.nth(3)).to_be_visible()
    # One card of the first row gets a title that takes two lines.
    cards.first.get_by_test_id("product-name").evaluate(
        "el => { el.textContent = 'A very long product title ' .repeat(4); }"
    )
    tops = {round(cards.nth(i).get_by_role("button", name="View Details").bounding_box()["y"]) for i in range(4)}
    assert len(tops) == 1, tops
    prices = {round(cards.nth(i).get_by_test_id("product-price").bounding_box()["y"]) for i in range(4)}
    assert len(prices) == 1, prices
