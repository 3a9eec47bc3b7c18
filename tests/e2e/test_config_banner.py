"""The configuration banner above /products: the provider's shop list and the store platform's test.

Spec section 2: shown when either check fails, hidden when neither does, destructive (red) when
both fail and a warning (amber) otherwise."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreProcess, StoreServer, reconfigured_store
from tests.fakes.printify_server import FakePrintifyServer
from tests.fakes.shopify_server import FakeShopifyServer

WARNING, DESTRUCTIVE = "amber", "red"


def failing_provider(fake: FakePrintifyServer) -> dict[str, str]:
    return {"PRINTIFY_API_TOKEN": "not-the-token", "PRINTIFY_API_BASE": fake.base_url}


def failing_store(fake: FakeShopifyServer) -> dict[str, str]:
    return {
        "SHOPIFY_STORE_DOMAIN": fake.domain,
        "SHOPIFY_STOREFRONT_TOKEN": "sf_wrong",
        "SHOPIFY_API_BASE": fake.base_url,
    }


def open_listing(page: Page) -> None:
    open_page(page, "/products")
    expect(page.locator("[data-config-check]")).to_have_attribute("data-config-check", "done")


def expect_banner(page: Page, colour: str, *, provider_ok: bool, store_ok: bool) -> None:
    banner = page.get_by_test_id("config-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-accent-color", colour)
    expect(banner).to_contain_text("API Configuration Issue")  # served on localhost
    expect(banner).to_contain_text(re.compile(r"Configured:\s*" + ("Yes" if provider_ok else "No")))
    expect(banner).to_contain_text(re.compile(r"Store platform:\s*" + ("Demo" if store_ok else "Failed")))
    expect(banner.get_by_role("button", name="Refresh Config")).to_be_visible()
    expect(banner.get_by_role("link", name="Go to Admin")).to_have_attribute("href", "/admin")


def test_no_banner_when_the_provider_and_the_store_platform_both_answer(page: Page) -> None:
    open_listing(page)
    expect(page.get_by_test_id("config-banner")).to_have_count(0)


@pytest.mark.reconfigures_store
def test_a_failing_provider_alone_shows_the_warning(
    page: Page, store: StoreServer, store_process: StoreProcess, tmp_path: Path
) -> None:
    with (
        FakePrintifyServer() as printify,
        reconfigured_store(store, store_process, tmp_path, failing_provider(printify)),
    ):
        open_listing(page)
        expect_banner(page, WARNING, provider_ok=False, store_ok=True)


@pytest.mark.reconfigures_store
def test_a_failing_store_platform_alone_shows_the_warning(
    page: Page, store: StoreServer, store_process: StoreProcess, tmp_path: Path
) -> None:
    with FakeShopifyServer() as shopify, reconfigured_store(store, store_process, tmp_path, failing_store(shopify)):
        open_listing(page)
        expect_banner(page, WARNING, provider_ok=True, store_ok=False)


@pytest.mark.reconfigures_store
def test_both_failing_show_the_destructive_banner(
    page: Page, store: StoreServer, store_process: StoreProcess, tmp_path: Path
) -> None:
    with (
        FakePrintifyServer() as printify,
        FakeShopifyServer() as shopify,
        reconfigured_store(store, store_process, tmp_path, {**failing_provider(printify), **failing_store(shopify)}),
    ):
        open_listing(page)
        expect_banner(page, DESTRUCTIVE, provider_ok=False, store_ok=False)
