"""Tours & events routes (spec section 7): the public list, and the admin's list, create, update
and delete. An event is saved whole or refused (422 with a message per field); nothing is
committed unless the service accepted it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Query, Response
from sqlmodel import Session

from storefront.api.admin import ADMIN_ONLY
from storefront.api.orders import get_session
from storefront.services import events
from storefront.services.errors import ValidationError

#: The admin's routes: every one checks the x-admin-token session.
router = APIRouter(dependencies=ADMIN_ONLY, tags=["events (admin)"])
#: The public list (active events only).
public_router = APIRouter(tags=["events"])

EVENTS = "/api/events"
EVENT = EVENTS + "/{event_id}"
NOT_AN_OBJECT = "Send a JSON object"
TOTAL_HEADER = "X-Total-Count"


def _object(payload: Any) -> dict[str, Any]:
    """The JSON body as a dict; an empty or missing body is {} (the service then names the
    missing fields)."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise ValidationError(NOT_AN_OBJECT)
    return payload


def _page(response: Response, page: events.EventPage) -> list[dict[str, Any]]:
    response.headers[TOTAL_HEADER] = str(page.total)
    return [events.serialize_event(view) for view in page.events]


@public_router.get(EVENTS)
def list_public_events(
    response: Response,
    featured: bool | None = Query(None, description="true: featured events only; false: the others"),
    limit: int = Query(events.MAX_PAGE_SIZE, ge=1, le=events.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0),
    session: Session = Depends(get_session),
) -> list[dict[str, Any]]:
    """Active events, soonest first (the total of the filter is in X-Total-Count)."""
    page = events.list_events(session, featured=featured, limit=limit, offset=offset)
    return _page(response, page)


@router.get(EVENTS + "/admin/all")
def list_all_events(
    response: Response,
    featured: bool | None = Query(None),
    limit: int = Query(events.MAX_PAGE_SIZE, ge=1, le=events.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0),
    session: Session = Depends(get_session),
) -> list[dict[str, Any]]:
    """Every event, inactive ones included, soonest first."""
    page = events.list_events(session, include_inactive=True, featured=featured, limit=limit, offset=offset)
    return _page(response, page)


@router.post(EVENTS, status_code=201)
def create_event(payload: Any = Body(None), session: Session = Depends(get_session)) -> dict[str, Any]:
    """{title, description, location, startDate, endDate, images, videos, links, isActive,
    featured, capacity, price} -> 201 with the event."""
    view = events.create_event(session, _object(payload))
    session.commit()
    return events.serialize_event(view)


@router.put(EVENT)
def update_event(event_id: str, payload: Any = Body(None), session: Session = Depends(get_session)) -> dict[str, Any]:
    """Replace the event with the form (its registrations are kept): the event."""
    view = events.update_event(session, event_id, _object(payload))
    session.commit()
    return events.serialize_event(view)


@router.delete(EVENT)
def delete_event(event_id: str, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Delete the event: {success, id}."""
    events.delete_event(session, event_id)
    session.commit()
    return {"success": True, "id": int(event_id)}
