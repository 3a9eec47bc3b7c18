"""Checkout through Stripe in a real browser: the store against the fake Stripe over real HTTP,
with its Stripe.js stand-in in the page (STRIPE_API_BASE, STRIPE_JS_URL) and its signed webhooks."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, inspect, text

from tests.e2e import test_shopping as shopping
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.conftest import SharedStore, StoreProcess, StoreServer, shared_store
from tests.e2e.workers import poll
from tests.fakes.stripe_server import FakeStripe

pytestmark = pytest.mark.reconfigures_store

GOOD_CARD = "4242 4242 4242 4242"
DECLINED_CARD = "4000 0000 0000 0002"


@pytest.fixture(scope="module")
def shared_fake(store_process: StoreProcess) -> Iterator[FakeStripe]:
    with FakeStripe(webhook_url=f"{store_process.url}/api/stripe/webhooks") as stripe_fake:
        yield stripe_fake


@pytest.fixture(scope="module")
def stripe_settings(shared_fake: FakeStripe, tmp_path_factory: pytest.TempPathFactory) -> SharedStore:
    return shared_store(tmp_path_factory, "stripe-store", shared_fake.env())


@pytest.fixture
def fake(shared_fake: FakeStripe) -> FakeStripe:
    """The module's fake Stripe, with nothing recorded yet (each test's orders are its own)."""
    shared_fake.forget()
    return shared_fake


@pytest.fixture
def stripe_store(
    store: StoreServer, store_process: StoreProcess, stripe_settings: SharedStore, fake: FakeStripe
) -> StoreServer:
    """The store on the fake Stripe, shared by this module's tests."""
    return stripe_settings.serve(store_process)


def fill_customer(page: Page) -> None:
    dialog = page.get_by_role("dialog")
    for label, value in shopping.CONTACT_AND_ADDRESS.items():
        if label != "Country":  # the dialog's country is already the US
            shopping.fill_field(dialog, label, value)


def fill_stripe_card(page: Page, number: str) -> None:
    """Type the card into Stripe's Payment Element (the stand-in mounted in the dialog)."""
    element = page.get_by_test_id("payment-element")
    element.get_by_test_id("stripe-card-number").fill(number)
    element.get_by_test_id("stripe-card-expiry").fill("12 / 39")
    element.get_by_test_id("stripe-card-cvc").fill("123")


def order_number(page: Page) -> str:
    toast = page.get_by_text(re.compile(r"Order SF-\d+ has been submitted for fulfilment\."))
    expect(toast).to_be_visible()
    return re.search(r"SF-\d+", toast.inner_text()).group(0)


def tables_holding(db_url: str, needle: str) -> list[str]:
    """Every table of the store's database with a row whose text holds `needle`."""
    engine = create_engine(db_url)
    try:
        found = []
        with engine.connect() as connection:
            for table in inspect(engine).get_table_names():
                for row in connection.execute(text(f'SELECT * FROM "{table}"')):
                    if any(needle in str(value).replace(" ", "") for value in row):
                        found.append(table)
                        break
        return found
    finally:
        engine.dispose()


def test_a_purchase_through_stripe_is_paid_sent_once_and_the_card_never_reaches_the_store(
    page: Page, stripe_store: StoreServer, fake: FakeStripe
) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: frames.append(str(frame))))
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    fill_customer(page)
    expect(page.get_by_text("Test card (fake Stripe)")).to_be_visible()
    expect(page.get_by_role("dialog").get_by_label("CVV", exact=True)).to_have_count(0)
    fill_stripe_card(page, GOOD_CARD)
    page.get_by_role("dialog").get_by_test_id("place-order").click()
    number = order_number(page)
    expect(shopping.badge_count(page)).to_have_count(0)

    order = poll(
        "the order sent to the print provider",
        lambda: (row := shopping._order_row(stripe_store, number))["printify_order_id"] and row,
        30,
    )
    assert (order["payment_status"], order["payment_provider"], order["card_last4"]) == ("paid", "stripe", "4242")
    intent = fake.intent(order["payment_intent_id"])
    assert (intent["status"], intent["amount"]) == ("succeeded", order["total_cents"])
    assert len(fake.created_intents) == 1
    fake.wait_for_idle(timeout=15)
    assert [d.status for d in fake.deliveries if d.type == "payment_intent.succeeded"] == [200]

    # The card went from the page to Stripe only.
    digits = GOOD_CARD.replace(" ", "")
    assert frames and not [f for f in frames if digits in f.replace(" ", "")]
    assert digits not in (stripe_store.data_dir / "store.log").read_text().replace(" ", "")
    assert tables_holding(stripe_store.db_url, digits) == []


