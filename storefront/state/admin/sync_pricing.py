"""The Sync & Pricing tab: the catalogue sync with its progress, per-product price sync, variant
margins, and the Combined Product Management panel (Products, Pricing, Publishing).

Rows hold display strings only and come a page at a time from the catalogue cache; the provider is
called in background events, never while the state lock is held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import reflex as rx

from storefront.db import session_scope
from storefront.services.admin import admin_catalog
from storefront.services.catalog import sync as catalog_sync
from storefront.services.admin.admin_catalog import AdminProductRow
from storefront.services.catalog.sync import SyncProgress
from storefront.services.platform.errors import ValidationError
from storefront.state.admin.catalog_calls import _log_unexpected, _provider, _with_session, error_toast, failure_text
from storefront.state.admin.product_rows import (
    EMPTY_DETAIL,
    MarginRow,
    ProductDetail,
    ProductRow,
    VariantPrice,
    price_text,
    progress_percent,
    to_detail,
    to_margin_row,
    to_row,
    to_variant_price,
    variant_preview,
    variant_prices_from_form,
)
from storefront.state.admin.session import AdminState
from storefront.state.admin.shops import ShopsState

PAGE_SIZE = 20

# The spec's texts (section 8).
PRICE_SYNCED = "Price Synced"
SYNC_FAILED = "Sync Failed"
PRODUCT_UPDATED = "Product Updated"
UPDATE_FAILED = "Update Failed"
PRODUCT_PUBLISHED_SUCCESSFULLY = "Product published successfully"
PUBLISHING_FAILED = "Publishing Failed"
PRODUCT_UNPUBLISHED = "Product Unpublished"
# Texts the spec does not show.
CATALOGUE_SYNCED = "Catalogue Synced"
MARGINS_FAILED = "Error Loading Margins"
GENERIC_FAILURE = "Something went wrong. Please try again."

# Panel tabs.
PRODUCTS_TAB = "products"
PRICING_TAB = "pricing"
PUBLISHING_TAB = "publishing"


# --------------------------------------------------------------------------- service calls (in a thread)


def _page(shop_id: str, offset: int) -> tuple[list[ProductRow], int]:
    with session_scope() as session:
        page = admin_catalog.product_page(
            session, shop_id=admin_catalog.parse_shop_id(shop_id), limit=PAGE_SIZE, offset=offset
        )
    return [to_row(row) for row in page.rows], page.total


def _sync(shop_id: str, progress: Callable[[SyncProgress], None]) -> catalog_sync.SyncResult:
    return _with_session(catalog_sync.sync_shop, admin_catalog.parse_shop_id(shop_id), progress)


def _sync_price(shop_id: str, product_id: str, price: object) -> AdminProductRow:
    return _with_session(admin_catalog.sync_price, admin_catalog.parse_shop_id(shop_id), product_id, price)


def _margins(shop_id: str, product_id: str) -> list[MarginRow]:
    margins = admin_catalog.variant_margins(_provider(), admin_catalog.parse_shop_id(shop_id), product_id)
    return [to_margin_row(margin) for margin in margins]


def _product(product_id: str) -> AdminProductRow:
    with session_scope() as session:
        return admin_catalog.get_product_row(session, product_id)


def _set_prices(shop_id: str, product_id: str, prices: dict[int, object]) -> AdminProductRow:
    return _with_session(admin_catalog.set_variant_prices, admin_catalog.parse_shop_id(shop_id), product_id, prices)


def _publish(shop_id: str, product_id: str) -> AdminProductRow:
    return _with_session(admin_catalog.publish_product, admin_catalog.parse_shop_id(shop_id), product_id)


def _unpublish(shop_id: str, product_id: str) -> AdminProductRow:
    return _with_session(admin_catalog.unpublish_product, admin_catalog.parse_shop_id(shop_id), product_id)


# --------------------------------------------------------------------------- the tab


class SyncPricingState(AdminState):
    """The selected shop's products a page at a time, the catalogue sync, price sync and margins."""

    rows: list[ProductRow] = []
    total: int = 0
    loading: bool = False
    loading_more: bool = False
    loaded: bool = False

    syncing: bool = False
    sync_done: int = 0
    sync_total: int = 0

    #: Id of the product whose price is being synced.
    pricing: str = ""

    margins_id: str = ""
    margins_title: str = ""
    margins: list[MarginRow] = []
    margins_loading: bool = False

    #: The shop the list shows; a different one clears the margins and the panel.
    _shop_id: str = ""
    #: Bumped by every reload, so a slower older answer never overwrites a newer one.
    _generation: int = 0

    @rx.var
    def has_more(self) -> bool:
        return len(self.rows) < self.total

    @rx.var
    def sync_percent(self) -> int:
        return progress_percent(self.sync_done, self.sync_total)

    def _replace_row(self, row: AdminProductRow) -> None:
        """Show a product as it is now in the list (it stays where it is)."""
        fresh = to_row(row)
        self.rows = [fresh if r["id"] == row.id else r for r in self.rows]

    @rx.event(background=True)
    async def load(self):
        """The first page of the selected shop's products (on showing the tab and on a shop change)."""
        return await self._fetch(reset=True)

    @rx.event(background=True)
    async def load_more(self):
        """Append the next page of products."""
        return await self._fetch(reset=False)

    async def _fetch(self, reset: bool) -> rx.event.EventSpec | None:
        """Load the first page afresh (reset) or append the next one."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            shop_id = (await self.get_state(ShopsState)).shop_id
            if not shop_id or (not reset and (self.loading or self.loading_more or not self.has_more)):
                return None
            if reset:
                self._generation += 1
                self.loading, offset = True, 0
                if shop_id != self._shop_id:
                    self._shop_id, self.rows, self.total, self.loaded = shop_id, [], 0, False
                    self.margins_id, self.margins_title, self.margins = "", "", []
                    (await self.get_state(ProductPanelState))._clear()
            else:
                self.loading_more, offset = True, len(self.rows)
            generation = self._generation
        try:
            rows, total = await asyncio.to_thread(_page, shop_id, offset)
        except Exception as error:
            _log_unexpected(error, "loading the shop's products")
            async with self:
                self.loading_more = False
                if generation == self._generation:
                    self.loading = False
            return rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)
        async with self:
            self.loading_more = False
            if generation != self._generation:  # a newer load owns the list
                return None
            if reset:
                self.rows, self.total, self.loading, self.loaded = rows, total, False, True
            elif offset == len(self.rows):
                known = {r["id"] for r in self.rows}
                self.rows = [*self.rows, *(r for r in rows if r["id"] not in known)]
                self.total = total
        return None

    @rx.event(background=True)
    async def sync_catalogue(self):
        """Copy the selected shop's products from the provider, showing products done of the total."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            shop_id = (await self.get_state(ShopsState)).shop_id
            if self.syncing or not shop_id:
                return None
            self.syncing, self.sync_done, self.sync_total = True, 0, 0
        loop = asyncio.get_running_loop()
        updates: asyncio.Queue[SyncProgress | None] = asyncio.Queue()

        def report(progress: SyncProgress) -> None:
            """Called in the sync's thread: hand the progress to the event loop."""
            loop.call_soon_threadsafe(updates.put_nowait, progress)

        job = asyncio.ensure_future(asyncio.to_thread(_sync, shop_id, report))
        # Reports were queued before the job's result, so this None arrives after all of them.
        job.add_done_callback(lambda _: updates.put_nowait(None))
        while (progress := await updates.get()) is not None:
            async with self:
                self.sync_done, self.sync_total = progress.done, progress.total
        try:
            result = job.result()
        except Exception as error:
            _log_unexpected(error, "syncing the catalogue")
            async with self:
                self.syncing = False
            return error_toast(SYNC_FAILED, failure_text(error, admin_catalog.FAILED_TO_LOAD_PRODUCTS))
        async with self:
            self.syncing = False
            self.sync_done = self.sync_total = max(self.sync_total, result.synced)
        return [
            rx.toast.success(
                CATALOGUE_SYNCED,
                description=f"{result.synced} products synced, {result.removed} removed.",
            ),
            SyncPricingState.load,
        ]

    @rx.event(background=True)
    async def sync_price(self, product_id: str, form: dict[str, Any]):
        """Set every variant of one product to the price typed in its row."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            row = next((r for r in self.rows if r["id"] == product_id), None)
            if row is None or self.pricing:
                return None
            self.pricing = product_id
        try:
            updated = await asyncio.to_thread(_sync_price, row["shop_id"], product_id, form.get("price"))
        except ValidationError as error:
            async with self:
                self.pricing = ""
            return error_toast(error.message)
        except Exception as error:
            _log_unexpected(error, f"syncing the price of {product_id}")
            async with self:
                self.pricing = ""
            return error_toast(SYNC_FAILED, admin_catalog.FAILED_TO_SYNC_PRICE_WITH_PRINTIFY)
        async with self:
            self.pricing = ""
            self._replace_row(updated)
            panel = await self.get_state(ProductPanelState)
            if panel.detail["id"] == product_id:
                panel._show(updated)
            margins_shown = self.margins_id == product_id
        synced = rx.toast.success(PRICE_SYNCED, description=f"{updated.title}: {price_text(updated.price_cents)}")
        return [synced, SyncPricingState.show_margins(product_id)] if margins_shown else synced

    @rx.event(background=True)
    async def show_margins(self, product_id: str):
        """Each variant's price, provider cost and margin for one product (costs come from the provider)."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            row = next((r for r in self.rows if r["id"] == product_id), None)
            if row is None:
                return None
            self.margins_id, self.margins_title, self.margins_loading = product_id, row["title"], True
        try:
            margins = await asyncio.to_thread(_margins, row["shop_id"], product_id)
        except Exception as error:
            _log_unexpected(error, f"loading the margins of {product_id}")
            async with self:
                if self.margins_id == product_id:
                    self.margins_id, self.margins_title, self.margins, self.margins_loading = "", "", [], False
            return error_toast(MARGINS_FAILED, failure_text(error, GENERIC_FAILURE))
        async with self:
            if self.margins_id == product_id:
                self.margins, self.margins_loading = margins, False
        return None


