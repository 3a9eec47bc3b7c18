"""Card payments: the PaymentGateway protocol, card checks, and the built-in test gateway.

Card numbers and CVVs are never logged or stored here: results carry only the gateway's payment id,
the card brand and the last four digits.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol, runtime_checkable

from storefront.services.platform.errors import ConflictError, ServiceError, ValidationError

# Field names and the "required" messages are the checkout form's (spec section 5).
CARD_NUMBER_FIELD = "cardNumber"
EXPIRY_FIELD = "expiryDate"
CVV_FIELD = "cvv"
CARDHOLDER_FIELD = "cardholderName"
CARD_FIELDS = (CARD_NUMBER_FIELD, EXPIRY_FIELD, CVV_FIELD, CARDHOLDER_FIELD)

CARD_NUMBER_REQUIRED = "Card number is required"
EXPIRY_REQUIRED = "Expiry date is required"
CVV_REQUIRED = "CVV is required"
CARDHOLDER_REQUIRED = "Cardholder name is required"
CARD_NUMBER_INVALID = "Card number is invalid"
EXPIRY_INVALID = "Expiry date is invalid"
CARD_EXPIRED = "Card has expired"
CVV_INVALID = "CVV is invalid"

CARD_NUMBER_MIN_CHARS = 16
EXPIRY_MIN_CHARS = 5
CVV_MIN_CHARS = 3
CARD_NUMBER_DIGITS = range(12, 20)

DECLINED = "Your card was declined."
INSUFFICIENT_FUNDS = "Your card has insufficient funds."

_SEPARATORS = re.compile(r"[\s-]+")
_DIGITS = re.compile(r"[0-9]+")
_EXPIRY = re.compile(r"\s*(?P<month>[0-9]{2})(?:\s*/\s*)?(?P<year>[0-9]{2})\s*")


def card_digits(number: str) -> str:
    """The number without spaces or dashes (may still hold other characters)."""
    return _SEPARATORS.sub("", number)


@dataclass(frozen=True)
class CardDetails:
    """Card data as typed at checkout; its repr shows only the last four digits, never the CVV."""

    number: str = field(repr=False)
    expiry: str
    cvv: str = field(repr=False)
    cardholder_name: str

    @property
    def last4(self) -> str:
        digits = card_digits(self.number)
        return digits[-4:] if _DIGITS.fullmatch(digits) and len(digits) >= 12 else ""

    def __repr__(self) -> str:
        return (
            f"CardDetails(number='**** {self.last4 or '****'}', expiry={self.expiry!r}, "
            f"cvv='***', cardholder_name={self.cardholder_name!r})"
        )

    __str__ = __repr__


@dataclass(frozen=True)
class PaymentResult:
    """An approved charge: all an order keeps about the payment."""

    payment_id: str
    brand: str
    last4: str
    amount_cents: int


class PaymentDeclined(ServiceError):
    """The gateway refused the card; `reason` is safe to show to the shopper."""

    status_code = 402

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GatewayUnavailable(ServiceError):
    """The gateway could not be reached or failed on its side; nothing is known to have happened."""

    status_code = 503


class GatewayRefused(ServiceError):
    """The gateway refused a request in a way no retry fixes (a wrong state, a bad parameter)."""

    status_code = 409


@dataclass(frozen=True)
class RefundResult:
    """A refund as the gateway answered it: `succeeded` now, or `pending` until its event."""

    refund_id: str
    status: str
    amount_cents: int


#: Refund statuses: the money is on its way back (succeeded), or the gateway will say later.
REFUND_SUCCEEDED = "succeeded"
REFUND_PENDING = "pending"
REFUND_FAILED = "failed"


@runtime_checkable
class PaymentGateway(Protocol):
    """What every gateway does: give back a payment it took. `name` is stored with the order."""

    name: str

    def refund(self, *, payment_id: str, amount_cents: int, idempotency_key: str) -> RefundResult:
        """Refund `amount_cents` of the payment once per idempotency key."""
        ...


@runtime_checkable
class CardGateway(PaymentGateway, Protocol):
    """A gateway the card details are sent to by our server (the built-in test gateway only)."""

    def charge(
        self, *, amount_cents: int, card: CardDetails, idempotency_key: str
    ) -> PaymentResult:
        """Charge the card once per idempotency key; raise ValidationError or PaymentDeclined."""
        ...


def luhn_valid(number: str) -> bool:
    """Luhn checksum once spaces and dashes are removed; False if anything but digits remains."""
    digits = card_digits(number)
    if not _DIGITS.fullmatch(digits):
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = int(char)
        if position % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def card_brand(number: str) -> str:
    """visa, mastercard, amex, discover or unknown, from the number's leading digits."""
    digits = card_digits(number)
    if not _DIGITS.fullmatch(digits):
        return "unknown"
    if digits.startswith("4"):
        return "visa"
    if digits[:2] in {"34", "37"}:
        return "amex"
    if "51" <= digits[:2] <= "55" or (len(digits) >= 4 and "2221" <= digits[:4] <= "2720"):
        return "mastercard"
    if (
        digits.startswith(("6011", "65"))
        or (len(digits) >= 3 and "644" <= digits[:3] <= "649")
        or (len(digits) >= 6 and "622126" <= digits[:6] <= "622925")
    ):
        return "discover"
    return "unknown"


