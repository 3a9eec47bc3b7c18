"""The Activity tab: the log of staff actions, newest first, filtered by person and action, and its CSV."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict

import reflex as rx

from storefront.services.staff import activity
from storefront.state.admin.session import AdminState, admin_event
from storefront.wiring import read_scope

CSV_FILENAME = "activity.csv"
ALL_ACTIONS = "all"


class ActivityRow(TypedDict):
    id: int
    at: str
    actor: str
    action: str
    target: str
    change: str
    client: str


def _change_text(before: Any, after: Any) -> str:
    """'title: Old -> New; price: $30.00 -> $41.50' for an edit; the after alone otherwise."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = [key for key in after if before.get(key) != after.get(key)]
        return "; ".join(f"{key}: {before.get(key)} -> {after.get(key)}" for key in keys)
    if isinstance(after, dict):
        return "; ".join(f"{key}: {value}" for key, value in after.items())
    return "" if after is None else json.dumps(after)


def _rows(actor: str, action: str, before_id: int | None) -> list[ActivityRow]:
    with read_scope() as session:
        entries = activity.list_entries(
            session, actor=actor or None, action=None if action == ALL_ACTIONS else action, before_id=before_id
        )
        views = [activity.entry_view(entry) for entry in entries]
    return [
        ActivityRow(
            id=view["id"], at=view["at"][:19].replace("T", " "), actor=view["actor"], action=view["action"],
            target=view["target"], change=_change_text(view["before"], view["after"]), client=view["client"],
        )
        for view in views
    ]


def _export(actor: str, action: str) -> str:
    with read_scope() as session:
        return activity.export_csv(session, actor=actor or None, action=None if action == ALL_ACTIONS else action)


class ActivityAdminState(AdminState):
    """A page of the log at a time (Load More appends the next)."""

    rows: list[ActivityRow] = []
    actor_filter: str = ""
    action_filter: str = ALL_ACTIONS
    has_more: bool = False
    exporting: bool = False

    @rx.var
    def actions(self) -> list[str]:
        return [ALL_ACTIONS, *activity.ACTIONS]

    async def _show(self, more: bool) -> None:
        before_id = self.rows[-1]["id"] if more and self.rows else None
        page = await asyncio.to_thread(_rows, self.actor_filter, self.action_filter, before_id)
        self.rows = [*self.rows, *page] if more else page
        self.has_more = len(page) == activity.PAGE_SIZE

    @rx.event
    @admin_event
    async def load(self):
        await self._show(more=False)

    @rx.event
    @admin_event
    async def load_more(self):
        await self._show(more=True)

    @rx.event
    @admin_event
    async def filter(self, form: dict[str, Any]):
        self.actor_filter = str(form.get("actor") or "").strip()[:100]
        action = str(form.get("action") or ALL_ACTIONS)
        self.action_filter = action if action in activity.ACTIONS else ALL_ACTIONS
        await self._show(more=False)

    @rx.event(background=True)
    @admin_event
    async def export_csv(self):
        async with self:
            actor, action = self.actor_filter, self.action_filter
        return await self._download_csv(lambda: _export(actor, action), CSV_FILENAME)
