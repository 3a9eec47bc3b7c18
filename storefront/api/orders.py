"""Order routes (spec section 7): place an order, pay for it, read its status."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Body, Depends, Header, Request
from sqlmodel import Session

from storefront.services import checkout, fulfilment
from storefront.services.payments import PaymentGateway

router = APIRouter()


def get_session(request: Request) -> Iterator[Session]:
    """A session on the app's database for one request."""
    with Session(request.app.state.services.engine, expire_on_commit=False) as session:
        yield session


def get_gateway(request: Request) -> PaymentGateway:
    return request.app.state.services.gateway


@router.post("/api/printify/orders", status_code=201)
def create_order(
    payload: Any = Body(None),
    idempotency_key: str | None = Header(None, alias="Idempotency-Key"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Validate, reprice and save an order; the same Idempotency-Key returns the same order."""
    payload = payload if isinstance(payload, dict) else {}
    body_key = payload.get("idempotencyKey")
    key = idempotency_key or (body_key if isinstance(body_key, str) else None)
    order = checkout.create_order(session, payload, key)
    return {"order": checkout.serialize_order(order, checkout.order_items(session, order.id))}


# Orders are addressed by their public number ("SF-000123") in URLs.
@router.post("/api/printify/orders/{order_id}/process-payment")
def process_payment(
    order_id: str,
    payload: Any = Body(None),
    session: Session = Depends(get_session),
    gateway: PaymentGateway = Depends(get_gateway),
) -> dict[str, Any]:
    """Charge the order's total; the body's paymentId makes a retried request charge only once."""
    payload = payload if isinstance(payload, dict) else {}
    card = fulfilment.card_from_form(payload.get("cardData"))
    payment_key = fulfilment.payment_key(payload.get("paymentId"))
    order = fulfilment.pay_order(session, order_id, card, gateway, payment_key)
    return {"success": True, "order": checkout.serialize_order(order, checkout.order_items(session, order.id))}


@router.get("/api/orders/{order_id}/status")
def order_status(order_id: str, session: Session = Depends(get_session)) -> dict[str, Any]:
    """Where an order stands: order, payment and fulfilment status, tracking number."""
    return fulfilment.order_status(checkout.find_order(session, order_id))

