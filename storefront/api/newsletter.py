"""The newsletter's one-click unsubscribe (RFC 8058): mail programs POST to the address in a
newsletter message's List-Unsubscribe header, and the address stops getting the newsletter."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from storefront.api.schemas import errors
from storefront.services.newsletter.subscriptions import ONE_CLICK_UNSUBSCRIBE_ROUTE

router = APIRouter(tags=["newsletter"])


@router.post(ONE_CLICK_UNSUBSCRIBE_ROUTE, responses=errors(422))
def unsubscribe(
    request: Request, email: str = Query(max_length=320), sig: str = Query(max_length=500)
) -> dict[str, str]:
    """Unsubscribe the address a signed List-Unsubscribe link names (the body, 'List-Unsubscribe=One-Click', is \
not needed)."""
    return {"message": request.app.state.services.newsletter.unsubscribe(email, sig)}
