"""Discount codes in a real browser: the 'Discount code' field in the cart's order summary and in
the checkout dialog, the Discount line the server priced (Subtotal, Discount, Shipping, Total), a
code that stops applying before the order is paid, and the back office's Discounts tab."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.models import utcnow
from storefront.services.discounts import codes, rules
from storefront.services.platform.money import format_usd
from tests.e2e.admin import open_tab
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_shopping import TEST_CARD, add_to_cart, fill_checkout, place_order, product_links


@pytest.fixture
def db(store: StoreServer) -> Iterator[Engine]:
    engine = create_engine(store.db_url)
    yield engine
    engine.dispose()


def _make_code(db: Engine, code: str, **fields: object) -> None:
    with Session(db) as session:
        codes.create_code(session, {"code": code, "kind": "percent", "value": 10, **fields})


def _cents(text_: str) -> int:
    return round(float(re.sub(r"[^0-9.]", "", text_)) * 100)


def test_the_cart_prices_a_code_as_its_own_summary_line(page: Page, db: Engine) -> None:
    _make_code(db, "CART-TEN")
    add_to_cart(page, product_links(page, "tee")[0], "M")
    open_page(page, "/cart")
    summary = page.get_by_test_id("order-summary")
    subtotal = _cents(summary.get_by_text(re.compile(r"^\$")).first.inner_text())
    field = summary.get_by_label("Discount code")
    field.fill("nope")
    summary.get_by_role("button", name="Apply").click()
    expect(summary.get_by_role("alert")).to_have_text(rules.CODE_UNKNOWN)
    expect(summary.get_by_text("Discount", exact=True)).to_have_count(0)

    field.fill("cart-ten")  # any case
    field.press("Enter")
    discount = (subtotal * 10 + 50) // 100
    shipping = 0 if subtotal - discount > 10000 else 999
    expect(summary.get_by_text(format_usd(-discount), exact=True)).to_be_visible()
    expect(summary.get_by_test_id("discount-applied-cart")).to_have_text(f"CART-TEN · {format_usd(-discount)}")
    labels = summary.get_by_text(re.compile(r"^(Subtotal|Discount|Shipping|Total)$"))
    expect(labels).to_have_text(["Subtotal", "Discount", "Shipping", "Total"])
    expect(summary.get_by_text(format_usd(subtotal - discount + shipping), exact=True)).to_be_visible()

    # The code stays with the cart: a reload prices it again on the server.
    page.reload()
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    expect(summary.get_by_test_id("discount-applied-cart")).to_be_visible()
    summary.get_by_role("button", name="Remove").click()
    expect(summary.get_by_text("Discount", exact=True)).to_have_count(0)
    expect(summary.get_by_text(format_usd(subtotal + (0 if subtotal > 10000 else 999)), exact=True)).to_be_visible()


def test_the_checkout_dialog_takes_a_code_and_the_order_keeps_it(page: Page, db: Engine, store: StoreServer) -> None:
    _make_code(db, "DIALOG-TEN")
    add_to_cart(page, product_links(page, "tee")[0], "M")
    open_page(page, "/cart")
    page.get_by_role("button", name="Checkout", exact=True).click()
    dialog = page.get_by_role("dialog", name="Complete Your Order")
    # The buyer starts at Email (a phone's keyboard opens there), not at the code field above it.
    expect(dialog.get_by_label("Email", exact=True)).to_be_focused()
    subtotal = _cents(dialog.get_by_text(re.compile(r"^\$")).first.inner_text())
    discount = (subtotal * 10 + 50) // 100
    total = subtotal - discount + (0 if subtotal - discount > 10000 else 999)
    dialog.get_by_label("Discount code").fill("dialog-ten")
    dialog.get_by_role("button", name="Apply").click()
    expect(dialog.get_by_text(format_usd(-discount), exact=True)).to_be_visible()
    labels = dialog.get_by_text(re.compile(r"^(Subtotal|Discount|Shipping|Total)$"))
    expect(labels).to_have_text(["Subtotal", "Discount", "Shipping", "Total"])
    expect(dialog.get_by_test_id("place-order")).to_have_text(f"Place Order - {format_usd(total)}")
    fill_checkout(page, TEST_CARD)
    _, paid = place_order(page)
    assert paid["status"] == 200, paid
    toast = page.get_by_text(re.compile(r"Order SF-\d+ has been submitted for fulfilment\."))
    number = re.search(r"SF-\d+", toast.inner_text()).group(0)  # type: ignore[union-attr]
    with db.connect() as connection:
        row = connection.execute(
            text("SELECT discount_code, discount_cents, total_cents FROM orders WHERE number = :n"), {"n": number}
        ).one()
    assert tuple(row) == ("DIALOG-TEN", discount, total)
    # The code went with the order: the next cart starts without it.
    page.wait_for_function("() => !localStorage.getItem('discount-code')")


def test_a_code_that_expires_before_the_order_is_placed_is_refused_with_the_new_total(
    page: Page, db: Engine
) -> None:
    _make_code(db, "LAST-MINUTE")
    add_to_cart(page, product_links(page, "tee")[0], "M")
    open_page(page, "/cart")
    summary = page.get_by_test_id("order-summary")
    summary.get_by_label("Discount code").fill("LAST-MINUTE")
    summary.get_by_role("button", name="Apply").click()
    expect(summary.get_by_test_id("discount-applied-cart")).to_be_visible()
    page.get_by_role("button", name="Checkout", exact=True).click()
    dialog = page.get_by_role("dialog", name="Complete Your Order")
    subtotal = _cents(dialog.get_by_text(re.compile(r"^\$")).first.inner_text())
    total = subtotal + (0 if subtotal > 10000 else 999)
    with db.begin() as connection:  # the sale ends while the shopper types the address
        connection.execute(
            text("UPDATE discount_code SET ends_at = :t WHERE code_key = 'LAST-MINUTE'"),
            {"t": utcnow() - timedelta(minutes=1)},
        )
    fill_checkout(page, TEST_CARD)
    dialog.get_by_test_id("place-order").click()
    message = f"{rules.CODE_EXPIRED} Your total without it is {format_usd(total)}."
    expect(page.get_by_text(message).first).to_be_visible()
    expect(dialog.get_by_text("Discount", exact=True)).to_have_count(0)
    expect(dialog.get_by_test_id("place-order")).to_have_text(f"Place Order - {format_usd(total)}")
    _, paid = place_order(page)  # the shopper accepts the new total
    assert paid["status"] == 200, paid


def test_staff_make_a_code_in_the_discounts_tab(admin: Page) -> None:
    open_tab(admin, "Discounts")
    admin.get_by_test_id("discount-new").click()
    dialog = admin.get_by_role("dialog", name="New Discount")
    dialog.get_by_label("Code").fill("STAFF-FIVE")
    dialog.locator("select[name=kind]").select_option("amount")
    dialog.get_by_label("Value").fill("abc")
    dialog.get_by_test_id("discount-save").click()
    expect(dialog.get_by_test_id("discount-error-value")).to_have_text(codes.AMOUNT_INVALID)
    dialog.get_by_label("Value").fill("5")
    dialog.get_by_label("Uses in all").fill("50")
    dialog.get_by_test_id("discount-save").click()
    row = admin.get_by_test_id("discount-row").filter(has_text="STAFF-FIVE")
    expect(row).to_contain_text("$5.00 off")
    expect(row).to_contain_text("0 / 50")
