"""Admin routes (spec section 7): the order book, its CSV export and retrying a refused order.

GET /api/orders/{id}/status lives with the shopper's order routes (storefront/api/orders.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Response
from sqlmodel import Session

from storefront.api.admin import ADMIN_ERRORS, ADMIN_ONLY
from storefront.api.sessions import SessionRoute, get_session
from storefront.api.schemas import OrderPage, RetryAnswer, errors
from storefront.services import admin_orders

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: orders"], route_class=SessionRoute)

CSV_FILENAME = "orders.csv"


@router.get("/api/orders", response_model=OrderPage)
def list_orders(
    limit: str | None = Query(None, description=f"Orders per page, 1 to {admin_orders.MAX_PAGE_SIZE}"),
    cursor: str | None = Query(None, description="nextCursor of the previous page; none for the newest orders"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """A page of orders, newest first: {data: [Order], total, nextCursor, hasMore}."""
    page = admin_orders.list_orders(session, limit=admin_orders.page_limit(limit), cursor=cursor)
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
