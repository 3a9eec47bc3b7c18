"""Tours & events routes (spec section 7): the public list, and the admin's list, create, update
and delete. An event is saved whole or refused (422 with a message per field); nothing is
committed unless the service accepted it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Query, Request, Response
from sqlmodel import Session

from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY, actor_of
from storefront.api.events_schemas import Event, EventForm, PublicEvent
from storefront.api.schemas import Deleted, dump, errors
from storefront.api.sessions import SessionRoute, get_session
from storefront.models import DB_INT_MAX
from storefront.services.events import events
from storefront.services.staff import activity

#: The admin's routes: every one checks the x-admin-token session.
router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["events (admin)"], route_class=SessionRoute)
#: The public list (active events only).
public_router = APIRouter(tags=["events"], route_class=SessionRoute)

EVENTS = "/api/events"
EVENT = EVENTS + "/{event_id}"
TOTAL_HEADER = "X-Total-Count"
_TOTAL = {TOTAL_HEADER: {"description": "How many events the filter matches", "schema": {"type": "integer"}}}


def _object(payload: EventForm | None) -> dict[str, Any]:
    """The form as a dict; an empty or missing body is {} (the service then names the missing
    fields). A body that is not an object is FastAPI's 422."""
    return dump(payload)


def _page(response: Response, page: events.EventPage) -> list[dict[str, Any]]:
    response.headers[TOTAL_HEADER] = str(page.total)
    return [events.serialize_event(view) for view in page.events]


@public_router.get(
    EVENTS,
    response_model=list[PublicEvent],
    responses={200: {"headers": _TOTAL}, **errors(422)},
)
def list_public_events(
    response: Response,
    featured: bool | None = Query(None, description="true: featured events only; false: the others"),
    limit: int = Query(events.MAX_PAGE_SIZE, ge=1, le=events.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0, le=DB_INT_MAX),
    session: Session = Depends(get_session),
) -> list[dict[str, Any]]:
    """Active events, soonest first (the total of the filter is in X-Total-Count)."""
    page = events.list_events(session, featured=featured, limit=limit, offset=offset)
    return _page(response, page)


@router.get(EVENTS + "/admin/all", response_model=list[Event], responses={200: {"headers": _TOTAL}})
def list_all_events(
    response: Response,
    featured: bool | None = Query(None),
    limit: int = Query(events.MAX_PAGE_SIZE, ge=1, le=events.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0, le=DB_INT_MAX),
    session: Session = Depends(get_session),
) -> list[dict[str, Any]]:
    """Every event, inactive ones included, soonest first."""
    page = events.list_events(session, include_inactive=True, featured=featured, limit=limit, offset=offset)
    return _page(response, page)


@router.post(EVENTS, status_code=201, response_model=Event)
def create_event(
    request: Request, payload: EventForm | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """{title, description, location, startDate, endDate, images, videos, links, isActive,
    featured, capacity, price} -> 201 with the event."""
    view = events.create_event(session, _object(payload))
    activity.record(
        session, actor_of(request), activity.EVENT_CHANGE, f"event {view.id}", after={"created": view.title}
    )
    session.commit()
    return events.serialize_event(view)


@router.put(EVENT, response_model=Event, responses=errors(404))
def update_event(
    request: Request, event_id: str, payload: EventForm | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """Replace the event with the form (its registrations are kept): the event."""
    view = events.update_event(session, event_id, _object(payload))
    activity.record(
        session, actor_of(request), activity.EVENT_CHANGE, f"event {view.id}", after={"updated": view.title}
    )
    session.commit()
    return events.serialize_event(view)


@router.delete(EVENT, response_model=Deleted, responses=errors(404))
def delete_event(request: Request, event_id: str, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Delete the event: {success, id}."""
    events.delete_event(session, event_id)
    activity.record(session, actor_of(request), activity.EVENT_CHANGE, f"event {event_id.strip()}",
                    after={"deleted": True})
    session.commit()
    return {"success": True, "id": int(event_id.strip())}
