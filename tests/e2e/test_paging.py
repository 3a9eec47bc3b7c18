"""Lists page on the server: Load More appends one page, and an update stays small at any size."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocket, expect
from sqlmodel import Session

from storefront.db import make_engine, migrate
from storefront.services.catalog.sync import upsert_product
from storefront.state.catalog import PRODUCTS_PAGE_SIZE
from tests.e2e.browser import open_page
from tests.e2e.conftest import SharedStore, StoreProcess, StoreServer, shared_store
from tests.unit.catalog.test_catalog import printify_product

pytestmark = pytest.mark.reconfigures_store

CATALOGUE_SIZE = 1_000
UPDATE_BUDGET_BYTES = 30 * 1024
LOAD_MORES = 5


def seed_large_catalogue(data_dir: Path) -> None:
    """A store database holding CATALOGUE_SIZE shown products with long descriptions."""
    url = f"sqlite:///{data_dir / 'storefront.db'}"
    migrate(url)
    engine = make_engine(url)
    with Session(engine) as session:
        for i in range(CATALOGUE_SIZE):
            variants = [(100 + n, size, 2500 + n, True) for n, size in enumerate(["S", "M", "L", "XL", "2XL"])]
            product = printify_product(
                f"bulk{i:04d}",
                f"Bulk Classic Tee number {i:04d}",
                description="<p>" + "A long description no card shows. " * 40 + "</p>",
                variants=variants,
                created_at=f"2024-{1 + i % 12:02d}-{1 + i % 28:02d} 10:{i % 60:02d}:00+00:00",
            )
            upsert_product(session, product, 7)
        session.commit()
    engine.dispose()


@pytest.fixture(scope="module")
def large_catalogue(store: StoreServer, tmp_path_factory: pytest.TempPathFactory) -> SharedStore:
    """The demo store's settings on a database of CATALOGUE_SIZE products, seeded once: its tests only read it."""
    shared = shared_store(tmp_path_factory, "large-catalogue", {})
    seed_large_catalogue(shared.data_dir)
    return shared


@pytest.fixture
def large_store(store_process: StoreProcess, large_catalogue: SharedStore) -> StoreServer:
    return large_catalogue.serve(store_process)


def record_frames(page: Page) -> list[int]:
    """Sizes in bytes of every websocket frame the page receives from the store."""
    sizes: list[int] = []

    def watch(socket: WebSocket) -> None:
        socket.on(
            "framereceived",
            lambda payload: sizes.append(len(payload.encode() if isinstance(payload, str) else payload)),
        )

    page.on("websocket", watch)
    return sizes


def test_load_more_appends_one_page_and_every_update_stays_under_budget_with_1000_products(
    page: Page, large_store: StoreServer
) -> None:
    frames = record_frames(page)
    open_page(page, "/products")
    cards = page.get_by_test_id("product-card")
    expect(cards).to_have_count(PRODUCTS_PAGE_SIZE)
    for pages in range(2, LOAD_MORES + 2):
        page.get_by_role("button", name="Load More").click()
        expect(cards).to_have_count(pages * PRODUCTS_PAGE_SIZE)
    names = cards.get_by_test_id("product-name").all_text_contents()
    assert len(set(names)) == len(names), "a Load More repeated a product"
    assert frames, "no websocket frames were recorded"
    assert max(frames) <= UPDATE_BUDGET_BYTES, f"largest update {max(frames)} bytes: {sorted(frames)[-5:]}"
    print(
        f"\nlisting updates with {CATALOGUE_SIZE} products: largest {max(frames)} bytes over {len(frames)} frames"
    )


def test_a_collection_page_loads_more_and_counts_every_product(page: Page, large_store: StoreServer) -> None:
    open_page(page, "/collections")
    expect(page.get_by_test_id("product-count")).to_have_text(f"{CATALOGUE_SIZE} products")
    cards = page.get_by_test_id("product-card")
    expect(cards).to_have_count(PRODUCTS_PAGE_SIZE)
    page.get_by_role("button", name="Load More").click()
    expect(cards).to_have_count(2 * PRODUCTS_PAGE_SIZE)
    open_page(page, "/collections/swdnn")  # every bulk product derives to swdnn (its tags say SWDNN)
    expect(cards).to_have_count(PRODUCTS_PAGE_SIZE)
    page.get_by_role("button", name="Load More").click()
    expect(cards).to_have_count(2 * PRODUCTS_PAGE_SIZE)
