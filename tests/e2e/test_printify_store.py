"""The store run against a fake Printify over real HTTP, as if it were Printify (PRINTIFY_API_BASE)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import test_shopping as shopping
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.conftest import SharedStore, StoreProcess, StoreServer, reconfigured_store, shared_store
from tests.fakes.printify_server import FakePrintifyServer
from tests.fakes.printify_shop import seeded_shop

pytestmark = pytest.mark.reconfigures_store

WEBHOOK_SECRET = "e2e-webhook-secret"
SINGLE_COLOUR_TEE = "Nupe Crest Tee"


@pytest.fixture(scope="module")
def fake(store_process: StoreProcess) -> Iterator[FakePrintifyServer]:
    """One fake shop for the module (its products are only read; orders are cleared for each test)."""
    shop = seeded_shop()
    shop.webhook_url, shop.webhook_secret = f"{store_process.url}/api/printify/webhooks", WEBHOOK_SECRET
    yield shop
    shop.stop()


@pytest.fixture(scope="module")
def connected(fake: FakePrintifyServer, tmp_path_factory: pytest.TempPathFactory) -> SharedStore:
    return shared_store(tmp_path_factory, "printify-store", _settings(fake, fake.token))


@pytest.fixture
def printify_store(
    store: StoreServer, store_process: StoreProcess, connected: SharedStore, fake: FakePrintifyServer
) -> StoreServer:
    """The store on the fake Printify with its token, shared by this module's tests."""
    with fake.lock:
        fake.orders[fake.shop_id].clear()
    return connected.serve(store_process)


def _settings(fake: FakePrintifyServer, token: str) -> dict[str, str]:
    return {
        "PRINTIFY_API_TOKEN": token,
        "PRINTIFY_API_BASE": fake.base_url,
        "PRINTIFY_WEBHOOK_SECRET": WEBHOOK_SECRET,
    }


# Like test_shopping's poll: each call starts one status request when none is in flight.
_PROVIDER_STATUS_IS = """([number, token, status]) => {
    const poll = window.__statusPoll || (window.__statusPoll = {status: null, busy: false});
    if (!poll.busy) {
        poll.busy = true;
        fetch('/api/orders/' + encodeURIComponent(number) + '/status', {headers: {'X-Order-Token': token}})
            .then(r => r.ok ? r.json() : {})
            .then(body => { poll.status = body.printifyStatus; })
            .finally(() => { poll.busy = false; });
    }
    return poll.status === status;
}"""


def wait_for_provider_status(page: Page, number: str, token: str, status: str) -> None:
    page.wait_for_function(_PROVIDER_STATUS_IS, arg=[number, token, status], polling=250, timeout=30_000)


def banner_checked(page: Page) -> None:
    expect(page.locator("[data-config-check]")).to_have_attribute("data-config-check", "done")


def test_the_fake_shops_products_are_listed_and_the_banner_is_hidden(
    page: Page, printify_store: StoreServer, fake: FakePrintifyServer
) -> None:
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards.filter(has_text=SINGLE_COLOUR_TEE)).to_have_count(1)
    expect(cards).to_have_count(len(fake.products[fake.shop_id]))
    banner_checked(page)
    expect(page.get_by_test_id("config-banner")).to_have_count(0)


def test_an_order_reaches_printify_once_and_its_shipment_shows_in_the_admin(
    page: Page, printify_store: StoreServer, fake: FakePrintifyServer
) -> None:
    shopping.add_to_cart(page, shopping.product_links(page, SINGLE_COLOUR_TEE)[0], "M")
    shopping.open_checkout(page)
    shopping.fill_checkout(page, shopping.TEST_CARD)
    token, paid = shopping.place_order(page)
    assert paid["status"] == 200, paid
    number = paid["order"]["id"]
    shopping.wait_until_sent_to_provider(page, number, token)

    (order,) = fake.all_orders()
    assert order["metadata"]["shop_order_id"] == number
    assert [line["metadata"]["title"] for line in order["line_items"]] == [SINGLE_COLOUR_TEE]
    wait_for_provider_status(page, number, token, "sending-to-production")
    assert fake.all_orders()[0]["status"] == "sending-to-production"

    shipped = fake.ship(number)  # delivers the signed order:shipment:created webhook
    tracking = shipped["shipments"][-1]["number"]
    assert len(fake.all_orders()) == 1

    sign_in(page)
    open_tab(page, "Orders")
    page.get_by_test_id("order-row").filter(has_text=number).get_by_role("button", name="View").click()
    dialog = page.get_by_role("dialog", name=f"Order {number}")
    dialog.get_by_role("tab", name="Fulfillment").click()
    expect(dialog.get_by_text(tracking, exact=True)).to_be_visible()


def test_a_wrong_token_shows_the_configuration_warning(
    page: Page, store: StoreServer, store_process: StoreProcess, fake: FakePrintifyServer, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, _settings(fake, "not-the-token")):
        open_page(page, "/products")
        banner = page.get_by_test_id("config-banner")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("API Configuration Issue")  # served on localhost
        expect(banner).to_contain_text(re.compile(r"Configured:\s*No"))
        expect(banner).to_contain_text(re.compile(r"API key set:\s*Yes"))
        expect(banner).to_contain_text(re.compile(rf"Key length:\s*{len('not-the-token')}"))
        expect(banner.get_by_role("button", name="Refresh Config")).to_be_visible()
        expect(banner.get_by_role("link", name="Go to Admin")).to_have_attribute("href", "/admin")
