"""The Orders tab in a real browser: an order placed on the storefront, followed in the back office."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from storefront.services.orders.refund_amounts import MORE_THAN_PAID
from storefront.state.order_status import LINK_INVALID
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
    # The line's picture: its smallest rendition, in a fixed square.
    thumbnail = item.get_by_test_id("product-thumbnail")
    expect(thumbnail).to_have_attribute("src", re.compile(r"^/media/[0-9a-f]+-320\.webp$"))
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=thumbnail.element_handle())
    box = thumbnail.bounding_box()
    assert box is not None and (box["width"], box["height"]) == (40, 40)

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
    with open(download.path(), encoding="utf-8") as file:
        text = file.read()
    assert text.startswith("Order ID,Date (UTC),Customer Name,Email,Total,")
    assert number in text


# --------------------------------------------------------------------------- refunds and cancellations


def _toast(page: Page, title: str):
    """The toast with this title (the history in the dialog may show the same words)."""
    return page.locator("[data-sonner-toast]").filter(has_text=title)


def _history_actions(store: StoreServer, number: str) -> list[str]:
    """The order's history actions as the database holds them, oldest first."""
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            return list(
                connection.execute(
                    text(
                        "SELECT h.action FROM order_history h JOIN orders o ON o.id = h.order_id"
                        " WHERE o.number = :n ORDER BY h.id"
                    ),
                    {"n": number},
                ).scalars()
            )
    finally:
        engine.dispose()


def _place_unpaid_order(page: Page) -> str:
    """Check out a tee with the card the test gateway declines; returns the unpaid order's number."""
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.DECLINED_CARD)
    with page.expect_response(lambda r: r.url.endswith("/process-payment")) as answer:
        page.get_by_role("dialog").get_by_test_id("place-order").click()
    assert answer.value.status == 402
    found = re.search(r"/orders/(SF-\d+)/process-payment$", answer.value.url)
    assert found, answer.value.url
    return found.group(1)


def _open_detail(page: Page, number: str):
    row = page.get_by_test_id("order-row").filter(has_text=number)
    row.get_by_role("button", name="View").click()
    dialog = page.get_by_role("dialog", name=f"Order {number}")
    expect(dialog.get_by_text("Customer Information", exact=True)).to_be_visible()
    return row, dialog


def test_a_paid_order_refunded_from_the_dialog_once_despite_a_double_click(page: Page, store: StoreServer) -> None:
    number, order = _place_paid_order(page, store)
    sign_in(page)
    open_tab(page, "Orders")
    row, dialog = _open_detail(page, number)
    # Paid with the test gateway: the payment is the order's first history line (the outbox may
    # have sent it to the provider since: "Sent to the print provider" follows).
    expect(dialog.get_by_test_id("history-label").first).to_have_text("Paid")

    dialog.get_by_role("button", name="Refund", exact=True).click()
    confirm = page.get_by_role("alertdialog")
    total = f"${order['total_cents'] / 100:,.2f}"
    expect(confirm).to_contain_text(
        f"Refund {total} to the customer's card? "
        "The print order is cancelled if the provider has not started printing it."
    )
    confirm.get_by_role("button", name="Refund", exact=True).dblclick()

    expect(_toast(page, "Order refunded")).to_be_visible()
    expect(confirm).to_have_count(0)
    expect(row).to_contain_text("Refunded")
    refunded = dialog.get_by_test_id("history-line").filter(
        has=page.get_by_test_id("history-label").get_by_text("Refunded", exact=True)
    )
    expect(refunded).to_have_count(1)
    expect(refunded).to_contain_text("Refunded by admin")
    expect(refunded).to_contain_text(total)
    expect(dialog.get_by_role("button", name="Refund", exact=True)).to_have_count(0)
    expect(dialog.get_by_role("button", name="Cancel order")).to_have_count(0)
    dialog.get_by_role("tab", name="Fulfillment").click()
    expect(dialog.get_by_text("Refunded", exact=True)).to_be_visible()

    assert shopping._order_row(store, number)["payment_status"] == "refunded"
    actions = _history_actions(store, number)
    assert (actions.count("refund_requested"), actions.count("refunded")) == (1, 1), actions


