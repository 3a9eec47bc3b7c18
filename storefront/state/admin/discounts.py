"""The Discounts tab: the codes with their uses and revenue, the form that makes or changes one,
switching a code on or off, and the CSV. Every handler checks the admin session on the server."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import reflex as rx

from storefront.services.admin import admin_discounts
from storefront.services.discounts import codes
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.wiring import session_scope

log = logging.getLogger(__name__)

CSV_FILENAME = "discounts.csv"
LOAD_FAILED = "Failed to load discounts"
SAVE_FAILED = "Failed to save the discount"
SAVED = "Discount saved"
#: The form's fields when it opens for a new code.
NEW_FORM: dict[str, str] = {
    "code": "", "kind": "percent", "value": "", "startsAt": "", "endsAt": "", "minSubtotal": "",
    "usageLimit": "", "perCustomerLimit": "", "scope": "all", "scopeValues": "", "active": "on",
}


def _rows() -> list[dict[str, Any]]:
    with session_scope() as session:
        page = admin_discounts.list_codes(session, limit=admin_discounts.MAX_PAGE)
    return [_row(code) for code in page["data"]]


def _row(code: dict[str, Any]) -> dict[str, Any]:
    """A code as the table shows it (strings only)."""
    limit = code["usageLimit"]
    return {
        "id": str(code["id"]),
        "code": code["code"],
        "description": code["description"],
        "active": bool(code["active"]),
        "uses": f"{code['usedCount']}" + (f" / {limit}" if limit is not None else ""),
        "paid_orders": str(code["paidOrders"]),
        "revenue": code["revenueText"],
        "window": _window(code["startsAt"], code["endsAt"]),
        "scope": "Whole cart" if code["scope"] == "all" else f"{code['scope']}: {', '.join(code['scopeValues'])}",
    }


def _window(starts: str | None, ends: str | None) -> str:
    def short(value: str | None) -> str:
        return value[:16].replace("T", " ") if value else ""

    if not starts and not ends:
        return "Always"
    return f"{short(starts) or 'now'} → {short(ends) or 'no end'}"


def _form_of(discount_id: str) -> dict[str, str]:
    """A code's settings as the form's fields."""
    with session_scope() as session:
        values = codes.code_values(codes.get_code(session, discount_id))
    value = values["value"]
    return {
        "code": values["code"],
        "kind": values["kind"],
        "value": "" if value is None else (f"{value:.2f}" if values["kind"] == "amount" else str(value)),
        "startsAt": (values["startsAt"] or "")[:16],
        "endsAt": (values["endsAt"] or "")[:16],
        "minSubtotal": f"{values['minSubtotal']:.2f}" if values["minSubtotal"] else "",
        "usageLimit": "" if values["usageLimit"] is None else str(values["usageLimit"]),
        "perCustomerLimit": "" if values["perCustomerLimit"] is None else str(values["perCustomerLimit"]),
        "scope": values["scope"],
        "scopeValues": ", ".join(values["scopeValues"]),
        "active": "on" if values["active"] else "",
    }


def _save(discount_id: str, form: dict[str, Any]) -> None:
    payload = {**form, "active": bool(form.get("active"))}
    with session_scope() as session:
        if discount_id:
            codes.update_code(session, discount_id, payload)
        else:
            codes.create_code(session, payload)


def _export() -> str:
    with session_scope() as session:
        return admin_discounts.export_csv(session)


def _set_active(discount_id: str, active: bool) -> None:
    with session_scope() as session:
        codes.set_active(session, discount_id, active)


class DiscountsAdminState(AdminState):
    """The codes' table and the code form."""

    rows: list[dict[str, Any]] = []
    loaded: bool = False
    exporting: bool = False
    form_open: bool = False
    #: The code being changed ("" for a new one), and the form's fields when it opened.
    editing_id: str = ""
    form_values: dict[str, str] = NEW_FORM
    form_errors: dict[str, str] = {}
    saving: bool = False

    async def _reload(self) -> Any:
        try:
            self.rows = await asyncio.to_thread(_rows)
        except Exception:
            log.exception("listing discounts failed")
            return rx.toast.error(LOAD_FAILED, description=GENERIC_FAILURE)
        self.loaded = True
        return None

    @rx.event
    @admin_event
    async def load(self):
        """The codes (the tab mounts)."""
        return await self._reload()

    @rx.event
    @admin_event
    async def new_code(self):
        self.editing_id, self.form_values, self.form_errors, self.form_open = "", dict(NEW_FORM), {}, True

    @rx.event
    @admin_event
    async def edit_code(self, discount_id: str):
        try:
            self.form_values = await asyncio.to_thread(_form_of, discount_id)
        except ServiceError as error:
            return rx.toast.error(error.message)
        self.editing_id, self.form_errors, self.form_open = discount_id, {}, True
        return None

    @rx.event
    @admin_event
    async def set_form_open(self, value: bool) -> None:
        if not self.saving:
            self.form_open = value

    @rx.event
    @admin_event
    async def save(self, form: dict[str, Any]):
        """Save the form whole, or show the message of each field that needs fixing."""
        self.saving = True
        try:
            await asyncio.to_thread(_save, self.editing_id, form)
        except ValidationError as error:
            self.form_errors = dict(error.field_errors)
            return rx.toast.error(SAVE_FAILED, description=error.message)
        except ServiceError as error:
            return rx.toast.error(SAVE_FAILED, description=error.message)
        except Exception:
            log.exception("saving a discount failed")
            return rx.toast.error(SAVE_FAILED, description=GENERIC_FAILURE)
        finally:
            self.saving = False
        self.form_open, self.form_errors = False, {}
        await self._reload()
        return rx.toast.success(SAVED)

    @rx.event
    @admin_event
    async def toggle(self, discount_id: str, active: bool):
        """Switch a code on or off."""
        try:
            await asyncio.to_thread(_set_active, discount_id, active)
        except ServiceError as error:
            return rx.toast.error(error.message)
        return await self._reload()

    @rx.event(background=True)
    async def export_csv(self):
        """Download every code with its uses and revenue as CSV."""
        return await self._download_csv(_export, CSV_FILENAME)
