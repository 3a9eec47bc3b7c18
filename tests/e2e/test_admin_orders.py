"""The Orders tab in a real browser: an order placed on the storefront, followed in the back office."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e import test_shopping as shopping
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.conftest import StoreServer


def _place_paid_order(page: Page, store: StoreServer) -> tuple[str, dict]:
    """Buy a tee in M with the 4242 card; returns the order number and its row once it reached the provider."""
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.TEST_CARD)
    token, paid = shopping.place_order(page)
    assert paid["status"] == 200, paid
    number = paid["order"]["id"]
    shopping.wait_until_sent_to_provider(page, number, token)
    return number, shopping._order_row(store, number)


def test_an_order_placed_on_the_storefront_shows_in_orders_with_its_items_and_fulfilment(
    page: Page, store: StoreServer
) -> None:
    number, order = _place_paid_order(page, store)
    sign_in(page)
    open_tab(page, "Orders")

    row = page.get_by_test_id("order-row").filter(has_text=number)
    expect(row).to_be_visible()
    expect(row).to_contain_text("Ada Lovelace")
    expect(row).to_contain_text("Paid")
    expect(row).to_contain_text("Processing")
    total = f"${order['total_cents'] / 100:,.2f}"
    expect(row).to_contain_text(total)
    expect(page.get_by_test_id("order-stat").filter(has_text="Total Orders")).to_contain_text(re.compile(r"\d"))

    row.get_by_role("button", name="View").click()
    dialog = page.get_by_role("dialog", name=f"Order {number}")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text("Customer Information", exact=True)).to_be_visible()
    expect(dialog.get_by_test_id("detail-total")).to_have_text(total)
    expect(dialog.get_by_text("1 Main Street", exact=True)).to_be_visible()

    dialog.get_by_role("tab", name="Items").click()
    item = dialog.get_by_test_id("order-item")
    expect(item).to_have_count(1)
    expect(item).to_contain_text(re.compile(r"tee", re.I))
    expect(item.get_by_role("cell", name="M", exact=True)).to_be_visible()
    expect(item.get_by_role("cell", name="1", exact=True)).to_be_visible()

    dialog.get_by_role("tab", name="Fulfillment").click()
    expect(dialog.get_by_text("Orders are sent to Printify automatically after payment confirmation.")).to_be_visible()
    expect(dialog.get_by_text(order["printify_order_id"], exact=True)).to_be_visible()
    expect(dialog.get_by_text("Paid", exact=True)).to_be_visible()


def test_export_csv_downloads_the_orders(page: Page, store: StoreServer) -> None:
    number, _ = _place_paid_order(page, store)
    sign_in(page)
    open_tab(page, "Orders")
    expect(page.get_by_test_id("order-row").filter(has_text=number)).to_be_visible()
    with page.expect_download() as downloaded:
        page.get_by_role("button", name="Export CSV").click()
    download = downloaded.value
    assert download.suggested_filename == "orders.csv"
    text = open(download.path(), encoding="utf-8").read()
    assert text.startswith("Order ID,Date (UTC),Customer Name,Email,Total,")
    assert number in text
