"""POST /api/payments/validate-card: the card rules checked without charging or keeping anything."""

from datetime import date

from fastapi import APIRouter, Body, Request

from storefront.api.orders import client_address
from storefront.api.payments_schemas import CardCheckAnswer, CardCheckRequest
from storefront.api.schemas import dump, errors
from storefront.services.orders.order_payment import card_from_form
from storefront.services.payments.gateway import validate_card
from storefront.services.platform.errors import ValidationError

router = APIRouter()


@router.post("/api/payments/validate-card", response_model=CardCheckAnswer, responses=errors(422, 429))
def check_card(request: Request, payload: CardCheckRequest = Body(...)) -> dict:
    """The message for each bad card field, so the checkout can show them at the fields."""
    # Counted with payments: checking numbers one by one is card testing too.
    request.app.state.services.payment_limiter.check(f"pay:{client_address(request)}")
    try:
        validate_card(card_from_form(dump(payload.cardData)), date.today())
    except ValidationError as error:
        return {"valid": False, "fieldErrors": error.field_errors}
    return {"valid": True, "fieldErrors": {}}
