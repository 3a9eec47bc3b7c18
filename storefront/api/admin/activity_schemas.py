"""Answer models of the activity log routes (storefront/api/admin/activity.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import _Open


class ActivityRow(_Open):
    id: int
    at: str = Field(description="When (UTC, ISO 8601)")
    actor: str = Field(description="Who: the person's username")
    action: str
    target: str = Field(description="What was acted on")
    before: Any = None
    after: Any = None
    client: str = Field(description="From which address")


class ActivityPage(_Open):
    data: list[ActivityRow]
    nextBefore: int | None = Field(description="`before` for the next (older) page; null at the end")
