"""POST /api/payments/validate-card: the card rules checked without charging or keeping anything."""

from datetime import date

from fastapi import APIRouter, Body, Request

from storefront.api.orders import client_address
from storefront.services.errors import ValidationError
from storefront.services.order_payment import card_from_form
from storefront.services.payments import validate_card

router = APIRouter()


@router.post("/api/payments/validate-card")
def check_card(request: Request, cardData: dict = Body(..., embed=True)) -> dict:  # noqa: N803  (the spec's name)
    """The message for each bad card field, so the checkout can show them at the fields."""
    # Counted with payments: checking numbers one by one is card testing too.
    request.app.state.services.payment_limiter.check(f"pay:{client_address(request)}")
    try:
        validate_card(card_from_form(cardData), date.today())
    except ValidationError as error:
        return {"valid": False, "fieldErrors": error.field_errors}
    return {"valid": True, "fieldErrors": {}}
