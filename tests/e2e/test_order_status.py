"""/order-status in a real browser: the order this browser placed shows by itself; the link in the
confirmation email opens its order anywhere; any other order is found by its number and the email
used at checkout."""

from __future__ import annotations

import html
import json
import re
import uuid

import httpx
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine
from sqlmodel import Session, col, select

from storefront.models import MailMessage, Order
from storefront.state.order_status import LINK_INVALID
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_shopping import TEST_CARD, add_to_cart, fill_checkout, open_checkout, place_order, product_links
from tests.ordering import GOOD_CARD, order_payload, pick

NOT_FOUND = "We couldn't find an order with that number and email."


def buy_a_tee(page: Page) -> str:
    """Place and pay an order through the checkout; returns its number."""
    add_to_cart(page, product_links(page, "tee")[0], "M")
    open_checkout(page)
    fill_checkout(page, TEST_CARD)
    place_order(page)
    toast = page.get_by_text(re.compile(r"Order SF-\d+ has been submitted for fulfilment\."))
    expect(toast).to_be_visible()
    # The order has an email, so its confirmation was queued and the toast says so.
    expect(page.get_by_text("Order placed successfully!", exact=True)).to_be_visible()
    expect(toast).to_contain_text("confirmation email")
    number = re.search(r"SF-\d+", toast.inner_text()).group(0)
    # The checkout ends on the order's own page, at the signed address its email carries.
    expect(page).to_have_url(re.compile(rf"/order-status\?order={number}&key=\d+\.[\w-]+$"))
    return number


def expect_order_shown(page: Page, number: str) -> None:
    card = page.get_by_test_id("order-card")
    expect(card.get_by_test_id("order-number")).to_have_text(f"Order {number}")
    # The demo provider starts printing within seconds: one of the two, each with its sentence.
    expect(card.get_by_test_id("order-status")).to_have_text(re.compile(r"^(Confirmed|Printing)$"))
    expect(card.get_by_test_id("status-text")).to_have_text(
        re.compile(r"^(We have your order and are preparing it for printing\.|Your order is being printed\.)$")
    )
    expect(card.get_by_test_id("order-line")).to_have_count(1)
    expect(card.get_by_test_id("order-line")).to_contain_text("Size: M")


def expect_thank_you(page: Page, number: str, street: str = "1 Main Street") -> None:
    """The thank-you page: number, lines with their pictures, totals, address, where the email went."""
    expect_order_shown(page, number)
    card = page.get_by_test_id("order-card")
    expect(card.get_by_test_id("thank-you")).to_have_text("Thank you for your order!")
    expect(card.get_by_test_id("confirmation-to")).to_have_text("We sent a confirmation to ada@example.com.")
    expect(card.get_by_test_id("order-line").get_by_role("img")).to_have_count(1)
    expect(card.get_by_text(re.compile(r"^\$\d+\.\d\d$")).last).to_be_visible()
    expect(card.get_by_test_id("ship-to")).to_contain_text(street)
    expect(card.get_by_test_id("keep-shopping")).to_have_attribute("href", "/products")


def test_a_paid_checkout_ends_on_the_thank_you_page_which_a_reload_keeps(page: Page, phone_page: Page) -> None:
    number = buy_a_tee(page)
    expect_thank_you(page, number)
    address = page.url
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_thank_you(page, number)
    # The link is the key: another browser holding it sees the same order; without it, nothing.
    phone_page.goto(address)
    phone_page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_thank_you(phone_page, number)
    open_page(phone_page, f"/order-status?order={number}")
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)


def look_up(page: Page, number: str, email: str) -> None:
    page.get_by_label("Order number", exact=True).fill(number)
    page.get_by_label("Email", exact=True).fill(email)
    page.get_by_role("button", name="Find order").click()


def test_the_browser_that_placed_an_order_sees_it_and_others_look_it_up(page: Page, phone_page: Page) -> None:
    number = buy_a_tee(page)
    kept = json.loads(page.evaluate("() => localStorage.getItem('last-order')"))
    assert kept["number"] == number and len(kept["token"]) >= 22

    # The footer's link leads there, and the order shows without typing anything.
    page.get_by_role("link", name="Order status", exact=True).click()
    expect(page).to_have_url(re.compile(r"/order-status$"))
    expect_order_shown(page, number)
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_order_shown(page, number)

    # A fresh browser (a phone) knows nothing: it finds the order by number and email.
    open_page(phone_page, "/order-status")
    expect(phone_page.get_by_role("heading", name="Find your order")).to_be_visible()
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)
    look_up(phone_page, number, "grace@example.com")
    expect(phone_page.get_by_test_id("lookup-error")).to_have_text(NOT_FOUND)
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)
    look_up(phone_page, f" {number.lower()} ", " ADA@example.com ")
    expect_order_shown(phone_page, number)
    expect(phone_page.get_by_test_id("lookup-error")).to_have_count(0)


def test_the_form_asks_for_both_fields(page: Page) -> None:
    open_page(page, "/order-status")
    page.get_by_role("button", name="Find order").click()
    expect(page.get_by_test_id("error-number")).to_have_text("Order number is required")
    expect(page.get_by_test_id("error-email")).to_have_text("Email is required")