def test_a_refused_refund_keeps_its_form_for_staff_to_correct(page: Page, store: StoreServer) -> None:
    number, order = _place_paid_order(page, store)
    sign_in(page)
    open_tab(page, "Orders")
    _row, dialog = _open_detail(page, number)
    dialog.get_by_role("button", name="Refund", exact=True).click()
    confirm = page.get_by_role("alertdialog")
    total = order["total_cents"]
    too_much = f"{total / 100 + 1:.2f}"
    confirm.get_by_test_id("refund-amount").fill(too_much)
    confirm.get_by_role("button", name="Refund", exact=True).click()
    refusal = MORE_THAN_PAID.format(left=f"${total / 100:,.2f}", asked=f"${total / 100 + 1:,.2f}")
    expect(page.get_by_text(refusal)).to_be_visible()
    # The form stays, with what was typed: staff corrects it and refunds once.
    expect(confirm.get_by_test_id("refund-amount")).to_have_value(too_much)
    confirm.get_by_test_id("refund-amount").fill("1.00")
    confirm.get_by_role("button", name="Refund", exact=True).click()
    expect(_toast(page, "Order refunded")).to_be_visible()
    expect(confirm).to_have_count(0)
    assert shopping._order_row(store, number)["refunded_cents"] == 100


def test_the_order_dialog_fits_a_phone(page: Page, phone_page: Page, store: StoreServer) -> None:
    number, _ = _place_paid_order(page, store)
    sign_in(phone_page)
    open_tab(phone_page, "Orders")
    _row, dialog = _open_detail(phone_page, number)
    expect(dialog.get_by_test_id("history-line").first).to_be_visible()
    # Nothing in it (a payment id, the action buttons) reaches past the phone's width.
    wider = phone_page.evaluate(
        """() => [...document.querySelectorAll('[role=dialog] *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth)
            .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 30))"""
    )
    assert wider == [], wider


def test_an_unpaid_order_is_only_under_awaiting_payment_and_cancel_order_cancels_it(
    page: Page, store: StoreServer
) -> None:
    number = _place_unpaid_order(page)
    sign_in(page)
    open_tab(page, "Orders")
    rows = page.get_by_test_id("order-row")
    # The paid orders (the default view) are loaded, without the unpaid one.
    expect(rows.first.or_(page.get_by_text("No orders yet", exact=True))).to_be_visible()
    expect(rows.filter(has_text=number)).to_have_count(0)

    page.get_by_test_id("order-view").locator("button", has_text="Awaiting payment").click()
    row = rows.filter(has_text=number)
    expect(row).to_be_visible()
    expect(row).to_contain_text("Pending")
    expect(row).to_contain_text("Failed")

    _, dialog = _open_detail(page, number)
    expect(dialog.get_by_role("button", name="Cancel order")).to_be_visible()
    expect(dialog.get_by_role("button", name="Refund", exact=True)).to_have_count(0)
    dialog.get_by_role("button", name="Cancel order").click()
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_contain_text(
        "Cancel this order? It has not been paid, and it can no longer be paid once cancelled."
    )
    confirm.get_by_role("button", name="Cancel order").click()

    expect(_toast(page, "Order cancelled")).to_be_visible()
    expect(confirm).to_have_count(0)
    expect(row).to_contain_text("Cancelled")
    cancelled = dialog.get_by_test_id("history-line")
    expect(cancelled).to_have_count(1)
    expect(cancelled).to_contain_text("Order cancelled by admin")
    expect(dialog.get_by_role("button", name="Cancel order")).to_have_count(0)
    assert shopping._order_row(store, number)["status"] == "cancelled"

    # Back under 'Orders' (paid orders), the cancelled checkout is still not there.
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    paid_view = page.get_by_test_id("order-view").locator("button", has_text="Orders")
    paid_view.click()
    expect(paid_view).to_have_attribute("data-state", "on")
    expect(rows.first.or_(page.get_by_text("No orders yet", exact=True))).to_be_visible()
    expect(rows.filter(has_text=number)).to_have_count(0)


# --------------------------------------------------------------------------- emails


def _confirmations(store: StoreServer, number: str) -> int:
    """How many confirmation emails the store's database holds for the order."""
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            return connection.execute(
                text(
                    "SELECT count(*) FROM mail_message m JOIN orders o ON o.id = m.order_id"
                    " WHERE o.number = :n AND m.kind = 'order-confirmed'"
                ),
                {"n": number},
            ).scalar_one()
    finally:
        engine.dispose()


