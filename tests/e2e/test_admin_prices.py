"""Staff change a price and nothing they did not touch moves: the sizes' upcharges are kept by the
editor's Save and by Sync Price, Sync Price asks first, and a price below cost asks by name."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from tests.e2e.admin import editor_row, open_tab
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer

#: The products a page of the Sync & Pricing list holds, in its order (newest first).
PAGE_SIZE = 20


def _query(store: StoreServer, sql: str, **params: object) -> list[dict]:
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            return [dict(row) for row in connection.execute(text(sql), params).mappings()]
    finally:
        engine.dispose()


def _with_upcharges(store: StoreServer, index: int) -> dict:
    """A shown product of the list's first page whose sizes sell at different prices (never the
    newest, which other tests edit); `index` picks a different one for each test."""
    rows = _query(
        store,
        "SELECT p.id, p.title FROM catalog_product p WHERE p.is_active AND p.is_published "
        "AND (SELECT count(DISTINCT v.price_cents) FROM catalog_variant v "
        "WHERE v.product_id = p.id AND v.is_enabled) > 1 "
        "AND p.id IN (SELECT id FROM catalog_product ORDER BY provider_created_at IS NULL, provider_created_at DESC, "
        "title, id LIMIT :page OFFSET 1)"
        "ORDER BY p.provider_created_at IS NULL, p.provider_created_at DESC, p.title, p.id",
        page=PAGE_SIZE - 1,
    )
    assert len(rows) > index, rows
    return rows[index]


def _prices(store: StoreServer, product_id: str) -> list[int]:
    rows = _query(
        store, "SELECT price_cents FROM catalog_variant WHERE product_id = :p ORDER BY sort_order", p=product_id
    )
    return [row["price_cents"] for row in rows]


def _base(store: StoreServer, product_id: str) -> int:
    rows = _query(
        store,
        "SELECT price_cents FROM catalog_variant WHERE product_id = :p AND is_enabled ORDER BY sort_order LIMIT 1",
        p=product_id,
    )
    return rows[0]["price_cents"]


def test_a_title_save_keeps_every_size_price_and_a_new_price_keeps_the_upcharges(
    admin: Page, store: StoreServer
) -> None:
    product = _with_upcharges(store, 0)
    before, base = _prices(store, product["id"]), _base(store, product["id"])
    row = editor_row(admin, product["title"], edit=True)
    upcharges = sorted({p - base for p in before if p > base})
    note = "Base price; larger sizes keep their " + " / ".join(f"+${cents / 100:.2f}" for cents in upcharges)
    expect(row.get_by_test_id("price-note")).to_have_text(note)

    renamed = f"{product['title']} Classic"
    row.get_by_label("Title").fill(renamed)
    row.get_by_role("button", name="Save").click()
    expect(row).to_contain_text(renamed)
    expect(row.get_by_role("button", name="Edit")).to_be_visible()
    assert _prices(store, product["id"]) == before

    row = editor_row(admin, renamed, edit=True)
    row.get_by_label("Price").fill("40.00")
    row.get_by_role("button", name="Save").click()
    expect(row).to_contain_text("$40.00")
    assert _prices(store, product["id"]) == [p - base + 4000 for p in before]

    open_page(admin, f"/product/{product['id']}")
    expect(admin.get_by_test_id("product-price")).to_have_text("$40.00")


def test_sync_price_asks_first_naming_the_product_and_its_new_base_price(admin: Page, store: StoreServer) -> None:
    product = _with_upcharges(store, 1)
    before, base = _prices(store, product["id"]), _base(store, product["id"])
    open_tab(admin, "Sync & Pricing")
    row = admin.get_by_test_id("price-row").filter(has_text=product["title"])
    expect(row.get_by_test_id("price-note")).to_contain_text("Base price; larger sizes keep their +$")

    row.get_by_label("New price").fill("41.5")
    row.get_by_role("button", name="Sync Price").click()
    dialog = admin.get_by_role("alertdialog")
    expect(dialog).to_contain_text(f"Set the base price of {product['title']} to $41.50?")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    assert _prices(store, product["id"]) == before

    row.get_by_role("button", name="Sync Price").click()
    dialog.get_by_role("button", name="Sync Price").click()
    expect(admin.get_by_text("Price Synced", exact=True)).to_be_visible()
    expect(row.get_by_test_id("current-price")).to_have_text("$41.50")
    assert _prices(store, product["id"]) == [p - base + 4150 for p in before]


def test_a_price_below_cost_is_saved_only_after_staff_confirm_the_named_sizes(admin: Page, store: StoreServer) -> None:
    product = _with_upcharges(store, 2)
    before, base = _prices(store, product["id"]), _base(store, product["id"])
    row = editor_row(admin, product["title"], edit=True)
    row.get_by_label("Price").fill("5.00")
    row.get_by_role("button", name="Save").click()
    warning = row.get_by_test_id("below-cost")
    expect(warning).to_contain_text("Below provider cost at this price: ")
    expect(warning).to_contain_text(" / ")  # the variants, by name ('Black / S')
    expect(admin.get_by_text("Update Failed", exact=True)).to_have_count(0)  # asked at the row, not in a toast
    assert _prices(store, product["id"]) == before

    row.get_by_role("button", name="Sell Below Cost").click()
    expect(row).to_contain_text("$5.00")
    assert _prices(store, product["id"]) == [p - base + 500 for p in before]


def test_the_editor_edits_a_description_as_text_with_a_preview_and_saves_sanitised_html(
    admin: Page, store: StoreServer
) -> None:
    product = _with_upcharges(store, 2)
    before = _prices(store, product["id"])
    row = editor_row(admin, product["title"], edit=True)
    description = row.get_by_label("Description")
    expect(description).not_to_have_value(re.compile(r"<p>|</"))
    description.fill("Soft and warm.\n\n- Cotton\n- Unisex <b>fit</b>")
    preview = row.get_by_test_id("description-preview")
    expect(preview.locator("li")).to_have_text(["Cotton", "Unisex <b>fit</b>"])
    row.get_by_role("button", name="Save").click()
    expect(row.get_by_role("button", name="Edit")).to_be_visible()
    [saved] = _query(store, "SELECT description FROM catalog_product WHERE id = :p", p=product["id"])
    assert saved["description"] == "<p>Soft and warm.</p><ul><li>Cotton</li><li>Unisex &lt;b&gt;fit&lt;/b&gt;</li></ul>"
    assert _prices(store, product["id"]) == before
