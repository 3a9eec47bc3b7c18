"""The Categories tab: collection summary cards and product rows with category and visibility,
both changed optimistically and put back when the change fails."""

from __future__ import annotations

import asyncio
import logging
from typing import TypedDict

import reflex as rx

from storefront.config import get_settings
from storefront.db import session_scope
from storefront.services.admin import admin_catalog, product_forms, product_rows
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.money import format_usd
from storefront.state.admin.session import AdminState
from storefront.state.admin.shops import current_shop
from storefront.wiring import shared_print_provider

log = logging.getLogger(__name__)

PAGE_SIZE = 20
CATEGORY_UPDATED = "Category Updated"
PRODUCT_PUBLISHED = "Product Published"
PRODUCT_UNPUBLISHED = "Product Unpublished"


class SummaryCard(TypedDict):
    key: str
    label: str
    title: str
    route: str
    counts: str
    names: list[str]
    more: int


class CategoryRow(TypedDict):
    id: str
    name: str
    price: str
    category: str
    is_active: bool


def to_card(summary: product_rows.CollectionSummary) -> SummaryCard:
    return SummaryCard(
        key=summary.key,
        label=summary.label,
        title=summary.title,
        route=summary.route,
        counts=f"{summary.visible}/{summary.total}",
        names=list(summary.preview_names),
        more=summary.more,
    )


def to_row(row: product_rows.AdminProductRow) -> CategoryRow:
    return CategoryRow(
        id=row.id,
        name=row.title,
        price="N/A" if row.price_cents is None else format_usd(row.price_cents),
        category=row.category,
        is_active=row.is_active,
    )


def _load(shop_id: str, offset: int) -> tuple[list[SummaryCard], product_rows.ProductPage]:
    shop = product_forms.parse_shop_id(shop_id)
    with session_scope() as session:
        cards = [to_card(s) for s in product_rows.collection_summaries(session, shop_id=shop)]
        return cards, product_rows.product_page(session, shop_id=shop, limit=PAGE_SIZE, offset=offset)


def _summaries(shop_id: str) -> list[SummaryCard]:
    with session_scope() as session:
        return [to_card(s) for s in product_rows.collection_summaries(session, shop_id=product_forms.parse_shop_id(shop_id))]


def _set_category(shop_id: str, product_id: str, category: str) -> None:
    with session_scope() as session:
        admin_catalog.set_category(
            session, shared_print_provider(get_settings()), product_forms.parse_shop_id(shop_id), product_id, category
        )


def _set_visibility(product_id: str, active: bool) -> None:
    with session_scope() as session:
        admin_catalog.set_visibility(session, product_id, active)


def category_failure(error: Exception) -> str:
    """Which of the spec's messages a failed category change gets: the cache's or the provider's."""
    if isinstance(error, admin_catalog.CatalogueWriteError):
        return admin_catalog.FAILED_TO_UPDATE_CATEGORY
    return admin_catalog.FAILED_TO_UPDATE_IN_PRINTIFY


class CategoriesState(AdminState):
    summaries: list[SummaryCard] = []
    rows: list[CategoryRow] = []
    total: int = 0
    loading: bool = False

    @rx.var
    def has_more(self) -> bool:
        return len(self.rows) < self.total

    @rx.event(background=True)
    async def load(self):
        async for event in self._fetch(reset=True):
            yield event

    @rx.event(background=True)
    async def load_more(self):
        async for event in self._fetch(reset=False):
            yield event

    async def _fetch(self, reset: bool):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            self.loading, offset = True, 0 if reset else len(self.rows)
        shop_id = await current_shop(self)
        try:
            cards, page = await asyncio.to_thread(_load, shop_id, offset)
        except Exception:  # noqa: BLE001 - shown as the spec's toast
            log.exception("loading the categories failed")
            async with self:
                self.loading = False
            yield rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)
            return
        async with self:
            fresh = [to_row(row) for row in page.rows]
            self.summaries, self.total, self.loading = cards, page.total, False
            self.rows = fresh if reset else [*self.rows, *fresh]

    def _patch(self, product_id: str, **values: object) -> CategoryRow | None:
        """Change one row in place; returns the row as it was."""
        for index, row in enumerate(self.rows):
            if row["id"] == product_id:
                self.rows[index] = {**row, **values}  # type: ignore[typeddict-item]
                return row
        return None

    async def _refresh_summaries(self, shop_id: str) -> None:
        try:
            cards = await asyncio.to_thread(_summaries, shop_id)
        except Exception:  # noqa: BLE001 - the cards stay as they were; the change itself went through
            log.exception("refreshing the collection cards failed")
            return
        async with self:
            self.summaries = cards

    @rx.event(background=True)
    async def set_category(self, product_id: str, category: str):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            before = self._patch(product_id, category=category)
        if before is None or before["category"] == category:
            return
        shop_id = await current_shop(self)
        try:
            await asyncio.to_thread(_set_category, shop_id, product_id, category)
        except Exception as error:  # noqa: BLE001 - any failure puts the old placement back
            if not isinstance(error, ServiceError):
                log.exception("changing the category of %s failed", product_id)
            async with self:
                self._patch(product_id, category=before["category"])
            yield rx.toast.error(category_failure(error))
            return
        yield rx.toast.success(CATEGORY_UPDATED, description=f"{before['name']} is now in {category.upper()}.")
        await self._refresh_summaries(shop_id)

    @rx.event(background=True)
    async def set_visibility(self, product_id: str, active: bool):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            before = self._patch(product_id, is_active=active)
        if before is None:
            return
        try:
            await asyncio.to_thread(_set_visibility, product_id, active)
        except Exception:  # noqa: BLE001 - any failure puts the old visibility back
            log.exception("changing the visibility of %s failed", product_id)
            async with self:
                self._patch(product_id, is_active=before["is_active"])
            yield rx.toast.error(admin_catalog.FAILED_TO_PUBLISH_OR_UNPUBLISH)
            return
        yield rx.toast.success(PRODUCT_PUBLISHED if active else PRODUCT_UNPUBLISHED, description=before["name"])
        await self._refresh_summaries(await current_shop(self))
