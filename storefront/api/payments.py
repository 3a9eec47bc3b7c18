"""POST /api/payments/validate-card: the card rules checked without charging or keeping anything."""

from datetime import date

from fastapi import APIRouter, Body

from storefront.services.errors import ValidationError
from storefront.services.payments import CardDetails, validate_card

router = APIRouter()


@router.post("/api/payments/validate-card")
def check_card(cardData: dict = Body(..., embed=True)) -> dict:  # noqa: N803  (the spec's name)
    """The message for each bad card field, so the checkout can show them at the fields."""
    card = CardDetails(
        number=str(cardData.get("cardNumber") or ""),
        expiry=str(cardData.get("expiryDate") or ""),
        cvv=str(cardData.get("cvv") or ""),
        cardholder_name=str(cardData.get("cardholderName") or ""),
    )
    try:
        validate_card(card, date.today())
    except ValidationError as error:
        return {"valid": False, "fieldErrors": error.field_errors}
    return {"valid": True, "fieldErrors": {}}
