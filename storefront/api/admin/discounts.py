"""Staff routes of discount codes: list (with uses and revenue), create, read, change, switch on or
off, and the CSV of every code. Every route needs the admin session."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Query, Response
from sqlmodel import Session

from storefront.api.admin.discounts_schemas import ActiveBody, DiscountAnswer, DiscountBody, DiscountPage
from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY
from storefront.api.schemas import dump, errors
from storefront.api.sessions import SessionRoute, get_session
from storefront.services.admin import admin_discounts, admin_orders
from storefront.services.discounts import codes

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: discounts"], route_class=SessionRoute)

BASE = "/api/admin/discounts"
CSV_FILENAME = "discounts.csv"


@router.get(BASE, response_model=DiscountPage, responses=errors(422))
def list_discounts(
    limit: str | None = Query(None, description=f"Codes per page, 1 to {admin_discounts.MAX_PAGE}"),
    cursor: str | None = Query(None, description="nextCursor of the previous page; none for the newest codes"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """A page of codes, newest first, each with its uses, paid orders and revenue."""
    return admin_discounts.list_codes(session, limit=admin_orders.page_limit(limit), cursor=cursor)


@router.get(f"{BASE}/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_discounts(session: Session = Depends(get_session)) -> Response:
    """Every code with its uses and revenue as a CSV download."""
    return Response(
        admin_discounts.export_csv(session),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{CSV_FILENAME}"', "Cache-Control": "no-store"},
    )


@router.post(BASE, status_code=201, response_model=DiscountAnswer, responses=errors(422))
def create_discount(
    payload: DiscountBody | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """Make a code (422 with a message per field; a code another already has is refused)."""
    code = codes.create_code(session, dump(payload))
    return {"success": True, "discount": admin_discounts.code_detail(session, code)}


@router.get(f"{BASE}/{{discount_id}}", response_model=DiscountAnswer, responses=errors(404))
def get_discount(discount_id: str, session: Session = Depends(get_session)) -> dict[str, Any]:
    return {"success": True, "discount": admin_discounts.code_detail(session, codes.get_code(session, discount_id))}


@router.put(f"{BASE}/{{discount_id}}", response_model=DiscountAnswer, responses=errors(404, 422))
def update_discount(
    discount_id: str, payload: DiscountBody | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """Change a code from its whole form; the uses it has are kept."""
    code = codes.update_code(session, discount_id, dump(payload))
    return {"success": True, "discount": admin_discounts.code_detail(session, code)}


@router.post(f"{BASE}/{{discount_id}}/active", response_model=DiscountAnswer, responses=errors(404, 422))
def set_active(discount_id: str, payload: ActiveBody, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Switch a code on or off (an inactive code is refused at checkout as not valid)."""
    code = codes.set_active(session, discount_id, payload.active)
    return {"success": True, "discount": admin_discounts.code_detail(session, code)}
