"""/admin/products, the simple Product Management page: create a product, publish one."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypedDict

import reflex as rx

from storefront.config import get_settings
from storefront.db import session_scope
from storefront.services.admin import admin_catalog, product_forms, product_rows
from storefront.services.admin.product_rows import AdminProductRow
from storefront.services.admin.product_forms import ProductForm
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.state.admin.session import AdminState
from storefront.state.admin.shops import ShopsState
from storefront.state.admin.catalog_calls import error_toast, failure_text
from storefront.wiring import shared_print_provider

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


def _create(shop_id: str, form: ProductForm) -> AdminProductRow:
    with session_scope() as session:
        provider = shared_print_provider(get_settings())
        return admin_catalog.create_product(session, provider, product_forms.parse_shop_id(shop_id), form)


def _publish(shop_id: str, product_id: str | None) -> AdminProductRow:
    with session_scope() as session:
        provider = shared_print_provider(get_settings())
        return admin_catalog.publish_product(session, provider, product_forms.parse_shop_id(shop_id), product_id)


# --------------------------------------------------------------------------- the state


class ProductManagementState(AdminState):
    """The create form's field messages and the publish select of the selected shop."""

    tab: str = CREATE_TAB
    field_errors: dict[str, str] = {}
    creating: bool = False
    #: Bumped after a product is created, to give the form fresh, empty inputs.
    form_key: int = 0

    options: list[PublishOption] = []
    total: int = 0
    loading: bool = False
    selected_id: str = ""
    publishing: bool = False

    _generation: int = 0

    @rx.var
    def has_more(self) -> bool:
        return len(self.options) < self.total

    @rx.event
    async def set_tab(self, value: str):
        if await self._signed_in() is None:
            return self._to_login()
        self.tab = value
        return None

    @rx.event
    async def select_product(self, product_id: str):
        if await self._signed_in() is None:
            return self._to_login()
        self.selected_id = product_id
        return None

    @rx.event(background=True)
    async def load_products(self):
        """The first page of the selected shop's products for the publish select."""
        return await self._fetch(reset=True)

    @rx.event(background=True)
    async def load_more(self):
        """Offer the next page of products too."""
        return await self._fetch(reset=False)

    async def _fetch(self, reset: bool) -> rx.event.EventSpec | None:
        """Load the first page afresh (reset) or append the next one."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            shop_id = (await self.get_state(ShopsState)).shop_id
            if not shop_id or (not reset and (self.loading or not self.has_more)):
                return None
            if reset:
                self._generation += 1
            generation, offset, self.loading = self._generation, 0 if reset else len(self.options), True
        try:
            options, total = await asyncio.to_thread(_options, shop_id, offset)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("loading the shop's products failed")
            async with self:
                if generation == self._generation:
                    self.loading = False
            return error_toast(admin_catalog.FAILED_TO_LOAD_PRODUCTS)
        async with self:
            if generation != self._generation:  # a newer load owns the list
                return None
            self.loading = False
            if reset:
                self.options, self.total = options, total
                if self.selected_id not in {option["id"] for option in options}:
                    self.selected_id = ""
            elif offset == len(self.options):
                known = {option["id"] for option in self.options}
                self.options = [*self.options, *(option for option in options if option["id"] not in known)]
                self.total = total
        return None

    @rx.event(background=True)
    async def create_product(self, form: dict[str, Any]):
        """Create a product in the selected shop from the form; it is then offered for publishing."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
            if self.creating:
                return None
            shop_id = (await self.get_state(ShopsState)).shop_id
            self.creating, self.field_errors = True, {}
        try:
            row = await asyncio.to_thread(_create, shop_id, ProductForm.from_payload(form))
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
            self.selected_id = row.id
        return rx.toast.success(PRODUCT_CREATED, description=row.title)

    @rx.event(background=True)
    async def publish_product(self):
        """Publish the product chosen in the select."""
        async with self:
            if await self._signed_in() is None:
                return self._to_login()
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
        return [rx.toast.success(PRODUCT_PUBLISHED, description=row.title), ProductManagementState.load_products]