def test_a_declined_card_then_a_good_one_pays_the_same_order_in_the_same_dialog(
    page: Page, stripe_store: StoreServer, fake: FakeStripe
) -> None:
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "L")
    shopping.open_checkout(page)
    fill_customer(page)
    fill_stripe_card(page, DECLINED_CARD)
    dialog = page.get_by_role("dialog")
    dialog.get_by_test_id("place-order").click()
    expect(page.get_by_text("Checkout Failed", exact=True)).to_be_visible()
    expect(page.get_by_text("Your card was declined.", exact=True).first).to_be_visible()
    expect(dialog.get_by_test_id("place-order")).to_be_enabled()
    expect(shopping.badge_count(page)).to_have_text("1")

    fill_stripe_card(page, GOOD_CARD)
    dialog.get_by_test_id("place-order").click()
    number = order_number(page)
    order = poll(
        "the order paid",
        lambda: (row := shopping._order_row(stripe_store, number))["payment_status"] == "paid" and row,
        30,
    )
    assert order["item_sizes"] == ["L"]
    assert len(fake.created_intents) == 1  # the same order and intent, paid on the second try
    assert fake.intent(order["payment_intent_id"])["status"] == "succeeded"


def test_a_stripe_order_ends_on_its_page_and_a_part_refund_of_one_line_is_made_once_and_shown_everywhere(
    page: Page, stripe_store: StoreServer, fake: FakeStripe
) -> None:
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.add_to_cart(page, shopping.product_links(page, "hoodie")[0], "L")
    shopping.open_checkout(page)
    fill_customer(page)
    fill_stripe_card(page, GOOD_CARD)
    page.get_by_role("dialog").get_by_test_id("place-order").click()
    number = order_number(page)
    # The checkout ends on the order's own page, thanking the shopper.
    expect(page).to_have_url(re.compile(rf"/order-status\?order={number}&key="))
    expect(page.get_by_test_id("thank-you")).to_be_visible()
    expect(page.get_by_test_id("order-line")).to_have_count(2)
    order_page = page.url
    order = poll(
        "the order paid",
        lambda: (row := shopping._order_row(stripe_store, number))["payment_status"] == "paid" and row,
        30,
    )

    sign_in(page)
    open_tab(page, "Orders")
    row = page.get_by_test_id("order-row").filter(has_text=number)
    row.get_by_role("button", name="View").click()
    dialog = page.get_by_role("dialog", name=f"Order {number}")
    expect(dialog.get_by_text("Customer Information", exact=True)).to_be_visible()
    dialog.get_by_role("button", name="Refund", exact=True).click()
    confirm = page.get_by_role("alertdialog")
    line = confirm.get_by_test_id("refund-line").first
    expect(line).to_be_visible()
    price = re.search(r"\$[\d,]+\.\d\d", line.inner_text()).group(0)
    line.get_by_role("spinbutton").fill("1")
    confirm.get_by_test_id("confirm-action").dblclick()
    expect(page.locator("[data-sonner-toast]").filter(has_text="Order refunded")).to_be_visible()
    expect(confirm).to_have_count(0)
    expect(row).to_contain_text("Partially refunded")
    part = dialog.get_by_test_id("history-line").filter(has_text="Partially refunded")
    expect(part).to_have_count(1)
    expect(part).to_contain_text(price)

    # Stripe holds one refund of that line's price, however often the button was clicked.
    cents = int(price.strip("$").replace(",", "").replace(".", ""))
    assert [fake.refunds[r]["amount"] for r in fake.created_refunds] == [cents]
    assert cents < order["total_cents"]

    # The customer's page and email say the same.
    page.goto(order_page)
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect(page.get_by_test_id("order-status")).to_have_text("Partially refunded")
    expect(page.get_by_test_id("status-text")).to_contain_text(f"We refunded {price} of ")
    engine = create_engine(stripe_store.db_url)
    try:
        with engine.connect() as connection:
            bodies = list(
                connection.execute(
                    text(
                        "SELECT m.text_body FROM mail_message m JOIN orders o ON o.id = m.order_id"
                        " WHERE o.number = :n AND m.kind = 'order-refunded'"
                    ),
                    {"n": number},
                ).scalars()
            )
    finally:
        engine.dispose()
    assert len(bodies) == 1 and f"we refunded {price} for order {number}" in bodies[0]
