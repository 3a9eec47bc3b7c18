"""The Product Editor tab: a page of product rows edited inline, Save per row and Save All."""

from __future__ import annotations

import asyncio
import logging
from typing import TypedDict

import reflex as rx

from storefront.services.admin import admin_catalog, admin_editor, base_price, descriptions, product_forms, product_rows
from storefront.services.platform.errors import ServiceError
from storefront.services.staff.activity import Actor
from storefront.state.admin.catalog_calls import failure_text, log_unexpected, with_session
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.session import AdminState, admin_event
from storefront.state.admin.shops import current_shop
from storefront.wiring import session_scope

log = logging.getLogger(__name__)

PAGE_SIZE = 20


class EditorRow(TypedDict):
    """One product in the editor: the values being typed and the originals they started from."""

    id: str
    title: str
    #: As staff edit it: plain text (services/admin/descriptions.py), saved as sanitised HTML.
    description: str
    #: The HTML the typed description saves as, for the preview.
    description_preview: str
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
    #: The product's small picture beside its title ("" for none).
    thumbnail: str


def to_editor_row(row: product_rows.AdminProductRow) -> EditorRow:
    values = {
        "title": row.title,
        "description": descriptions.description_text(row.description_html),
        "price": product_rows.dollars(row.price_cents) or "",
        "category": row.category,
    }
    return EditorRow(
        id=row.id,
        summary=row.description,
        description_preview=descriptions.description_html(values["description"]),
        status=row.status,
        editing=False,
        error="",
        price_note=row.price_note,
        below_cost="",
        thumbnail=row.thumbnail,
        **values,  # type: ignore[typeddict-item]
        **{f"original_{k}": v for k, v in values.items()},  # type: ignore[typeddict-item]
    )


def _page(shop_id: str, query: str, offset: int, archived: bool) -> product_rows.ProductPage:
    with session_scope() as session:
        return product_rows.product_page(
            session, shop_id=product_forms.parse_shop_id(shop_id), query=query, limit=PAGE_SIZE, offset=offset,
            archived=archived,
        )


def _restore(product_id: str, actor: Actor) -> product_rows.AdminProductRow:
    with session_scope() as session:
        return admin_catalog.restore_product(session, product_id, actor=actor)


def _save(
    shop_id: str, row: EditorRow, actor: Actor, below_cost_confirmed: bool = False
) -> product_rows.AdminProductRow:
    return with_session(
        admin_catalog.update_product,
        product_forms.parse_shop_id(shop_id),
        row["id"],
        title=row["title"],
        # Sent only when staff changed it: text made HTML again would rewrite the provider's markup.
        description=descriptions.description_html(row["description"])
        if "description" in admin_editor.changed_fields(row) else None,
        price=row["price"],
        category=row["category"],
        below_cost_confirmed=below_cost_confirmed,
        actor=actor,
    )


class ProductEditorState(PagedAdminState, AdminState):
    """Rows of the selected shop, a page at a time; `saving` blocks every other save until the running one ends."""

    query: str = ""
    rows: list[EditorRow] = []
    saving: bool = False
    #: The archived products instead of the others.
    show_archived: bool = False
    #: The product the Archive confirmation is open for ("" when closed), and its choices.
    archive_id: str = ""
    archive_title: str = ""
    archive_delete: bool = False

    async def _page_params(self) -> tuple[str, bool]:
        return self.query, self.show_archived

    async def _fetch_page(self, request: PageRequest) -> Page:
        """The page for the selected shop and search."""
        query, archived = request.params
        shop_id = await current_shop(self)
        page = await asyncio.to_thread(_page, shop_id, query, request.offset, archived)
        rows = [to_editor_row(row) for row in page.rows]
        return Page(rows=rows, more=request.offset + len(rows) < page.total, total=page.total)

    def _page_failed(self) -> rx.event.EventSpec:
        return rx.toast.error(admin_catalog.FAILED_TO_LOAD_PRODUCTS)

    @rx.event
    @admin_event
    async def set_query(self, value: str):
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
    @admin_event
    async def start_edit(self, product_id: str):
        self._update_row(product_id, editing=True, error="")
        return None

    @rx.event
    @admin_event
    async def set_field(self, product_id: str, field: str, value: str):
        if field in admin_editor.EDITABLE_FIELDS:
            # A confirmation to sell below cost was for the price it named, not for a new one.
            extra = {"description_preview": descriptions.description_html(value)} if field == "description" else {}
            self._update_row(product_id, **{field: value}, **extra, below_cost="")
        return None

    @rx.event
    @admin_event
    async def cancel(self, product_id: str):
        """Back to the originals."""
        for row in self.rows:
            if row["id"] == product_id:
                originals = {f: row[f"original_{f}"] for f in admin_editor.EDITABLE_FIELDS}  # type: ignore[literal-required]
                self._update_row(
                    product_id, editing=False, error="", below_cost="",
                    description_preview=descriptions.description_html(str(originals["description"])), **originals,
                )
        return None

    async def _save_rows(self, rows: list[EditorRow], below_cost_confirmed: bool = False) -> tuple[int, list[str]]:
        """Save each row in turn; returns how many were saved and the failures' messages. A row whose
        price would sell below cost is kept with the confirmation to give (its own Save asks)."""
        shop_id = await current_shop(self)
        actor = await self._actor()
        saved, failures = 0, []
        for row in rows:
            try:
                fresh = await asyncio.to_thread(_save, shop_id, row, actor, below_cost_confirmed)
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
            except Exception:  # reported on the row and in the toast
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

    @admin_event
    async def _save_one(self, product_id: str, below_cost_confirmed: bool):
        async with self:
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
    @admin_event
    async def save_all(self):
        async with self:
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
    @admin_event
    async def set_show_archived(self, value: bool):
        self.show_archived = bool(value)
        return ProductEditorState.load

    @rx.event
    @admin_event
    async def ask_archive(self, product_id: str):
        """Open the confirmation: archiving is for good, the provider product is kept unless ticked."""
        row = next((r for r in self.rows if r["id"] == product_id), None)
        if row is not None:
            self.archive_id, self.archive_title, self.archive_delete = product_id, row["original_title"], False
        return None

    @rx.event
    @admin_event
    async def set_archive_delete(self, value: bool):
        self.archive_delete = bool(value)
        return None

    @rx.event
    @admin_event
    async def cancel_archive(self):
        self.archive_id = ""
        return None

    @rx.event(background=True)
    @admin_event
    async def archive(self):
        async with self:
            product_id, delete_at_provider = self.archive_id, self.archive_delete
            if not product_id or self.saving:
                return
            self.saving = True
        shop_id = await current_shop(self)
        try:
            row = await asyncio.to_thread(
                with_session, admin_catalog.archive_product, product_forms.parse_shop_id(shop_id), product_id,
                delete_at_provider=delete_at_provider, actor=await self._actor(),
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
    @admin_event
    async def restore(self, product_id: str):
        try:
            row = await asyncio.to_thread(_restore, product_id, await self._actor())
        except Exception as error:  # noqa: BLE001 - reported in the toast
            log_unexpected(error, f"restoring {product_id}")
            yield rx.toast.error(
                admin_editor.UPDATE_FAILED, description=failure_text(error, admin_editor.UPDATE_FAILED_TEXT)
            )
            return
        async with self:
            self._drop_row(product_id)
        yield rx.toast.success(admin_catalog.PRODUCT_RESTORED, description=row.title)
