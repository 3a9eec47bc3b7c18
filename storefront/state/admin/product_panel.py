"""ProductPanelState: the Combined Product Management panel (one product, its variant prices, publishing)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import reflex as rx

from storefront.services.admin import admin_catalog, product_forms, product_rows
from storefront.services.admin.product_rows import AdminProductRow
from storefront.state.admin.catalog_calls import error_toast, failure_text, log_unexpected, with_session
from storefront.state.admin.product_views import (
    EMPTY_DETAIL,
    ProductDetail,
    VariantPrice,
    to_detail,
    to_variant_price,
    variant_preview,
    variant_prices_from_form,
)
from storefront.state.admin.session import AdminState, admin_event
from storefront.wiring import session_scope

# The spec's texts (section 8).
PRODUCT_UPDATED = "Product Updated"
UPDATE_FAILED = "Update Failed"
PRODUCT_PUBLISHED_SUCCESSFULLY = "Product published successfully"
PUBLISHING_FAILED = "Publishing Failed"
PRODUCT_UNPUBLISHED = "Product Unpublished"

# Panel tabs.
PRODUCTS_TAB = "products"
PRICING_TAB = "pricing"
PUBLISHING_TAB = "publishing"


# --------------------------------------------------------------------------- service calls (in a thread)


def _product(product_id: str) -> tuple[AdminProductRow, list[str]]:
    with session_scope() as session:
        return product_rows.get_product_row(session, product_id), product_rows.mockup_urls(session, product_id)


def _set_prices(shop_id: str, product_id: str, prices: dict[int, object]) -> AdminProductRow:
    return with_session(admin_catalog.set_variant_prices, product_forms.parse_shop_id(shop_id), product_id, prices)


def _publish(shop_id: str, product_id: str) -> AdminProductRow:
    return with_session(admin_catalog.publish_product, product_forms.parse_shop_id(shop_id), product_id)


def _unpublish(shop_id: str, product_id: str) -> AdminProductRow:
    return with_session(admin_catalog.unpublish_product, product_forms.parse_shop_id(shop_id), product_id)


# --------------------------------------------------------------------------- the combined panel


class ProductPanelState(AdminState):
    """The Combined Product Management panel: one selected product, its variant prices and publishing."""

    tab: str = PRODUCTS_TAB
    detail: ProductDetail = EMPTY_DETAIL
    variant_preview: list[str] = []
    more_variants: int = 0
    variant_prices: list[VariantPrice] = []
    #: The selected product's mockups, one per colour.
    mockups: list[str] = []
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
        self.mockups = []
        self.tab = PRODUCTS_TAB

    def _show(self, row: AdminProductRow) -> None:
        """Show a product as it is now (after opening it or after a change)."""
        self.detail = to_detail(row)
        self.variant_preview, self.more_variants = variant_preview(row)
        self.variant_prices = [to_variant_price(v) for v in row.variants]
        self.revision += 1

    async def _update_list(self, row: AdminProductRow) -> None:
        """Show the change in the tab's product list too (call with the lock held)."""
        # Imported here, not at the top: the list's module imports this one (a shop change clears
        # the panel, a price sync refreshes it), and the two states reach each other at run time only.
        from storefront.state.admin.sync_pricing import SyncPricingState

        (await self.get_state(SyncPricingState))._replace_row(row)

    @rx.event
    @admin_event
    async def set_tab(self, value: str):
        self.tab = value
        return None

    @rx.event
    @admin_event
    async def select_product(self, product_id: str):
        """Open a product of the list in the panel (read from the catalogue cache)."""
        self.opening = True
        try:
            row, mockups = await asyncio.to_thread(_product, product_id)
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, f"opening {product_id}")
            return error_toast(admin_catalog.FAILED_TO_LOAD_PRODUCTS, failure_text(error, ""))
        finally:
            self.opening = False
        self._show(row)
        self.mockups = mockups
        return None

    @rx.event
    @admin_event
    async def edit_product(self):
        """'Edit Product': the Pricing tab for the selected product."""
        if self.has_selection:
            self.tab = PRICING_TAB
        return None

    @rx.event(background=True)
    @admin_event
    async def save_prices(self, form: dict[str, Any]):
        """Save the pricing editor: each variant at its own price."""
        async with self:
            if self.saving or not self.has_selection:
                return None
            shop_id, product_id, self.saving = self.detail["shop_id"], self.detail["id"], True
        try:
            row = await asyncio.to_thread(_set_prices, shop_id, product_id, variant_prices_from_form(form))
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, f"saving the prices of {product_id}")
            async with self:
                self.saving = False
            return error_toast(UPDATE_FAILED, failure_text(error, admin_catalog.FAILED_TO_UPDATE_PRODUCT))
        async with self:
            self.saving = False
            if self.detail["id"] == product_id:
                self._show(row)
            await self._update_list(row)
        return rx.toast.success(PRODUCT_UPDATED, description=row.title)

    @admin_event
    async def _publish_selected(
        self,
        action: Callable[[str, str], AdminProductRow],
        success: str,
        failure_title: str,
        failure_default: str,
    ) -> rx.event.EventSpec | None:
        """Publish or unpublish the selected product; returns the toast to show."""
        async with self:
            if self.publishing or not self.has_selection:
                return None
            shop_id, product_id, self.publishing = self.detail["shop_id"], self.detail["id"], True
        try:
            row = await asyncio.to_thread(action, shop_id, product_id)
        except Exception as error:  # noqa: BLE001 - logged (log_unexpected), the toast says it failed
            log_unexpected(error, f"publishing or unpublishing {product_id}")
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
