"""Staff change the catalogue in the back office and shoppers see it: price, placement, visibility."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.state.admin.session import ADMIN_TOKEN_KEY
from tests.designs import design_data_url
from tests.e2e.admin import editor_row, open_tab
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_admin_products import _take_off_storefront
from tests.e2e.test_order_status import look_up
from tests.ordering import Pick, order_payload


def _newest_shown(store: StoreServer, collection: str | None = None) -> dict:
    """The newest product shoppers see (optionally of one collection): id, title, collection."""
    engine = create_engine(store.db_url)
    where = "is_active AND is_published" + (" AND collection_key = :c" if collection else "")
    try:
        with engine.connect() as connection:
            row = connection.execute(
                text(f"SELECT id, title, collection_key FROM catalog_product WHERE {where} "
                     "ORDER BY provider_created_at DESC LIMIT 1"),
                {"c": collection},
            ).mappings().one()
            return dict(row)
    finally:
        engine.dispose()


def _set_price(page: Page, title: str, price: str) -> None:
    row = editor_row(page, title)
    row.get_by_role("button", name="Edit").click()
    row.get_by_label("Price").fill(price)
    row.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Product Updated", exact=True)).to_be_visible()
    expect(row).to_contain_text(f"${price}")


def test_a_price_edited_in_the_editor_shows_on_the_storefront(admin: Page, store: StoreServer) -> None:
    product = _newest_shown(store)
    _set_price(admin, product["title"], "27.50")
    open_page(admin, f"/product/{product['id']}")
    expect(admin.get_by_test_id("product-price")).to_have_text("$27.50")


def test_save_all_without_changes_says_so(admin: Page, store: StoreServer) -> None:
    product = _newest_shown(store)
    row = editor_row(admin, product["title"])
    row.get_by_role("button", name="Edit").click()
    admin.get_by_role("button", name="Save All Changes").click()
    expect(admin.get_by_text("No Changes", exact=True)).to_be_visible()
    expect(admin.get_by_text("No products have been modified.", exact=True)).to_be_visible()


def _category_row(page: Page, title: str):  # type: ignore[no-untyped-def]
    open_page(page, "/admin/dashboard")
    open_tab(page, "Categories")
    row = page.get_by_test_id("category-row").filter(has_text=title)
    expect(row).to_have_count(1)
    return row


def test_a_product_moved_to_another_collection_shows_there(admin: Page, store: StoreServer) -> None:
    product = _newest_shown(store, "swdnn")
    row = _category_row(admin, product["title"])
    row.get_by_role("combobox").click()
    admin.get_by_role("option", name="HWDPN · He Wit Da Poodles Now", exact=True).click()
    expect(admin.get_by_text("Category Updated", exact=True)).to_be_visible()
    open_page(admin, "/collections/hwdpn")
    expect(admin.get_by_test_id("product-card").filter(has_text=product["title"])).to_have_count(1)
    open_page(admin, "/collections/swdnn")
    expect(admin.get_by_test_id("product-card").first).to_be_visible()
    expect(admin.get_by_test_id("product-card").filter(has_text=product["title"])).to_have_count(0)


def test_a_hidden_product_is_gone_from_its_collection_page(admin: Page, store: StoreServer) -> None:
    product = _newest_shown(store, "hwdzn")
    route = f"/collections/{product['collection_key']}"
    row = _category_row(admin, product["title"])
    row.get_by_role("switch").click()
    expect(admin.get_by_text("Product Unpublished", exact=True)).to_be_visible()
    open_page(admin, route)
    expect(admin.get_by_test_id("product-card").first).to_be_visible()
    expect(admin.get_by_test_id("product-card").filter(has_text=product["title"])).to_have_count(0)
    # Shown again, it is back.
    row = _category_row(admin, product["title"])
    row.get_by_role("switch").click()
    expect(admin.get_by_text("Product Published", exact=True)).to_be_visible()
    open_page(admin, route)
    expect(admin.get_by_test_id("product-card").filter(has_text=product["title"])).to_have_count(1)


GHOST_ID = "ghost-product-not-at-the-provider"


@pytest.fixture
def ghost(store: StoreServer) -> Iterator[str]:
    """A cached, shown product the provider does not have, so every provider call for it fails."""
    engine = create_engine(store.db_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO catalog_product (id, shop_id, title, description, tags_json, collection_key,"
                    " collection_assigned, is_active, is_published, provider_created_at, synced_at)"
                    " VALUES (:id, 1, 'Ghost Tee', '', '[]', 'swdnn', 0, 1, 1, '2099-01-01 00:00:00.000000',"
                    " '2099-01-01 00:00:00.000000')"
                ),
                {"id": GHOST_ID},
            )
        yield "Ghost Tee"
    finally:
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM catalog_product WHERE id = :id"), {"id": GHOST_ID})
        engine.dispose()


def test_a_category_change_the_provider_refuses_is_put_back(admin: Page, ghost: str) -> None:
    row = _category_row(admin, ghost)
    select = row.get_by_role("combobox")
    expect(select).to_have_text("SWDNN · She Wit Da Nupes Now")
    select.click()
    admin.get_by_role("option", name="HWDRN · He Wit Da Redz Now", exact=True).click()
    expect(admin.get_by_text("Failed to update product in Printify", exact=True)).to_be_visible()
    expect(select).to_have_text("SWDNN · She Wit Da Nupes Now")


def _shown_test_product(page: Page, title: str) -> Pick:
    """A tee of the test's own, created and published through the admin API (so archiving it
    changes no product other tests count); its size M at the created price."""
    token = (page.evaluate(f"() => localStorage.getItem('{ADMIN_TOKEN_KEY}')") or "").strip('"')
    headers = {"x-admin-token": token}
    products = f"/api/printify/shops/{DEMO_SHOP_ID}/products"
    created = page.request.post(products, headers=headers, data={
        "title": title, "description": "A tee made by the archive browser test.",
        "blueprintId": 384, "printProviderId": 29, "price": "31.50", "design": design_data_url(),
    })
    assert created.status == 201, created.text()
    product_id = created.json()["data"]["id"]
    published = page.request.post(f"{products}/{product_id}/publish", headers=headers, data={})
    assert published.ok, published.text()
    return Pick(product_id, title, "M", 3150)


def test_an_archived_product_leaves_the_store_and_its_order_still_opens(admin: Page, store: StoreServer) -> None:
    tee = _shown_test_product(admin, f"Archive Test Tee {uuid.uuid4().hex[:6]}")
    placed = httpx.post(
        f"{store.url}/api/printify/orders", json=order_payload((tee, 1)),
        headers={"Idempotency-Key": uuid.uuid4().hex}, timeout=30,
    )
    assert placed.status_code == 201, placed.text
    number = placed.json()["order"]["id"]
    row = editor_row(admin, tee.name)
    row.get_by_role("button", name="Archive").click()
    dialog = admin.get_by_role("alertdialog")
    expect(dialog).to_contain_text(f"Archive {tee.name}?")
    expect(dialog.get_by_role("checkbox")).not_to_be_checked()  # the Printify product is kept unless ticked
    dialog.get_by_role("button", name="Archive").click()
    expect(admin.get_by_text("Product Archived", exact=True)).to_be_visible()
    expect(admin.get_by_test_id("editor-row")).to_have_count(0)
    admin.get_by_text("Archived", exact=True).click()  # the switch's label: the archived products
    expect(admin.get_by_test_id("editor-row").filter(has_text=tee.name)).to_have_count(1)

    open_page(admin, f"/product/{tee.product_id}")
    # The toast (the page's own not-found heading may show with it until the redirect lands).
    toasts = admin.get_by_role("region", name=re.compile("Notifications"))
    expect(toasts.get_by_text("Product not found", exact=True)).to_be_visible()
    expect(admin).to_have_url(f"{store.url}/products")
    open_page(admin, "/order-status")
    look_up(admin, number, "ada@example.com")
    expect(admin.get_by_test_id("order-card").get_by_test_id("order-line")).to_contain_text(tee.name)

    # Restore brings it back as it was before Archive: shown, so the store sells it again.
    open_page(admin, "/admin/dashboard")
    open_tab(admin, "Product Editor")
    admin.get_by_role("switch", name="Archived").set_checked(True)
    admin.get_by_placeholder("Search products...").fill(tee.name)
    archived = admin.get_by_test_id("editor-row").filter(has_text=tee.name)
    archived.get_by_role("button", name="Restore").click()
    expect(archived).to_have_count(0)
    open_page(admin, f"/product/{tee.product_id}")
    expect(admin.get_by_role("heading", name=tee.name)).to_be_visible()
    # Off the storefront again, so the shared store's later tests see the demo listing only.
    _take_off_storefront(admin, tee.name)
