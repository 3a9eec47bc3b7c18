"""Customer routes (owner): the list, a customer's page, and the two privacy duties, exporting a
customer's data as JSON and erasing it. The email travels in the body, never in the address."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Query, Request
from sqlmodel import Session

from storefront.api.admin.customers_schemas import (
    CustomerDetail,
    CustomerPage,
    CustomerRequest,
    ErasedAnswer,
)
from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY, actor_of
from storefront.api.schemas import dump, errors
from storefront.api.sessions import SessionRoute, get_session
from storefront.models import DB_INT_MAX
from storefront.services.customers import customers, privacy
from storefront.services.mail.mailers import MAIL_DIR

router = APIRouter(
    dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: customers"], route_class=SessionRoute
)


@router.get("/api/admin/customers", response_model=CustomerPage)
def list_customers(
    q: str = Query("", max_length=320, description="Part of an email"),
    limit: int = Query(customers.PAGE_SIZE, ge=1, le=customers.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0, le=DB_INT_MAX),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Everyone who ordered or subscribed: the latest order first, then subscribers without orders."""
    rows, total = customers.list_customers(session, query=q, limit=limit, offset=offset)
    return {"data": [row.as_dict() for row in rows], "total": total}


@router.post("/api/admin/customers/detail", response_model=CustomerDetail, responses=errors(404))
def customer_detail(payload: CustomerRequest | None = Body(None), session: Session = Depends(get_session)) -> Any:
    """A customer's page: their totals and their orders."""
    return customers.customer_page(session, dump(payload).get("email"))


@router.post("/api/admin/customers/export", responses=errors(404, 422))
def export_customer(
    request: Request, payload: CustomerRequest | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """Everything kept about the customer, as JSON (logged)."""
    return privacy.export_customer(session, actor_of(request), dump(payload).get("email"))


@router.post("/api/admin/customers/erase", response_model=ErasedAnswer, responses=errors(404, 422))
def erase_customer(
    request: Request, payload: CustomerRequest | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """Erase the customer: orders keep their money and lines, the personal fields are replaced
    everywhere (orders, history, mail log and its files, newsletter); logged."""
    folder = request.app.state.services.settings.data_dir / MAIL_DIR
    kept = privacy.erase_customer(session, actor_of(request), dump(payload).get("email"), folder)
    return {"success": True, "ordersKept": kept}