def parse_expiry(text: str, today: date) -> tuple[int, int]:
    """(month, four-digit year) from "MM/YY", "MM / YY" or "MMYY"; good through that month."""
    match = _EXPIRY.fullmatch(text)
    if match is None:
        raise ValidationError(EXPIRY_INVALID, {EXPIRY_FIELD: EXPIRY_INVALID})
    month = int(match["month"])
    year = 2000 + int(match["year"])
    if not 1 <= month <= 12:
        raise ValidationError(EXPIRY_INVALID, {EXPIRY_FIELD: EXPIRY_INVALID})
    if (year, month) < (today.year, today.month):
        raise ValidationError(CARD_EXPIRED, {EXPIRY_FIELD: CARD_EXPIRED})
    return month, year


def validate_card(card: CardDetails, today: date) -> None:
    """Raise ValidationError with a message for each bad field of the checkout form."""
    errors: dict[str, str] = {}

    number = card.number.strip()
    if len(number) < CARD_NUMBER_MIN_CHARS:
        errors[CARD_NUMBER_FIELD] = CARD_NUMBER_REQUIRED
    elif len(card_digits(number)) not in CARD_NUMBER_DIGITS or not luhn_valid(number):
        errors[CARD_NUMBER_FIELD] = CARD_NUMBER_INVALID

    expiry = card.expiry.strip()
    if len(expiry) < EXPIRY_MIN_CHARS:
        errors[EXPIRY_FIELD] = EXPIRY_REQUIRED
    else:
        try:
            parse_expiry(expiry, today)
        except ValidationError as exc:
            errors.update(exc.field_errors)

    cvv = card.cvv.strip()
    expected_cvv_length = 4 if card_brand(number) == "amex" else 3
    if len(cvv) < CVV_MIN_CHARS:
        errors[CVV_FIELD] = CVV_REQUIRED
    elif not _DIGITS.fullmatch(cvv) or len(cvv) != expected_cvv_length:
        errors[CVV_FIELD] = CVV_INVALID

    if not card.cardholder_name.strip():
        errors[CARDHOLDER_FIELD] = CARDHOLDER_REQUIRED

    if errors:
        raise ValidationError(next(iter(errors.values())), errors)


# Test numbers the built-in gateway declines, with the reason shown to the shopper.
DECLINED_TEST_CARDS: dict[str, str] = {
    "4000000000000002": DECLINED,
    "4000000000009995": INSUFFICIENT_FUNDS,
}


class TestPaymentGateway:
    """Built-in gateway: checks the card; approves Luhn-valid numbers except the decline test cards.

    Approved charges are remembered per idempotency key, so a retried request returns the first
    result instead of charging twice. Declines are not remembered: nothing was charged, so a retry
    with another card under the same key may succeed.
    """

    __test__ = False  # not a pytest test class, despite the name
    name = "test"

    def __init__(self, today: Callable[[], date] = date.today) -> None:
        self._today = today
        self._lock = threading.Lock()
        self._charges: dict[str, PaymentResult] = {}
        self._refunds: dict[str, RefundResult] = {}

    def refund(self, *, payment_id: str, amount_cents: int, idempotency_key: str) -> RefundResult:
        """Record a refund of a test payment, once per idempotency key (no money moved either way)."""
        if not payment_id or not idempotency_key:
            raise ValueError("payment_id and idempotency_key are required")
        with self._lock:
            earlier = self._refunds.get(idempotency_key)
            if earlier is None:
                earlier = RefundResult(f"re_test_{secrets.token_hex(12)}", REFUND_SUCCEEDED, amount_cents)
                self._refunds[idempotency_key] = earlier
            return earlier

    def charge(
        self, *, amount_cents: int, card: CardDetails, idempotency_key: str
    ) -> PaymentResult:
        """Validate, decline the decline test cards, approve the rest; once per idempotency key."""
        if not isinstance(amount_cents, int) or isinstance(amount_cents, bool) or amount_cents < 1:
            raise ValueError(f"amount_cents must be a positive integer, got {amount_cents!r}")
        if not idempotency_key:
            raise ValueError("idempotency_key is required")
        with self._lock:
            earlier = self._charges.get(idempotency_key)
            if earlier is not None:
                if (earlier.amount_cents, earlier.last4) != (amount_cents, card.last4):
                    raise ConflictError("This payment was already made with different details.")
                return earlier
            validate_card(card, self._today())
            reason = DECLINED_TEST_CARDS.get(card_digits(card.number))
            if reason is not None:
                raise PaymentDeclined(reason)
            result = PaymentResult(
                payment_id=f"pay_{secrets.token_hex(12)}",
                brand=card_brand(card.number),
                last4=card.last4,
                amount_cents=amount_cents,
            )
            self._charges[idempotency_key] = result
            return result
