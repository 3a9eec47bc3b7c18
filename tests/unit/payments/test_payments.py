"""Card checks and the built-in test payment gateway."""

from __future__ import annotations

from datetime import date

import pytest

from storefront.services.payments.gateway import (
    CardDetails,
    PaymentDeclined,
    PaymentGateway,
    PaymentResult,
    TestPaymentGateway,
    card_brand,
    luhn_valid,
    parse_expiry,
    validate_card,
)
from storefront.services.platform.errors import ConflictError, ValidationError

TODAY = date(2030, 6, 15)
APPROVED = "4242 4242 4242 4242"
DECLINED = "4000 0000 0000 0002"
INSUFFICIENT = "4000 0000 0000 9995"


def card(
    number: str = APPROVED, expiry: str = "12/31", cvv: str = "123", name: str = "Ada Lovelace"
) -> CardDetails:
    return CardDetails(number=number, expiry=expiry, cvv=cvv, cardholder_name=name)


def field_errors(card_details: CardDetails) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        validate_card(card_details, TODAY)
    return caught.value.field_errors


def gateway() -> TestPaymentGateway:
    return TestPaymentGateway(today=lambda: TODAY)


# --- Luhn and brand ---


@pytest.mark.parametrize(
    "number",
    [
        "4242424242424242",
        "4242 4242 4242 4242",
        "4242-4242-4242-4242",
        "378282246310005",
        "5555555555554444",
    ],
)
def test_luhn_accepts_valid_numbers_with_or_without_separators(number: str) -> None:
    assert luhn_valid(number)


@pytest.mark.parametrize(
    "number", ["4242424242424241", "1234 5678 9012 3456", "4242 4242 4242 424x", "", " - "]
)
def test_luhn_rejects_invalid_or_non_digit_numbers(number: str) -> None:
    assert not luhn_valid(number)


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4242 4242 4242 4242", "visa"),
        ("5555 5555 5555 4444", "mastercard"),
        ("2223 0031 2200 3222", "mastercard"),
        ("3782 822463 10005", "amex"),
        ("3400 000000 00009", "amex"),
        ("6011 1111 1111 1117", "discover"),
        ("6500 0000 0000 0002", "discover"),
        ("3056 9309 0259 04", "unknown"),
        ("not a card", "unknown"),
    ],
)
def test_card_brand_is_detected_from_leading_digits(number: str, brand: str) -> None:
    assert card_brand(number) == brand


# --- Expiry ---


@pytest.mark.parametrize("text", ["12/31", "12 / 31", "1231", " 12/31 "])
def test_parse_expiry_accepts_mm_yy_forms(text: str) -> None:
    assert parse_expiry(text, TODAY) == (12, 2031)


def test_card_expiring_this_month_is_still_valid() -> None:
    assert parse_expiry("06/30", TODAY) == (6, 2030)


def test_card_that_expired_last_month_is_rejected_as_expired() -> None:
    with pytest.raises(ValidationError) as caught:
        parse_expiry("05/30", TODAY)
    assert caught.value.field_errors == {"expiryDate": "Card has expired"}


def test_card_from_last_december_is_expired_in_january() -> None:
    with pytest.raises(ValidationError) as caught:
        parse_expiry("12/29", date(2030, 1, 1))
    assert caught.value.field_errors == {"expiryDate": "Card has expired"}


