"""The activity log: one row per staff action, added to the action's own transaction (the caller
commits both or neither). Rows are never pruned, so the log is kept as long as the database
(the issue asks for at least a year)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, func, select

from storefront.models import ActivityEntry, utcnow

# The actions (what the Activity tab filters by).
SIGN_IN = "sign-in"
SIGN_OUT = "sign-out"
PRODUCT_EDIT = "product-edit"
PRICE_EDIT = "price-edit"
PRICE_SYNC = "price-sync"
ARCHIVE = "archive"
RESTORE = "restore"
REFUND = "refund"
CANCEL = "cancel"
RESEND = "resend"
ORDER_CHANGE = "order-change"
EVENT_CHANGE = "event-change"
ACCOUNT_CHANGE = "account-change"
CUSTOMER_EXPORT = "customer-export"
CUSTOMER_ERASE = "customer-erase"
ACTIONS = (
    SIGN_IN, SIGN_OUT, PRODUCT_EDIT, PRICE_EDIT, PRICE_SYNC, ARCHIVE, RESTORE, REFUND, CANCEL, RESEND, ORDER_CHANGE,
    EVENT_CHANGE, ACCOUNT_CHANGE, CUSTOMER_EXPORT, CUSTOMER_ERASE,
)

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MAX_CLIENT_CHARS = 64
MAX_TARGET_CHARS = 200
CSV_HEADER = ("When (UTC)", "Who", "Action", "What", "Before", "After", "Address")


@dataclass(frozen=True)
class Actor:
    """Who acts and from which address (what every log row names)."""

    username: str
    client: str = ""


def record(
    session: Session,
    actor: Actor,
    action: str,
    target: str = "",
    *,
    before: Any = None,
    after: Any = None,
    now: datetime | None = None,
) -> None:
    """Add the row for one action to `session` (committed with the action, by the caller)."""
    session.add(
        ActivityEntry(
            created_at=now or utcnow(),
            actor=actor.username[:100],
            action=action,
            target=target[:MAX_TARGET_CHARS],
            before_json=None if before is None else json.dumps(before, sort_keys=True, default=str),
            after_json=None if after is None else json.dumps(after, sort_keys=True, default=str),
            client=(actor.client or "")[:MAX_CLIENT_CHARS],
        )
    )


def entry_view(entry: ActivityEntry) -> dict[str, Any]:
    """A row as the API and the tab show it."""
    return {
        "id": entry.id,
        "at": entry.created_at.isoformat(),
        "actor": entry.actor,
        "action": entry.action,
        "target": entry.target,
        "before": json.loads(entry.before_json) if entry.before_json else None,
        "after": json.loads(entry.after_json) if entry.after_json else None,
        "client": entry.client,
    }


def _filtered(statement: Any, actor: str | None, action: str | None) -> Any:
    if actor:
        statement = statement.where(func.lower(col(ActivityEntry.actor)) == actor.strip().lower())
    if action:
        statement = statement.where(col(ActivityEntry.action) == action)
    return statement


def list_entries(
    session: Session, *, actor: str | None = None, action: str | None = None, before_id: int | None = None,
    limit: int = PAGE_SIZE,
) -> list[ActivityEntry]:
    """A page of rows, newest first; `before_id` is the last id of the previous page (keyset)."""
    statement = _filtered(select(ActivityEntry), actor, action)
    if before_id is not None:
        statement = statement.where(col(ActivityEntry.id) < before_id)
    statement = statement.order_by(col(ActivityEntry.id).desc()).limit(max(1, min(limit, MAX_PAGE_SIZE)))
    return list(session.exec(statement).all())


def export_csv(session: Session, *, actor: str | None = None, action: str | None = None) -> str:
    """Every row that matches, newest first, as CSV (read in pages, never all at once)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    before_id: int | None = None
    while True:
        page = list_entries(session, actor=actor, action=action, before_id=before_id, limit=MAX_PAGE_SIZE)
        for entry in page:
            writer.writerow([
                entry.created_at.strftime("%Y-%m-%d %H:%M:%S"), entry.actor, entry.action, _safe_cell(entry.target),
                _safe_cell(entry.before_json or ""), _safe_cell(entry.after_json or ""), entry.client,
            ])
        if len(page) < MAX_PAGE_SIZE:
            return out.getvalue()
        before_id = page[-1].id


def _safe_cell(text: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text
