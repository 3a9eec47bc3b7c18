"""The Sync & Pricing tab's state (SyncPricingState): the catalogue sync with its progress, per-product
price sync and variant margins; the Combined Product Management panel's state is in product_panel.py.

Rows hold display strings only and come a page at a time from the catalogue cache; the provider is
called in background events, never while the state lock is held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypedDict

import reflex as rx

from storefront.services.admin import admin_catalog, product_forms, product_margins, product_rows
from storefront.services.admin.base_price import BelowCostError
from storefront.services.admin.product_rows import AdminProductRow
from storefront.services.catalog import sync as catalog_sync
from storefront.services.catalog.sync import SyncProgress
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import format_usd
from storefront.services.staff.activity import Actor
from storefront.state.admin.catalog_calls import (
    error_toast,
    failure_text,
    log_unexpected,
    shared_provider,
    with_session,
)
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.product_panel import ProductPanelState
from storefront.state.admin.product_views import (
    MarginRow,
    ProductRow,
    price_text,
    progress_percent,
    to_margin_row,
    to_row,
)
from storefront.state.admin.session import AdminState, admin_event
from storefront.state.admin.shops import ShopsState
from storefront.state.scrolling import scroll_into_view
from storefront.wiring import session_scope

PAGE_SIZE = 20

#: The margins card's element id: show_margins scrolls the page to it.
MARGINS_CARD_ID = "margins-card"


class PriceConfirmation(TypedDict):
    """The Sync Price confirmation: which product, its new base price, and, once the service
    refused it, which variants it would sell below provider cost."""

    id: str
    title: str
    #: '$27.50'.
    price: str
    #: As typed, sent once confirmed.
    price_value: str
    note: str
    below_cost: str


NO_CONFIRMATION = PriceConfirmation(id="", title="", price="", price_value="", note="", below_cost="")

# The spec's texts (section 8).
PRICE_SYNCED = "Price Synced"
SYNC_FAILED = "Sync Failed"
# Texts the spec does not show.
CATALOGUE_SYNCED = "Catalogue Synced"
MARGINS_FAILED = "Error Loading Margins"
GENERIC_FAILURE = "Something went wrong. Please try again."


# --------------------------------------------------------------------------- service calls (in a thread)


def _page(shop_id: str, offset: int) -> tuple[list[ProductRow], int]:
    with session_scope() as session:
        page = product_rows.product_page(
            session, shop_id=product_forms.parse_shop_id(shop_id), limit=PAGE_SIZE, offset=offset
        )
    return [to_row(row) for row in page.rows], page.total


def _sync(shop_id: str, progress: Callable[[SyncProgress], None]) -> catalog_sync.SyncResult:
    return with_session(catalog_sync.sync_shop, product_forms.parse_shop_id(shop_id), progress)


def _sync_price(
    shop_id: str, product_id: str, price: object, below_cost_confirmed: bool, actor: Actor
) -> AdminProductRow:
    return with_session(
        admin_catalog.sync_price, product_forms.parse_shop_id(shop_id), product_id, price,
        below_cost_confirmed=below_cost_confirmed, actor=actor,
    )


def _margins(shop_id: str, product_id: str) -> list[MarginRow]:
    margins = product_margins.variant_margins(shared_provider(), product_forms.parse_shop_id(shop_id), product_id)
    return [to_margin_row(margin) for margin in margins]


# --------------------------------------------------------------------------- the tab


class SyncPricingState(PagedAdminState, AdminState):
    """The selected shop's products a page at a time, the catalogue sync, price sync and margins."""

    rows: list[ProductRow] = []

    syncing: bool = False
    sync_done: int = 0
    sync_total: int = 0

    #: Id of the product whose price is being synced.
    pricing: str = ""
    #: The open Sync Price confirmation (its id is "" when none is open).
    confirm_price: PriceConfirmation = NO_CONFIRMATION

    margins_id: str = ""
    margins_title: str = ""
    margins: list[MarginRow] = []
    margins_loading: bool = False

    #: The shop the list shows; a different one clears the margins and the panel.
    _shop_id: str = ""
    @rx.var
    def sync_percent(self) -> int:
        return progress_percent(self.sync_done, self.sync_total)

    def _replace_row(self, row: AdminProductRow) -> None:
        """Show a product as it is now in the list (it stays where it is)."""
        fresh = to_row(row)
        self.rows = [fresh if r["id"] == row.id else r for r in self.rows]

    # ----------------------------------------------------------------------- the list (PagedAdminState)
    # `load` shows the first page (on showing the tab and on a shop change), `load_more` the next.

    async def _page_params(self) -> str | None:
        return (await self.get_state(ShopsState)).shop_id or None

    async def _page_started(self, request: PageRequest, reset: bool) -> None:
        """Another shop's first page: the last shop's rows, margins and panel go at once."""
        if reset and request.params != self._shop_id:
            self._shop_id, self.rows, self.total, self.has_more, self.loaded = request.params, [], 0, False, False
            self.margins_id, self.margins_title, self.margins = "", "", []
            (await self.get_state(ProductPanelState))._clear()

    async def _fetch_page(self, request: PageRequest) -> Page:
        rows, total = await asyncio.to_thread(_page, request.params, request.offset)
        return Page(rows=rows, more=request.offset + len(rows) < total, total=total)

    def _page_failed(self) -> rx.event.EventSpec:
        return rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)

    @rx.event(background=True)
    @admin_event
    async def sync_catalogue(self):
        """Copy the selected shop's products from the provider, showing products done of the total."""
        async with self:
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
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, "syncing the catalogue")
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

    @rx.event
    @admin_event
    async def ask_sync_price(self, product_id: str, form: dict[str, Any]):
        """Before anything is sent: a confirmation naming the product and its new base price."""
        row = next((r for r in self.rows if r["id"] == product_id), None)
        if row is None or self.pricing:
            return None
        try:
            cents = product_forms.parse_price(form.get("price"))
        except ValidationError as error:
            return error_toast(error.message)
        self.confirm_price = PriceConfirmation(
            id=product_id, title=row["title"], price=format_usd(cents), price_value=str(form.get("price")),
            note=row["price_note"], below_cost="",
        )
        return None

    @rx.event
    @admin_event
    async def cancel_sync_price(self):
        self.confirm_price = NO_CONFIRMATION
        return None

    @rx.event(background=True)
    @admin_event
    async def sync_price(self):
        """Move the confirmed product to its new base price (every variant by the same amount); a
        price below provider cost asks once more, naming the variants."""
        async with self:
            asked = self.confirm_price
            row = next((r for r in self.rows if r["id"] == asked["id"]), None)
            if row is None or self.pricing:
                return None
            product_id, self.pricing = asked["id"], asked["id"]
        actor = await self._actor()
        try:
            updated = await asyncio.to_thread(
                _sync_price, row["shop_id"], product_id, asked["price_value"], bool(asked["below_cost"]), actor
            )
        except BelowCostError as error:
            async with self:
                self.pricing = ""
                self.confirm_price = PriceConfirmation(**{**asked, "below_cost": error.message})  # type: ignore[typeddict-item]
            return None
        except ValidationError as error:
            async with self:
                self.pricing, self.confirm_price = "", NO_CONFIRMATION
            return error_toast(error.message)
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, f"syncing the price of {product_id}")
            async with self:
                self.pricing, self.confirm_price = "", NO_CONFIRMATION
            return error_toast(SYNC_FAILED, admin_catalog.FAILED_TO_SYNC_PRICE_WITH_PRINTIFY)
        async with self:
            self.pricing, self.confirm_price = "", NO_CONFIRMATION
            self._replace_row(updated)
            panel = await self.get_state(ProductPanelState)
            if panel.detail["id"] == product_id:
                panel._show(updated)
            margins_shown = self.margins_id == product_id
        synced = rx.toast.success(PRICE_SYNCED, description=f"{updated.title}: {price_text(updated.price_cents)}")
        return [synced, SyncPricingState.refresh_margins(product_id)] if margins_shown else synced

    @rx.event(background=True)
    @admin_event
    async def show_margins(self, product_id: str):
        """Each variant's price, provider cost and margin for one product (costs come from the provider).

        The card opens below the whole price list, out of sight on a phone, so the page scrolls to
        it as soon as it shows, before its rows arrive."""
        async with self:
            row = next((r for r in self.rows if r["id"] == product_id), None)
            if row is None:
                return
            self.margins_id, self.margins_title, self.margins_loading = product_id, row["title"], True
        yield scroll_into_view(MARGINS_CARD_ID)
        if (failed := await self._load_margins(row["shop_id"], product_id)) is not None:
            yield failed

    @rx.event(background=True)
    @admin_event
    async def refresh_margins(self, product_id: str):
        """The shown product's margins again after its price changed; the page stays where it is."""
        async with self:
            row = next((r for r in self.rows if r["id"] == product_id), None)
            if row is None or self.margins_id != product_id:
                return None
            self.margins_loading = True
        return await self._load_margins(row["shop_id"], product_id)

    async def _load_margins(self, shop_id: str, product_id: str) -> rx.event.EventSpec | None:
        """Fetch the margins off the state lock and show them, unless another product's were asked
        for meanwhile; a failure closes the card and answers a toast."""
        try:
            margins = await asyncio.to_thread(_margins, shop_id, product_id)
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, f"loading the margins of {product_id}")
            async with self:
                if self.margins_id == product_id:
                    self.margins_id, self.margins_title, self.margins, self.margins_loading = "", "", [], False
            return error_toast(MARGINS_FAILED, failure_text(error, GENERIC_FAILURE))
        async with self:
            if self.margins_id == product_id:
                self.margins, self.margins_loading = margins, False
        return None
