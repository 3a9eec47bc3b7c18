"""Order routes (spec section 7): place an order, pay for it, read its status.

A shopper's order is reached with the access token returned when it was placed, sent in the
X-Order-Token header (or, for the status, a `token` query parameter); without it an order
answers 404 exactly like an unknown one. A guest without the token looks the order up by its
number and email (POST /api/orders/lookup), throttled per client address like payments.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from sqlmodel import Session

from storefront.api.errors import error_response
from storefront.api.orders_schemas import (
    GuestOrder,
    LookupRequest,
    OrderRequest,
    OrderStatusAnswer,
    PaymentAnswer,
    PaymentRequest,
    PlacedOrder,
    ReplayedOrder,
)
from storefront.api.schemas import dump, errors
from storefront.api.sessions import SessionRoute, get_session
from storefront.services.orders import checkout, fulfilment, order_access, order_lookup
from storefront.services.orders.order_payment import card_from_form, payment_key
from storefront.services.orders.statuses import PaymentStatus
from storefront.services.platform.errors import ConflictError, ServiceError
from storefront.services.staff import roles

router = APIRouter(route_class=SessionRoute)

CARDS_GO_TO_STRIPE = "Card payments are taken by Stripe in the checkout page; card details are never sent here."
NO_STRIPE = "Payments are taken by the built-in test gateway: use process-payment."

TOKEN_HEADER = "X-Order-Token"


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.post(
    "/api/printify/orders",
    status_code=201,
    response_model=PlacedOrder,
    responses={
        200: {
            "model": ReplayedOrder,
            "description": "A repeat of a request that already made the order (same Idempotency-Key and body) "
            "without its X-Order-Token: the order's number only, and no token (the first answer's stays the "
            "only one). With the token, a repeat answers 201 like the first time.",
        },
        **errors(404, 409, 422, 429, 503, d404="The X-Order-Token does not open the order to amend",
                 d429="Too many new orders from this address this hour (ORDERS_PER_HOUR); Retry-After says when",
                 d503="With Stripe: the payment service could not be reached (the order is saved; the body "
                      "names it in orderId and accessToken: retry with the same key and that X-Order-Token)"),
    },
)
def create_order(
    request: Request,
    payload: OrderRequest | None = Body(None),
    idempotency_key: str | None = Header(None, alias="Idempotency-Key"),
    access_token: str | None = Header(None, alias=TOKEN_HEADER),
    session: Session = Depends(get_session),
) -> dict[str, Any] | JSONResponse:
    """Validate, reprice and save an order; answers the order and its access token.

    The same Idempotency-Key returns the same order (without its token, unless the request carries
    it); with the order's token, a changed request under that key amends the unpaid order (the
    shopper fixed an address after a decline). New orders are limited per address and hour.
    """
    services = request.app.state.services
    data = dump(payload)
    body_key = data.get("idempotencyKey")
    key = idempotency_key or (body_key if isinstance(body_key, str) else None)
    placed = checkout.place_order(
        session, data, key, access_token, limiter=services.order_limiter, client=client_address(request),
        ship_to=services.settings.ship_to,
    )
    order = placed.order
    if placed.access_token is None:
        ref = {"id": order.number, "orderNumber": order.number}
        return JSONResponse({"order": ref, "accessToken": None, "replayed": True}, status_code=200)
    answer: dict[str, Any] = {
        "order": checkout.shopper_view(order, checkout.order_items(session, order.id)),
        "accessToken": placed.access_token,
    }
    intents = services.intents
    if intents is not None:
        # The order is saved whatever Stripe does; a retry of this request (same key) fetches the
        # same intent, so a lost answer never makes a second one.
        session.close()
        try:
            handoff = intents.handoff(order.number)
        except ServiceError as exc:
            # This answer is the only one with the token, and the retry needs it.
            return error_response(exc, orderId=order.number, accessToken=placed.access_token)
        if handoff is not None:
            answer["payment"] = handoff.answer()
        else:
            with services.session_factory() as fresh:
                found = order_access.find_order(fresh, order.number)
                answer["order"] = checkout.shopper_view(found, checkout.order_items(fresh, found.id))
    return answer


# Orders are addressed by their public number ("SF-000123") in URLs.
@router.post(
    "/api/printify/orders/{order_id}/process-payment",
    response_model=PaymentAnswer,
    responses=errors(402, 404, 409, 422, 429),
)
def process_payment(
    order_id: str,
    request: Request,
    payload: PaymentRequest | None = Body(None),
    access_token: str | None = Header(None, alias=TOKEN_HEADER),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Charge the order's total once; the body's paymentId makes a retried request charge only once.

    With Stripe the card is never sent here: this answers 409 and the page pays through Stripe."""
    services = request.app.state.services
    if services.intents is not None:
        raise ConflictError(CARDS_GO_TO_STRIPE)
    services.payment_limiter.check(f"pay:{client_address(request)}")
    data = dump(payload)
    order = services.payments.pay(
        order_id,
        access_token,
        card_from_form(data.get("cardData")),
        payment_key(data.get("paymentId")),
        client=client_address(request),
    )
    return {"success": True, "order": checkout.shopper_view(order, checkout.order_items(session, order.id))}


