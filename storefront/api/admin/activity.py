"""The activity log for the owner: a page of rows (filtered by person and action) and its CSV."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Response
from sqlmodel import Session

from storefront.api.admin.activity_schemas import ActivityPage
from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY
from storefront.api.sessions import SessionRoute, get_session
from storefront.models import DB_INT_MAX
from storefront.services.staff import activity

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: activity"], route_class=SessionRoute)

CSV_FILENAME = "activity.csv"


@router.get("/api/admin/activity", response_model=ActivityPage)
def list_activity(
    actor: str | None = Query(None, max_length=100, description="Only this person's actions"),
    action: str | None = Query(None, max_length=40, description="Only this action (sign-in, price-edit, refund...)"),
    before: int | None = Query(None, ge=1, le=DB_INT_MAX, description="nextBefore of the previous page"),
    limit: int = Query(activity.PAGE_SIZE, ge=1, le=activity.MAX_PAGE_SIZE),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """A page of the log, newest first."""
    rows = activity.list_entries(session, actor=actor, action=action, before_id=before, limit=limit)
    return {
        "data": [activity.entry_view(row) for row in rows],
        "nextBefore": rows[-1].id if len(rows) == limit else None,
    }


@router.get("/api/admin/activity/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_activity(
    actor: str | None = Query(None, max_length=100),
    action: str | None = Query(None, max_length=40),
    session: Session = Depends(get_session),
) -> Response:
    """The log (with the same filters) as a CSV download."""
    return Response(
        activity.export_csv(session, actor=actor, action=action),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{CSV_FILENAME}"', "Cache-Control": "no-store"},
    )
