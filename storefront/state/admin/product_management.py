"""/admin/products, the simple Product Management page: create a product, publish one."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import Any, TypedDict

import reflex as rx

from storefront.services.admin import admin_catalog, product_forms, product_rows
from storefront.services.admin.product_forms import ProductForm
from storefront.services.admin.product_rows import AdminProductRow
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.state.admin.catalog_calls import error_toast, failure_text
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.product_design import ProductDesignState
from storefront.state.admin.session import AdminState, admin_event
from storefront.state.admin.shops import ShopsState
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

#: Products offered by the publish select per page (Load more fetches the next).
PAGE_SIZE = product_rows.MAX_PAGE_SIZE
CREATE_TAB = "create"
PUBLISH_TAB = "publish"

# The spec's texts (sections 5 and 8).
PRODUCT_CREATED = "Product created successfully"
PRODUCT_PUBLISHED = "Product published successfully"

#: (value, label) of the create form's selects, in the spec's order.
PRODUCT_TYPE_OPTIONS: list[tuple[str, str]] = [(str(i), name) for i, name in product_forms.PRODUCT_TYPES.items()]
PRINT_PROVIDER_OPTIONS: list[tuple[str, str]] = [(str(i), name) for i, name in product_forms.PRINT_PROVIDERS.items()]
DEFAULT_PRICE = product_forms.DEFAULT_CREATE_PRICE


class PublishOption(TypedDict):
    """A product offered by the publish select."""

    id: str
    label: str
    published: bool


def to_option(row: AdminProductRow) -> PublishOption:
    return PublishOption(id=row.id, label=f"{row.title} ({row.status.capitalize()})", published=row.is_published)


# --------------------------------------------------------------------------- service calls (in a thread)


def _options(shop_id: str, offset: int) -> tuple[list[PublishOption], int]:
    with session_scope() as session:
        page = product_rows.product_page(
            session,
            shop_id=product_forms.parse_shop_id(shop_id),
            limit=PAGE_SIZE,
            offset=offset,
            unpublished_first=True,
        )
    return [to_option(row) for row in page.rows], page.total


def _create(shop_id: str, form: ProductForm) -> admin_catalog.CreatedProduct:
    with session_scope() as session:
        provider = services().provider
        return admin_catalog.create_designed_product(session, provider, product_forms.parse_shop_id(shop_id), form)


def _form_of(form: dict[str, Any], design: dict[str, Any]) -> ProductForm:
    """The form's fields with the design part: the colours and sizes ticked ("color:<name>",
    "size:<name>"; every one when the choices were not shown), the design and its placement."""
    shown = "choices" in form
    colors = [key.removeprefix("color:") for key in form if key.startswith("color:")] if shown else None
    sizes = [key.removeprefix("size:") for key in form if key.startswith("size:")] if shown else None
    placement = dict(design["placement"])
    for field in ("x", "y", "scale"):
        typed = str(form.get(f"placement_{field}") or "").strip()
        with contextlib.suppress(ValueError):
            placement[field] = float(typed)  # as typed: a debounced change may not have reached the state
    if form.get("placement_position"):
        placement["position"] = form["placement_position"]
    return dataclasses.replace(
        ProductForm.from_payload(form), colors=colors, sizes=sizes, design=design["design"], placement=placement
    )


def _publish(shop_id: str, product_id: str | None) -> AdminProductRow:
    with session_scope() as session:
        provider = services().provider
        return admin_catalog.publish_product(session, provider, product_forms.parse_shop_id(shop_id), product_id)


# --------------------------------------------------------------------------- the state


class ProductManagementState(PagedAdminState, AdminState):
    """The create form's field messages and the publish select of the selected shop (its options
    are the paged `rows`)."""

    tab: str = CREATE_TAB
    field_errors: dict[str, str] = {}
    creating: bool = False
    #: Bumped after a product is created, to give the form fresh, empty inputs.
    form_key: int = 0

    rows: list[PublishOption] = []
    selected_id: str = ""
    publishing: bool = False

    @rx.event
    @admin_event
    async def set_tab(self, value: str):
        self.tab = value
        return None

    @rx.event
    @admin_event
    async def select_product(self, product_id: str):
        self.selected_id = product_id
        return None

    # ----------------------------------------------------------------------- the publish select (PagedAdminState)
    # `load` offers the first page of the selected shop's products, `load_more` the next too.

    async def _page_params(self) -> str | None:
        return (await self.get_state(ShopsState)).shop_id or None

    async def _fetch_page(self, request: PageRequest) -> Page:
        options, total = await asyncio.to_thread(_options, request.params, request.offset)
        return Page(rows=options, more=request.offset + len(options) < total, total=total)

    def _page_failed(self) -> rx.event.EventSpec:
        return error_toast(admin_catalog.FAILED_TO_LOAD_PRODUCTS)

    def _page_shown(self, page: Page, reset: bool) -> None:
        if reset and self.selected_id not in {option["id"] for option in self.rows}:
            self.selected_id = ""

    @rx.event(background=True)
    @admin_event
    async def create_product(self, form: dict[str, Any]):
        """Create a product in the selected shop from the form; it is then offered for publishing."""
        async with self:
            if self.creating:
                return None
            shop_id = (await self.get_state(ShopsState)).shop_id
            design = (await self.get_state(ProductDesignState))._form_design()
            self.creating, self.field_errors = True, {}
        try:
            created = await asyncio.to_thread(_create, shop_id, _form_of(form, design))
        except ValidationError as error:
            async with self:
                self.creating, self.field_errors = False, error.field_errors
            return None
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("creating a product failed")
            async with self:
                self.creating = False
            return error_toast(admin_catalog.FAILED_TO_CREATE_PRODUCT, failure_text(error, ""))
        async with self:
            self.creating, self.form_key = False, self.form_key + 1
            self.selected_id = created.row.id
            (await self.get_state(ProductDesignState))._created(created.mockups)
        return rx.toast.success(PRODUCT_CREATED, description=created.warning or created.row.title)

    @rx.event(background=True)
    @admin_event
    async def publish_product(self):
        """Publish the product chosen in the select."""
        async with self:
            if self.publishing:
                return None
            shop_id = (await self.get_state(ShopsState)).shop_id
            product_id, self.publishing = self.selected_id or None, True
        try:
            row = await asyncio.to_thread(_publish, shop_id, product_id)
        except ValidationError as error:
            async with self:
                self.publishing = False
            return error_toast(error.message)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("publishing %s failed", product_id)
            async with self:
                self.publishing = False
            return error_toast(admin_catalog.FAILED_TO_PUBLISH_PRODUCT, failure_text(error, ""))
        async with self:
            self.publishing = False
        return [rx.toast.success(PRODUCT_PUBLISHED, description=row.title), ProductManagementState.load]