# --------------------------------------------------------------------------- the combined panel


class ProductPanelState(AdminState):
    """The Combined Product Management panel: one selected product, its variant prices and publishing."""

    tab: str = PRODUCTS_TAB
    detail: ProductDetail = EMPTY_DETAIL
    variant_preview: list[str] = []
    more_variants: int = 0
    variant_prices: list[VariantPrice] = []
    #: Bumped whenever the selection or its prices change, to reset the pricing editor's inputs.
    revision: int = 0
    opening: bool = False
    saving: bool = False
    publishing: bool = False

    @rx.var
    def has_selection(self) -> bool:
        return self.detail["id"] != ""

    @rx.var
    def editor_key(self) -> str:
        return f"{self.detail['id']}-{self.revision}"

    def _clear(self) -> None:
        self.detail, self.variant_preview, self.more_variants, self.variant_prices = EMPTY_DETAIL, [], 0, []
        self.tab = PRODUCTS_TAB

    def _show(self, row: AdminProductRow) -> None:
        """Show a product as it is now (after opening it or after a change)."""
        self.detail = to_detail(row)
        self.variant_preview, self.more_variants = variant_preview(row)
        self.variant_prices = [to_variant_price(v) for v in row.variants]
        self.revision += 1

    async def _update_list(self, row: AdminProductRow) -> None:
        """Show the change in the tab's product list too (call with the lock held)."""
        (await self.get_state(SyncPricingState))._replace_row(row)

    @rx.event
    async def set_tab(self, value: str):
        if await self._signed_in() is None:
            return self._to_login()
        self.tab = value
        return None

    @rx.event
    async def select_product(self, product_id: str):
        """Open a product of the list in the panel (read from the catalogue cache)."""
        if await self._signed_in() is None:
            return self._to_login()
        self.opening = True
        try:
            row = await asyncio.to_thread(_product, product_id)
        except Exception as error:
            _log_unexpected(error, f"opening {product_id}")
            return error_toast(admin_catalog.FAILED_TO_LOAD_PRODUCTS, failure_text(error, ""))
        finally:
            self.opening = False
        self._show(row)
        return None

    @rx.event
    async def edit_product(self):
        """'Edit Product': the Pricing tab for the selected product."""
        if await self._signed_in() is None:
            return self._to_login()
        if self.has_selection:
            self.tab = PRICING_TAB
        return None

    @rx.event(background=True)
    async def save_prices(self, form: dict[str, Any]):
        """Save the pricing editor: each variant at its own price."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.saving or not self.has_selection:
                return None
            shop_id, product_id, self.saving = self.detail["shop_id"], self.detail["id"], True
        try:
            row = await asyncio.to_thread(_set_prices, shop_id, product_id, variant_prices_from_form(form))
        except Exception as error:
            _log_unexpected(error, f"saving the prices of {product_id}")
            async with self:
                self.saving = False
            return error_toast(UPDATE_FAILED, failure_text(error, admin_catalog.FAILED_TO_UPDATE_PRODUCT))
        async with self:
            self.saving = False
            if self.detail["id"] == product_id:
                self._show(row)
            await self._update_list(row)
        return rx.toast.success(PRODUCT_UPDATED, description=row.title)

    async def _publish_selected(
        self,
        action: Callable[[str, str], AdminProductRow],
        success: str,
        failure_title: str,
        failure_default: str,
    ) -> rx.event.EventSpec | None:
        """Publish or unpublish the selected product; returns the toast to show."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.publishing or not self.has_selection:
                return None
            shop_id, product_id, self.publishing = self.detail["shop_id"], self.detail["id"], True
        try:
            row = await asyncio.to_thread(action, shop_id, product_id)
        except Exception as error:
            _log_unexpected(error, f"publishing or unpublishing {product_id}")
            async with self:
                self.publishing = False
            return error_toast(failure_title, failure_text(error, failure_default))
        async with self:
            self.publishing = False
            if self.detail["id"] == product_id:
                self._show(row)
            await self._update_list(row)
        return rx.toast.success(success, description=row.title)

    @rx.event(background=True)
    async def publish_from_details(self):
        """'Publish Product' on the Products tab."""
        return await self._publish_selected(
            _publish, PRODUCT_PUBLISHED_SUCCESSFULLY, admin_catalog.FAILED_TO_PUBLISH_PRODUCT, ""
        )

    @rx.event(background=True)
    async def publish(self):
        """'Publish' or 'Republish' on the Publishing tab."""
        return await self._publish_selected(
            _publish, PRODUCT_PUBLISHED_SUCCESSFULLY, PUBLISHING_FAILED, admin_catalog.FAILED_TO_PUBLISH_PRODUCT
        )

    @rx.event(background=True)
    async def unpublish(self):
        """'Unpublish' on the Publishing tab."""
        return await self._publish_selected(
            _unpublish, PRODUCT_UNPUBLISHED, PUBLISHING_FAILED, admin_catalog.FAILED_TO_PUBLISH_OR_UNPUBLISH
        )
