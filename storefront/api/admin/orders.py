"""Admin routes (spec section 7): the order book, its CSV export, retrying a refused order, refunds,
cancellations, resending an order's confirmation email and revoking the links of its emails.

GET /api/orders/{id}/status lives with the shopper's order routes (storefront/api/orders.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response
from sqlmodel import Session

from storefront.api.admin.orders_schemas import (
    CancellationAnswer,
    OrderPage,
    RefundBody,
    ResendAnswer,
    ResolveBody,
    RetryAnswer,
    RevokeLinksAnswer,
)
from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY, actor_of
from storefront.api.schemas import errors
from storefront.api.sessions import SessionRoute, get_session
from storefront.services.admin import admin_orders
from storefront.services.orders import refund_amounts

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: orders"], route_class=SessionRoute)

CSV_FILENAME = "orders.csv"


@router.get("/api/orders", response_model=OrderPage)
def list_orders(
    limit: str | None = Query(None, description=f"Orders per page, 1 to {admin_orders.MAX_PAGE_SIZE}"),
    cursor: str | None = Query(None, description="nextCursor of the previous page; none for the newest orders"),
    view: str = Query(admin_orders.VIEW_ALL, description="all, paid, or awaiting (checkouts not paid yet)"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """A page of orders, newest first: {data: [Order], total, nextCursor, hasMore}."""
    page = admin_orders.list_orders(session, limit=admin_orders.page_limit(limit), cursor=cursor, view=view)
    return {
        "data": admin_orders.serialize_page(session, page),
        "total": page.total,
        "nextCursor": page.next_cursor,
        "hasMore": page.has_more,
    }


@router.get("/api/orders/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_orders(session: Session = Depends(get_session)) -> Response:
    """Every order as a CSV download, one row per order, newest first."""
    return Response(
        admin_orders.export_csv(session),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{CSV_FILENAME}"', "Cache-Control": "no-store"},
    )


@router.post("/api/orders/{order_id}/retry-fulfilment", response_model=RetryAnswer, responses=errors(404, 409))
def retry_fulfilment(order_id: str, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Send a paid order the provider refused to it once more (409 unless it needs attention)."""
    order = admin_orders.retry_fulfilment(session, order_id)
    return {"success": True, "order": admin_orders.order_detail(session, order.number)}


def _cancellation_answer(request: Request, outcome_number: str, message: str) -> dict[str, Any]:
    with request.app.state.services.session_factory() as session:
        return {"success": True, "order": admin_orders.order_detail(session, outcome_number), "message": message}


@router.post("/api/orders/{order_id}/refund", response_model=CancellationAnswer, responses=errors(404, 409, 422, 503))
def refund_order(
    order_id: str,
    request: Request,
    payload: RefundBody | None = Body(None),
    idempotency_key: str | None = Header(None, description="One id per staff click: the same key refunds once"),
) -> dict[str, Any]:
    """Refund through the gateway that took the payment: `amount` (dollars) or `lines`, or without a
    body what is left of the order; never more than was paid, once per click. Refunding the rest cancels
    the print order while the provider allows it (`message` says what became of it)."""
    wanted = refund_amounts.refund_request(payload.model_dump(exclude_unset=True) if payload else None)
    outcome = request.app.state.services.cancellations.refund(
        order_id, actor_of(request), wanted, idempotency_key or ""
    )
    return _cancellation_answer(request, outcome.order.number, outcome.message)


@router.post("/api/orders/{order_id}/cancel", response_model=CancellationAnswer, responses=errors(404, 409, 503))
def cancel_order(order_id: str, request: Request) -> dict[str, Any]:
    """Cancel the order: an unpaid one's payment is cancelled first; a paid one is refunded."""
    outcome = request.app.state.services.cancellations.cancel(order_id, actor_of(request))
    return _cancellation_answer(request, outcome.order.number, outcome.message)


@router.post("/api/orders/{order_id}/resend-confirmation", response_model=ResendAnswer, responses=errors(404, 409, 422))
def resend_confirmation(
    order_id: str,
    request: Request,
    idempotency_key: str | None = Header(None, description="One id per staff click: the same key queues one email"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Queue the paid order's confirmation email once more (409 for an order never paid)."""
    queued = admin_orders.resend_confirmation(
        session, order_id, idempotency_key, request.app.state.services.emails, actor_of(request)
    )
    return {"success": True, "queued": queued, "order": admin_orders.order_detail(session, order_id)}


@router.post("/api/orders/{order_id}/revoke-links", response_model=RevokeLinksAnswer, responses=errors(404))
def revoke_links(order_id: str, request: Request, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Every link to the order sent in its emails so far opens nothing any more (emails sent later
    carry new links); the order's history names who did it."""
    admin_orders.revoke_links(session, order_id, actor_of(request))
    return {"success": True, "order": admin_orders.order_detail(session, order_id)}


@router.post("/api/orders/{order_id}/resolve", response_model=RetryAnswer, responses=errors(404, 409, 422))
def resolve_order(
    order_id: str,
    request: Request,
    payload: ResolveBody | None = Body(None),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Mark an order that needs attention resolved, with a note of what was done (kept in its
    history); 409 when it needs none, 422 without a note."""
    order = admin_orders.resolve(session, order_id, actor_of(request), payload.note if payload else None)
    return {"success": True, "order": admin_orders.order_detail(session, order.number)}
