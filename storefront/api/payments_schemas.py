"""Models of the card check (storefront/api/payments.py), with the card form an order's payment sends too."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import _example, _Open


_CARD_EXAMPLE = {"cardNumber": "4242 4242 4242 4242", "expiryDate": "12/39", "cvv": "739", "cardholderName": "Ada Lovelace"}


class CardData(_Open):
    """The card form; numbers typed into JSON are read as text. Checked by the payment rules."""

    cardNumber: str | int | None = None  # noqa: N815
    expiryDate: str | int | None = Field(None, description="MM/YY")  # noqa: N815
    expiryMonth: str | int | None = None  # noqa: N815
    expiryYear: str | int | None = None  # noqa: N815
    cvv: str | int | None = None
    cardholderName: str | int | None = None  # noqa: N815


class CardCheckRequest(_Open):
    model_config = _example({"cardData": _CARD_EXAMPLE})

    cardData: CardData  # noqa: N815


class CardCheckAnswer(_Open):
    valid: bool
    fieldErrors: dict[str, str]  # noqa: N815
