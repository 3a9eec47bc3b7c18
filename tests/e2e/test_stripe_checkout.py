"""Checkout through Stripe in a real browser: the store against the fake Stripe over real HTTP,
with its Stripe.js stand-in in the page (STRIPE_API_BASE, STRIPE_JS_URL) and its signed webhooks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, inspect, text

from tests.e2e import test_shopping as shopping
from tests.e2e.conftest import StoreProcess, StoreServer, reconfigured_store
from tests.e2e.workers import poll
from tests.fakes.stripe_server import FakeStripe

pytestmark = pytest.mark.reconfigures_store

GOOD_CARD = "4242 4242 4242 4242"
DECLINED_CARD = "4000 0000 0000 0002"


@pytest.fixture
def fake(store_process: StoreProcess) -> Iterator[FakeStripe]:
    with FakeStripe(webhook_url=f"{store_process.url}/api/stripe/webhooks") as stripe_fake:
        yield stripe_fake


def fill_customer(page: Page) -> None:
    dialog = page.get_by_role("dialog")
    values = {
        "Email": "ada@example.com", "Full name": "Ada Lovelace", "First name": "Ada", "Last name": "Lovelace",
        "Address": "1 Main Street", "City": "Springfield", "State": "IL", "ZIP code": "62701",
    }
    for label, value in values.items():
        dialog.get_by_label(label, exact=True).fill(value)


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
    page: Page, store: StoreServer, store_process: StoreProcess, fake: FakeStripe, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, fake.env()) as stripe_store:
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

        order = poll("the order sent to the print provider",
                     lambda: (row := shopping._order_row(stripe_store, number))["printify_order_id"] and row, 30)
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
    page: Page, store: StoreServer, store_process: StoreProcess, fake: FakeStripe, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, fake.env()) as stripe_store:
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
        order = poll("the order paid", lambda: (row := shopping._order_row(stripe_store, number))["payment_status"] == "paid" and row, 30)
        assert order["item_sizes"] == ["L"]
        assert len(fake.created_intents) == 1  # the same order and intent, paid on the second try
        assert fake.intent(order["payment_intent_id"])["status"] == "succeeded"
