"""The Categories tab: collection summary cards and product rows with category and visibility,
both changed optimistically and put back when the change fails."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TypedDict

import reflex as rx

from storefront.services.admin import admin_catalog, product_forms, product_rows
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.money import format_usd
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.session import AdminState, admin_event
from storefront.state.admin.shops import current_shop
from storefront.wiring import services, session_scope

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
    #: The product's small picture beside its name ("" for none).
    thumbnail: str
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
        thumbnail=row.thumbnail,
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
        return [
            to_card(s) for s in product_rows.collection_summaries(session, shop_id=product_forms.parse_shop_id(shop_id))
        ]


def _set_category(shop_id: str, product_id: str, category: str) -> None:
    with session_scope() as session:
        admin_catalog.set_category(
            session, services().provider, product_forms.parse_shop_id(shop_id), product_id, category
        )


def _set_visibility(product_id: str, active: bool) -> None:
    with session_scope() as session:
        admin_catalog.set_visibility(session, product_id, active)


def category_failure(error: Exception) -> str:
    """Which of the spec's messages a failed category change gets: the cache's or the provider's."""
    if isinstance(error, admin_catalog.CatalogueWriteError):
        return admin_catalog.FAILED_TO_UPDATE_CATEGORY
    return admin_catalog.FAILED_TO_UPDATE_IN_PRINTIFY


@dataclass(frozen=True)
class CategoriesPage(Page):
    """A page of product rows with the collection cards, which every page refreshes."""

    summaries: list[SummaryCard] = field(default_factory=list)


class CategoriesState(PagedAdminState, AdminState):
    """The collection cards and the selected shop's products, a page at a time."""

    summaries: list[SummaryCard] = []
    rows: list[CategoryRow] = []

    async def _fetch_page(self, request: PageRequest) -> Page:
        """A page of the selected shop's products, and the collection cards as they are now."""
        shop_id = await current_shop(self)
        cards, page = await asyncio.to_thread(_load, shop_id, request.offset)
        rows = [to_row(row) for row in page.rows]
        return CategoriesPage(
            rows=rows, more=request.offset + len(rows) < page.total, total=page.total, summaries=cards
        )

    def _page_failed(self) -> rx.event.EventSpec:
        return rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)

    def _page_shown(self, page: Page, reset: bool) -> None:
        if isinstance(page, CategoriesPage):
            self.summaries = page.summaries

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
        except Exception:  # the cards stay as they were; the change itself went through
            log.exception("refreshing the collection cards failed")
            return
        async with self:
            self.summaries = cards

    @rx.event(background=True)
    @admin_event
    async def set_category(self, product_id: str, category: str):
        async with self:
            before = self._patch(product_id, category=category)
        if before is None or before["category"] == category:
            return
        shop_id = await current_shop(self)
        try:
            await asyncio.to_thread(_set_category, shop_id, product_id, category)
        except Exception as error:  # any failure puts the old placement back
            if not isinstance(error, ServiceError):
                log.exception("changing the category of %s failed", product_id)
            async with self:
                self._patch(product_id, category=before["category"])
            yield rx.toast.error(category_failure(error))
            return
        yield rx.toast.success(CATEGORY_UPDATED, description=f"{before['name']} is now in {category.upper()}.")
        await self._refresh_summaries(shop_id)

    @rx.event(background=True)
    @admin_event
    async def set_visibility(self, product_id: str, active: bool):
        async with self:
            before = self._patch(product_id, is_active=active)
        if before is None:
            return
        try:
            await asyncio.to_thread(_set_visibility, product_id, active)
        except Exception:  # any failure puts the old visibility back
            log.exception("changing the visibility of %s failed", product_id)
            async with self:
                self._patch(product_id, is_active=before["is_active"])
            yield rx.toast.error(admin_catalog.FAILED_TO_PUBLISH_OR_UNPUBLISH)
            return
        yield rx.toast.success(PRODUCT_PUBLISHED if active else PRODUCT_UNPUBLISHED, description=before["name"])
        await self._refresh_summaries(await current_shop(self))