def test_the_dialog_lists_the_emails_and_resend_confirmation_queues_one_per_click(
    page: Page, store: StoreServer
) -> None:
    number, _ = _place_paid_order(page, store)
    sign_in(page)
    open_tab(page, "Orders")
    _, dialog = _open_detail(page, number)
    emails = dialog.get_by_test_id("email-line")
    expect(emails).to_have_count(1)
    expect(emails.first.get_by_test_id("email-subject")).to_have_text(f"Order {number} confirmed")
    # One sentence: 'Sent to ada@...' or, before the outbox sends it, 'Queued for ada@...'.
    expect(emails.first).to_contain_text(re.compile(r"(Sent to|Queued for) ada@example\.com"))
    expect(emails.first.get_by_test_id("email-state")).to_have_text(re.compile(r"^(Sent|Queued)$"))

    dialog.get_by_test_id("resend-confirmation").dblclick()
    expect(_toast(page, "Confirmation queued")).to_be_visible()
    expect(emails).to_have_count(2)
    expect(dialog.get_by_test_id("resend-confirmation")).to_have_text("Confirmation queued")
    expect(dialog.get_by_test_id("resend-confirmation")).to_be_disabled()
    assert _confirmations(store, number) == 2

    # Opened again, the dialog arms another resend: one click, one more email.
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    _, dialog = _open_detail(page, number)
    dialog.get_by_test_id("resend-confirmation").click()
    expect(dialog.get_by_test_id("email-line")).to_have_count(3)
    assert _confirmations(store, number) == 3


def _order_link(store: StoreServer, number: str) -> str:
    """The order page's address in the order's confirmation email, on this store."""
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            html_body = connection.execute(
                text(
                    "SELECT m.html_body FROM mail_message m JOIN orders o ON o.id = m.order_id"
                    " WHERE o.number = :n AND m.kind = 'order-confirmed'"
                ),
                {"n": number},
            ).scalar_one()
    finally:
        engine.dispose()
    link = html.unescape(re.search(r'href="([^"]*/order-status\?[^"]*)"', html_body)[1])  # type: ignore[index]
    parts = urlsplit(link)
    return f"{store.url}{parts.path}?{parts.query}"


def test_revoke_email_links_leaves_the_emails_link_opening_nothing(page: Page, store: StoreServer) -> None:
    number, _ = _place_paid_order(page, store)
    link = _order_link(store, number)
    page.goto(link)
    expect(page.get_by_test_id("order-number")).to_have_text(f"Order {number}")
    sign_in(page)
    open_tab(page, "Orders")
    _, dialog = _open_detail(page, number)
    dialog.get_by_test_id("revoke-links").click()
    expect(_toast(page, "Links Revoked")).to_be_visible()
    expect(dialog.get_by_test_id("history-label").last).to_have_text("Email links revoked")
    assert _history_actions(store, number)[-1] == "links_revoked"
    page.goto(link)
    expect(page.get_by_test_id("link-error")).to_have_text(LINK_INVALID)


def test_retry_is_offered_on_an_order_needing_attention_until_it_is_refunded(page: Page, store: StoreServer) -> None:
    number, _ = _place_paid_order(page, store)
    engine = create_engine(store.db_url)
    try:
        with engine.begin() as connection:  # where a provider's refusal leaves an order: not at the provider
            connection.execute(
                text(
                    "UPDATE orders SET attention_reason = 'address_to.zip is invalid', printify_order_id = NULL,"
                    " printify_status = NULL WHERE number = :n"
                ),
                {"n": number},
            )
    finally:
        engine.dispose()
    sign_in(page)
    open_tab(page, "Orders")
    row = page.get_by_test_id("order-row").filter(has_text=number)
    expect(row.get_by_role("button", name="Retry")).to_be_visible()
    row, dialog = _open_detail(page, number)
    dialog.get_by_role("tab", name="Fulfillment").click()
    expect(dialog.get_by_role("button", name="Retry")).to_be_visible()
    expect(dialog.get_by_role("button", name="Mark resolved")).to_be_visible()

    dialog.get_by_role("tab", name="Order Details").click()
    dialog.get_by_role("button", name="Refund", exact=True).click()
    page.get_by_role("alertdialog").get_by_role("button", name="Refund", exact=True).click()
    expect(_toast(page, "Order refunded")).to_be_visible()
    expect(row).to_contain_text("Refunded")
    # Nothing is left to send: Retry is gone.
    dialog.get_by_role("tab", name="Fulfillment").click()
    expect(dialog.get_by_text("Refunded", exact=True)).to_be_visible()
    expect(dialog.get_by_role("button", name="Retry")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(row).to_contain_text("Refunded")
    expect(row.get_by_role("button", name="Retry")).to_have_count(0)
