"""Models of the card check (storefront/api/payments.py), with the card form an order's payment sends too."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import _example, _Open

_CARD_EXAMPLE = {
    "cardNumber": "4242 4242 4242 4242",
    "expiryDate": "12/39",
    "cvv": "739",
    "cardholderName": "Ada Lovelace",
}


class CardData(_Open):
    """The card form; numbers typed into JSON are read as text. Checked by the payment rules."""

    cardNumber: str | int | None = None
    expiryDate: str | int | None = Field(None, description="MM/YY")
    expiryMonth: str | int | None = None
    expiryYear: str | int | None = None
    cvv: str | int | None = None
    cardholderName: str | int | None = None


class CardCheckRequest(_Open):
    model_config = _example({"cardData": _CARD_EXAMPLE})

    cardData: CardData


class CardCheckAnswer(_Open):
    valid: bool
    fieldErrors: dict[str, str]