@router.post(
    "/api/printify/orders/{order_id}/confirm-payment",
    response_model=PaymentAnswer,
    responses=errors(404, 409, 422, 429, 503),
)
def confirm_payment(
    order_id: str,
    request: Request,
    access_token: str | None = Header(None, alias=TOKEN_HEADER),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Stripe.js reported the payment done: the server asks Stripe, and the order is paid only if
    Stripe says the intent succeeded for the order's exact total (success is false otherwise)."""
    services = request.app.state.services
    if services.intents is None:
        raise ConflictError(NO_STRIPE)
    services.payment_limiter.check(f"pay:{client_address(request)}")
    order = services.intents.confirm(order_id, access_token)
    paid = order.payment_status == PaymentStatus.PAID
    return {"success": paid, "order": checkout.shopper_view(order, checkout.order_items(session, order.id))}


@router.get(
    "/api/orders/{order_id}/status", response_model=OrderStatusAnswer, responses=errors(401, 403, 404, 422)
)
def order_status(
    order_id: str,
    request: Request,
    access_token: str | None = Header(None, alias=TOKEN_HEADER),
    token: str | None = Query(None),
    admin_token: str | None = Header(None, alias="x-admin-token"),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """Where an order stands: order, payment and fulfilment status, tracking number.

    Opened by the order's token, or by an admin session (x-admin-token); either way the customer's
    view, without staff fields (why an order needs attention is in the admin order routes)."""
    if admin_token:
        auth = request.app.state.services.auth
        auth.authorize(auth.verify(admin_token), roles.ORDERS)
        return fulfilment.order_status(order_access.find_order(session, order_id))
    return fulfilment.order_status(order_access.shopper_order(session, order_id, access_token or token))


@router.post("/api/orders/lookup", response_model=GuestOrder, responses=errors(404, 422, 429))
def lookup_order(
    request: Request, payload: LookupRequest | None = Body(None), session: Session = Depends(get_session)
) -> dict[str, Any]:
    """A guest's order by number and email: 404 alike whichever is wrong, 422 when one is missing."""
    request.app.state.services.lookup_limiter.check(order_lookup.lookup_key(client_address(request)))
    number, email = order_lookup.lookup_request(dump(payload))
    return order_lookup.lookup_order(session, number, email)


@router.get("/api/orders/{order_id}", response_model=GuestOrder, responses=errors(404, 422))
def shopper_order(
    order_id: str,
    access_token: str | None = Header(None, alias=TOKEN_HEADER),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    """The guest view of an order (as the lookup answers it), opened by its token in X-Order-Token."""
    return order_lookup.order_view_by_token(session, order_id, access_token)