def test_an_unknown_remembered_order_is_forgotten(page: Page) -> None:
    open_page(page, "/")
    page.evaluate("""() => localStorage.setItem('last-order', JSON.stringify({number: 'SF-999999', token: 'nope'}))""")
    open_page(page, "/order-status")
    expect(page.get_by_role("heading", name="Find your order")).to_be_visible()
    page.wait_for_function("() => !localStorage.getItem('last-order')")
    expect(page.get_by_test_id("order-card")).to_have_count(0)


def test_a_failed_lookup_takes_the_previous_order_off_the_screen(page: Page, phone_page: Page) -> None:
    number = buy_a_tee(page)
    open_page(phone_page, "/order-status")
    look_up(phone_page, number, "ada@example.com")
    expect_order_shown(phone_page, number)
    look_up(phone_page, number, "grace@example.com")
    expect(phone_page.get_by_test_id("lookup-error")).to_have_text(NOT_FOUND)
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)


def _paid_order_through_the_api(store: StoreServer) -> tuple[str, str]:
    """Place and pay an order as a shopper's browser does through the API; its number and the link
    of its confirmation email as queued in the store's database."""
    engine = create_engine(store.db_url)
    try:
        tee = pick(engine)
        with httpx.Client(base_url=store.url, timeout=30, trust_env=False) as client:
            placed = client.post(
                "/api/printify/orders",
                json=order_payload((tee, 1)),
                headers={"Idempotency-Key": f"mail-link-{uuid.uuid4().hex}"},
            )
            assert placed.status_code == 201, placed.text
            number, token = placed.json()["order"]["id"], placed.json()["accessToken"]
            paid = client.post(
                f"/api/printify/orders/{number}/process-payment",
                json={
                    "paymentId": f"pay_{uuid.uuid4().hex}",
                    "shopId": "store",
                    "paymentMethod": "card",
                    "cardData": GOOD_CARD,
                },
                headers={"X-Order-Token": token},
            )
            assert paid.status_code == 200, paid.text
        with Session(engine) as session:
            order = session.exec(select(Order).where(col(Order.number) == number)).one()
            mail = session.exec(
                select(MailMessage).where(
                    col(MailMessage.order_id) == order.id, col(MailMessage.kind) == "order-confirmed"
                )
            ).one()
    finally:
        engine.dispose()
    found = re.search(r'href="([^"]*/order-status\?[^"]*)"', mail.html_body)
    assert found, "no order link in the confirmation"
    return number, html.unescape(found.group(1))


def test_the_link_in_the_confirmation_email_opens_the_order_and_a_forged_one_does_not(
    store: StoreServer, phone_page: Page
) -> None:
    number, link = _paid_order_through_the_api(store)
    assert link.startswith(f"{store.url}/order-status?order={number}&key=")
    # A browser that never saw the order (no token kept) opens it from the email.
    phone_page.goto(link)
    phone_page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect_thank_you(phone_page, number, "12 Analytical Row")
    expect(phone_page.get_by_test_id("link-error")).to_have_count(0)

    forged = re.sub(r"key=[^&]+", "key=0.forged", link)
    open_page(phone_page, forged.removeprefix(store.url))
    expect(phone_page.get_by_test_id("link-error")).to_have_text(LINK_INVALID)
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)
    # The key of one order opens no other order.
    other = re.sub(r"order=[^&]+", "order=SF-999999", link)
    open_page(phone_page, other.removeprefix(store.url))
    expect(phone_page.get_by_test_id("link-error")).to_have_text(LINK_INVALID)
    expect(phone_page.get_by_test_id("order-card")).to_have_count(0)


def test_after_a_refund_following_shipment_the_page_shows_one_status_and_no_alarm(
    store: StoreServer, phone_page: Page
) -> None:
    number, link = _paid_order_through_the_api(store)
    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            order = session.exec(select(Order).where(col(Order.number) == number)).one()
            # Where a refund after shipment leaves the order: shipped, refunded in full, and a note
            # for staff that the print order could not be cancelled.
            order.status, order.printify_status, order.payment_status = "fulfilled", "fulfilled", "refunded"
            order.refunded_cents, order.tracking_number = order.total_cents, "9400111"
            order.shipped_at = order.created_at
            order.attention_reason = "Refunded while the print provider was already printing it: Operation failed."
            session.add(order)
            session.commit()
    finally:
        engine.dispose()
    phone_page.goto(link)
    phone_page.wait_for_selector("[data-hydrated='true']", state="attached")
    card = phone_page.get_by_test_id("order-card")
    expect(card.get_by_test_id("order-status")).to_have_text("Refunded")
    expect(card.get_by_test_id("order-status")).to_have_count(1)
    expect(card.get_by_test_id("status-text")).to_have_text(re.compile(r"will still be delivered to you\.$"))
    expect(card.get_by_test_id("tracking-number")).to_contain_text("9400111")
    expect(card.get_by_text(re.compile("problem|Operation failed", re.I))).to_have_count(0)
    # A refunded order is no longer thanked for, nor told what happens next: its status says it all.
    expect(card.get_by_test_id("thank-you")).to_have_count(0)