@pytest.mark.parametrize("text", ["13/31", "00/31"])
def test_month_outside_one_to_twelve_is_rejected(text: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_expiry(text, TODAY)
    assert caught.value.field_errors == {"expiryDate": "Expiry date is invalid"}


@pytest.mark.parametrize("text", ["12/2", "12/2031", "1/31", "ab/cd", "12-31", "12 31", ""])
def test_malformed_expiry_is_rejected(text: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_expiry(text, TODAY)
    assert caught.value.field_errors == {"expiryDate": "Expiry date is invalid"}


# --- Field validation with the spec's messages ---


def test_valid_card_passes_validation_and_is_charged() -> None:
    assert validate_card(card(), TODAY) is None
    result = gateway().charge(amount_cents=100, card=card(), idempotency_key="order-1")
    assert (result.brand, result.last4, result.amount_cents) == ("visa", "4242", 100)


def test_empty_card_reports_the_spec_messages_for_every_field() -> None:
    assert field_errors(card(number="", expiry="", cvv="", name="")) == {
        "cardNumber": "Card number is required",
        "expiryDate": "Expiry date is required",
        "cvv": "CVV is required",
        "cardholderName": "Cardholder name is required",
    }


def test_card_number_shorter_than_16_characters_is_required_message() -> None:
    assert field_errors(card(number="4242 4242 4242"))["cardNumber"] == "Card number is required"


def test_expiry_shorter_than_5_characters_is_required_message() -> None:
    assert field_errors(card(expiry="12/3"))["expiryDate"] == "Expiry date is required"


def test_cvv_shorter_than_3_characters_is_required_message() -> None:
    assert field_errors(card(cvv="12"))["cvv"] == "CVV is required"


def test_blank_cardholder_name_is_required_message() -> None:
    assert field_errors(card(name="   "))["cardholderName"] == "Cardholder name is required"


def test_card_number_failing_luhn_is_invalid() -> None:
    bad_checksum = card(number="4242 4242 4242 4241")
    assert field_errors(bad_checksum) == {"cardNumber": "Card number is invalid"}


def test_expired_card_fails_validation_on_expiry_date() -> None:
    assert field_errors(card(expiry="05/30")) == {"expiryDate": "Card has expired"}


def test_four_digit_cvv_is_invalid_for_visa() -> None:
    assert field_errors(card(cvv="1234")) == {"cvv": "CVV is invalid"}


def test_three_digit_cvv_is_invalid_for_amex() -> None:
    amex = card(number="3782 822463 10005", cvv="123")
    assert field_errors(amex) == {"cvv": "CVV is invalid"}


def test_four_digit_cvv_is_valid_for_amex() -> None:
    amex = card(number="3782 822463 10005", cvv="1234")
    assert validate_card(amex, TODAY) is None
    result = gateway().charge(amount_cents=100, card=amex, idempotency_key="order-1")
    assert (result.brand, result.last4) == ("amex", "0005")


def test_non_digit_cvv_is_invalid() -> None:
    assert field_errors(card(cvv="12a")) == {"cvv": "CVV is invalid"}


def test_validation_error_message_is_the_first_field_message() -> None:
    with pytest.raises(ValidationError) as caught:
        validate_card(card(number="4242 4242 4242 4241", cvv=""), TODAY)
    assert caught.value.message == "Card number is invalid"


# --- Card details never show the number or CVV ---


def test_card_details_repr_hides_number_and_cvv() -> None:
    details = card(cvv="987")
    for text in (repr(details), str(details), f"{details}"):
        assert "4242424242424242" not in text.replace(" ", "")
        assert "987" not in text
        assert "4242" in text


def test_card_details_repr_of_short_garbage_shows_no_digits() -> None:
    assert "12345" not in repr(card(number="12345"))


# --- Test gateway ---


def test_test_gateway_satisfies_the_payment_gateway_protocol() -> None:
    assert isinstance(gateway(), PaymentGateway)


def test_gateway_approves_4242_card() -> None:
    result = gateway().charge(amount_cents=5997, card=card(), idempotency_key="order-1")
    assert result.brand == "visa"
    assert result.last4 == "4242"
    assert result.amount_cents == 5997
    assert result.payment_id.startswith("pay_")


def test_gateway_approves_other_luhn_valid_numbers() -> None:
    result = gateway().charge(
        amount_cents=100, card=card(number="5555 5555 5555 4444"), idempotency_key="order-1"
    )
    assert (result.brand, result.last4) == ("mastercard", "4444")


def test_gateway_declines_4000_0002_with_reason() -> None:
    with pytest.raises(PaymentDeclined) as caught:
        gateway().charge(amount_cents=100, card=card(number=DECLINED), idempotency_key="order-1")
    assert caught.value.reason == "Your card was declined."
    assert caught.value.status_code == 402


def test_gateway_declines_4000_9995_for_insufficient_funds() -> None:
    with pytest.raises(PaymentDeclined) as caught:
        gateway().charge(
            amount_cents=100, card=card(number=INSUFFICIENT), idempotency_key="order-1"
        )
    assert caught.value.message == "Your card has insufficient funds."


def test_gateway_rejects_invalid_card_with_field_errors() -> None:
    with pytest.raises(ValidationError) as caught:
        gateway().charge(amount_cents=100, card=card(expiry="05/30"), idempotency_key="order-1")
    assert caught.value.field_errors == {"expiryDate": "Card has expired"}


def test_gateway_checks_expiry_against_its_injected_today() -> None:
    later = TestPaymentGateway(today=lambda: date(2032, 1, 1))
    with pytest.raises(ValidationError):
        later.charge(amount_cents=100, card=card(expiry="12/31"), idempotency_key="order-1")


def test_same_idempotency_key_returns_the_same_payment() -> None:
    payments = gateway()
    first = payments.charge(amount_cents=100, card=card(), idempotency_key="order-1")
    second = payments.charge(amount_cents=100, card=card(), idempotency_key="order-1")
    assert second == first
    assert second.payment_id == first.payment_id


def test_different_idempotency_keys_create_different_payments() -> None:
    payments = gateway()
    first = payments.charge(amount_cents=100, card=card(), idempotency_key="order-1")
    second = payments.charge(amount_cents=100, card=card(), idempotency_key="order-2")
    assert second.payment_id != first.payment_id


def test_reusing_an_idempotency_key_with_another_amount_is_a_conflict() -> None:
    payments = gateway()
    payments.charge(amount_cents=100, card=card(), idempotency_key="order-1")
    with pytest.raises(ConflictError):
        payments.charge(amount_cents=200, card=card(), idempotency_key="order-1")


def test_a_declined_charge_can_be_retried_with_another_card_under_the_same_key() -> None:
    payments = gateway()
    with pytest.raises(PaymentDeclined):
        payments.charge(amount_cents=100, card=card(number=DECLINED), idempotency_key="order-1")
    result = payments.charge(amount_cents=100, card=card(), idempotency_key="order-1")
    assert isinstance(result, PaymentResult)


def test_payment_result_holds_no_full_card_number() -> None:
    result = gateway().charge(amount_cents=100, card=card(), idempotency_key="order-1")
    assert "4242424242424242" not in repr(result)


@pytest.mark.parametrize("amount", [0, -100])
def test_gateway_refuses_non_positive_amounts(amount: int) -> None:
    with pytest.raises(ValueError):
        gateway().charge(amount_cents=amount, card=card(), idempotency_key="order-1")
