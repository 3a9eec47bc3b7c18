"""The Product Editor tab: a page of product rows edited inline, Save per row and Save All."""

from __future__ import annotations

import asyncio
import logging
from typing import TypedDict

import reflex as rx

from storefront.db import session_scope
from storefront.services.admin import admin_catalog, admin_editor, base_price, product_forms, product_rows
from storefront.services.platform.errors import ServiceError
from storefront.state.admin.catalog_calls import failure_text, log_unexpected, with_session
from storefront.state.admin.session import AdminState
from storefront.state.admin.shops import current_shop

log = logging.getLogger(__name__)

PAGE_SIZE = 20


class EditorRow(TypedDict):
    """One product in the editor: the values being typed and the originals they started from."""

    id: str
    title: str
    #: As the provider holds it (HTML), edited as such.
    description: str
    #: The description as plain text, for the row's view.
    summary: str
    price: str
    category: str
    status: str
    original_title: str
    original_description: str
    original_price: str
    original_category: str
    editing: bool
    error: str
    #: What the price field means for the sizes: 'Base price; larger sizes keep their +$2.00 / +$3.00'.
    price_note: str
    #: Set when a save was refused because the price sells variants below provider cost (names them).
    below_cost: str


def to_editor_row(row: product_rows.AdminProductRow) -> EditorRow:
    values = {
        "title": row.title,
        "description": row.description_html,
        "price": product_rows.dollars(row.price_cents) or "",
        "category": row.category,
    }
    return EditorRow(
        id=row.id,
        summary=row.description,
        status=row.status,
        editing=False,
        error="",
        price_note=row.price_note,
        below_cost="",
        **values,  # type: ignore[typeddict-item]
        **{f"original_{k}": v for k, v in values.items()},  # type: ignore[typeddict-item]
    )


def _page(shop_id: str, query: str, offset: int, archived: bool) -> product_rows.ProductPage:
    with session_scope() as session:
        return product_rows.product_page(
            session, shop_id=product_forms.parse_shop_id(shop_id), query=query, limit=PAGE_SIZE, offset=offset,
            archived=archived,
        )


def _restore(product_id: str) -> product_rows.AdminProductRow:
    with session_scope() as session:
        return admin_catalog.restore_product(session, product_id)


def _save(shop_id: str, row: EditorRow, below_cost_confirmed: bool = False) -> product_rows.AdminProductRow:
    return with_session(
        admin_catalog.update_product,
        product_forms.parse_shop_id(shop_id),
        row["id"],
        title=row["title"],
        description=row["description"],
        price=row["price"],
        category=row["category"],
        below_cost_confirmed=below_cost_confirmed,
    )


