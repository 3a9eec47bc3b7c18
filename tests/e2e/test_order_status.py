"""/order-status in a real browser: the order this browser placed shows by itself; any other
order is found by its number and the email used at checkout."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.e2e.browser import open_page
from tests.e2e.test_shopping import TEST_CARD, add_to_cart, fill_checkout, open_checkout, place_order, product_links

NOT_FOUND = "We couldn't find an order with that number and email."


def buy_a_tee(page: Page) -> str:
    """Place and pay an order through the checkout; returns its number."""
    add_to_cart(page, product_links(page, "tee")[0], "M")
    open_checkout(page)
    fill_checkout(page, TEST_CARD)
    place_order(page)
    toast = page.get_by_text(re.compile(r"Order SF-\d+ has been submitted for fulfilment\."))
    expect(toast).to_be_visible()
    return re.search(r"SF-\d+", toast.inner_text()).group(0)


def expect_order_shown(page: Page, number: str) -> None:
    card = page.get_by_test_id("order-card")
    expect(card.get_by_test_id("order-number")).to_have_text(f"Order {number}")
    expect(card.get_by_test_id("order-status")).to_have_text("Processing")
    expect(card.get_by_test_id("payment-status")).to_have_text("Paid")
    expect(card.get_by_test_id("order-line")).to_have_count(1)
    expect(card.get_by_test_id("order-line")).to_contain_text("Size: M")


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