class ProductEditorState(AdminState):
    """Rows of the selected shop; `saving` blocks every other save until the running one ends."""

    query: str = ""
    rows: list[EditorRow] = []
    total: int = 0
    loading: bool = False
    saving: bool = False
    #: The archived products instead of the others.
    show_archived: bool = False
    #: The product the Archive confirmation is open for ("" when closed), and its choices.
    archive_id: str = ""
    archive_title: str = ""
    archive_delete: bool = False

    @rx.var
    def has_more(self) -> bool:
        return len(self.rows) < self.total

    @rx.event(background=True)
    async def load(self):
        """The first page for the selected shop and search."""
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
            self.loading, query, offset = True, self.query, 0 if reset else len(self.rows)
            archived = self.show_archived
        shop_id = await current_shop(self)
        try:
            page = await asyncio.to_thread(_page, shop_id, query, offset, archived)
        except Exception:  # noqa: BLE001 - the provider or database may fail; the toast says so
            log.exception("loading the editor's products failed")
            async with self:
                self.loading = False
            yield rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)
            return
        async with self:
            if query == self.query and archived == self.show_archived:  # a newer search owns it otherwise
                fresh = [to_editor_row(row) for row in page.rows]
                self.rows = fresh if reset else [*self.rows, *fresh]
                self.total = page.total
            self.loading = False

    @rx.event
    async def set_query(self, value: str):
        if await self._signed_in() is None:
            return self._to_login()
        self.query = value
        return ProductEditorState.load

    def _update_row(self, product_id: str, **values: object) -> EditorRow | None:
        for index, row in enumerate(self.rows):
            if row["id"] == product_id:
                self.rows[index] = {**row, **values}  # type: ignore[typeddict-item]
                return self.rows[index]
        return None

    def _drop_row(self, product_id: str) -> None:
        """A product that left this list (archived, or restored out of the archived ones)."""
        self.rows = [r for r in self.rows if r["id"] != product_id]
        self.total = max(0, self.total - 1)

    @rx.event
    async def start_edit(self, product_id: str):
        if await self._signed_in() is None:
            return self._to_login()
        self._update_row(product_id, editing=True, error="")
        return None

    @rx.event
    async def set_field(self, product_id: str, field: str, value: str):
        if await self._signed_in() is None:
            return self._to_login()
        if field in admin_editor.EDITABLE_FIELDS:
            # A confirmation to sell below cost was for the price it named, not for a new one.
            self._update_row(product_id, **{field: value}, below_cost="")
        return None

    @rx.event
    async def cancel(self, product_id: str):
        """Back to the originals."""
        if await self._signed_in() is None:
            return self._to_login()
        for row in self.rows:
            if row["id"] == product_id:
                originals = {f: row[f"original_{f}"] for f in admin_editor.EDITABLE_FIELDS}  # type: ignore[literal-required]
                self._update_row(product_id, editing=False, error="", below_cost="", **originals)
        return None

    async def _save_rows(self, rows: list[EditorRow], below_cost_confirmed: bool = False) -> tuple[int, list[str]]:
        """Save each row in turn; returns how many were saved and the failures' messages. A row whose
        price would sell below cost is kept with the confirmation to give (its own Save asks)."""
        shop_id = await current_shop(self)
        saved, failures = 0, []
        for row in rows:
            try:
                fresh = await asyncio.to_thread(_save, shop_id, row, below_cost_confirmed)
            except base_price.BelowCostError as error:
                async with self:
                    self._update_row(row["id"], error="", below_cost=error.message)
                failures.append(error.message)
                continue
            except ServiceError as error:
                message = error.message or admin_editor.UPDATE_FAILED_TEXT
                async with self:
                    self._update_row(row["id"], error=message)
                failures.append(message)
                continue
            except Exception:  # noqa: BLE001 - reported on the row and in the toast
                log.exception("saving product %s failed", row["id"])
                async with self:
                    self._update_row(row["id"], error=admin_editor.UPDATE_FAILED_TEXT)
                failures.append(admin_editor.UPDATE_FAILED_TEXT)
                continue
            saved += 1
            async with self:
                self._update_row(row["id"], **to_editor_row(fresh))
        return saved, failures

    @rx.event(background=True)
    async def save(self, product_id: str):
        async for event in self._save_one(product_id, below_cost_confirmed=False):
            yield event

    @rx.event(background=True)
    async def save_below_cost(self, product_id: str):
        """Save after staff confirmed the variants the price sells below provider cost."""
        async for event in self._save_one(product_id, below_cost_confirmed=True):
            yield event

    async def _save_one(self, product_id: str, below_cost_confirmed: bool):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            row = next((r for r in self.rows if r["id"] == product_id), None)
            if self.saving or row is None:
                return
            self.saving = True
        try:
            saved, failures = await self._save_rows([row], below_cost_confirmed)
        finally:
            async with self:
                self.saving = False
        if saved:
            yield rx.toast.success(admin_editor.PRODUCT_UPDATED, description=row["title"])
            return
        async with self:
            asking = any(r["id"] == product_id and r["below_cost"] for r in self.rows)
        if not asking:  # a price below cost is asked about at the row itself, not in a toast
            yield rx.toast.error(admin_editor.UPDATE_FAILED, description=failures[0])

    @rx.event(background=True)
    async def save_all(self):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            if self.saving:
                return
            rows = [EditorRow(**r) for r in admin_editor.rows_to_save(self.rows)]  # type: ignore[typeddict-item]
            if not rows:
                yield rx.toast.info(admin_editor.NO_CHANGES_TITLE, description=admin_editor.NO_CHANGES_TEXT)
                return
            self.saving = True
        try:
            saved, failures = await self._save_rows(rows)
        finally:
            async with self:
                self.saving = False
        outcome = admin_editor.save_all_outcome(saved, len(failures))
        toast = rx.toast.error if outcome.failed else rx.toast.success
        yield toast(outcome.title, description=outcome.description)

    @rx.event
    async def set_show_archived(self, value: bool):
        if await self._signed_in() is None:
            return self._to_login()
        self.show_archived = bool(value)
        return ProductEditorState.load

    @rx.event
    async def ask_archive(self, product_id: str):
        """Open the confirmation: archiving is for good, the provider product is kept unless ticked."""
        if await self._signed_in() is None:
            return self._to_login()
        row = next((r for r in self.rows if r["id"] == product_id), None)
        if row is not None:
            self.archive_id, self.archive_title, self.archive_delete = product_id, row["original_title"], False
        return None

    @rx.event
    async def set_archive_delete(self, value: bool):
        if await self._signed_in() is None:
            return self._to_login()
        self.archive_delete = bool(value)
        return None

    @rx.event
    async def cancel_archive(self):
        if await self._signed_in() is None:
            return self._to_login()
        self.archive_id = ""
        return None

    @rx.event(background=True)
    async def archive(self):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
            product_id, delete_at_provider = self.archive_id, self.archive_delete
            if not product_id or self.saving:
                return
            self.saving = True
        shop_id = await current_shop(self)
        try:
            row = await asyncio.to_thread(
                with_session, admin_catalog.archive_product, product_forms.parse_shop_id(shop_id), product_id,
                delete_at_provider=delete_at_provider,
            )
        except Exception as error:  # noqa: BLE001 - the provider or database may fail; the toast says so
            log_unexpected(error, f"archiving {product_id}")
            async with self:
                self.saving, self.archive_id = False, ""
            yield rx.toast.error(admin_catalog.FAILED_TO_ARCHIVE_PRODUCT, description=failure_text(error, ""))
            return
        async with self:
            self.saving, self.archive_id = False, ""
            self._drop_row(product_id)
        yield rx.toast.success(admin_catalog.PRODUCT_ARCHIVED, description=row.title)

    @rx.event(background=True)
    async def restore(self, product_id: str):
        async with self:
            if await self._signed_in() is None:
                yield self._to_login()
                return
        try:
            row = await asyncio.to_thread(_restore, product_id)
        except Exception as error:  # noqa: BLE001 - reported in the toast
            log_unexpected(error, f"restoring {product_id}")
            yield rx.toast.error(admin_editor.UPDATE_FAILED, description=failure_text(error, admin_editor.UPDATE_FAILED_TEXT))
            return
        async with self:
            self._drop_row(product_id)
        yield rx.toast.success(admin_catalog.PRODUCT_RESTORED, description=row.title)
