"""No token, card field or address reaches the log, whatever logs it and however it is rendered."""

from __future__ import annotations

import io
import logging
import secrets

import pytest
from reflex.event import Event

from storefront.services.platform import log_redaction
from storefront.services.platform.log_redaction import redact
from storefront.state.order_status import remembered_order

ADMIN_TOKEN = secrets.token_urlsafe(32)
ORDER_TOKEN = secrets.token_urlsafe(32)
CARD = "4242 4242 4242 4242"


def test_tokens_card_fields_and_addresses_are_masked_but_the_rest_is_kept() -> None:
    text = redact(
        repr(
            {
                "form": {"username": "admin", "password": "hunter2!"},
                "cardData": {"cardNumber": CARD, "cvv": "123", "expiryDate": "12/30"},
                "shippingAddress.address1": "1 Main St",
                "customer.email": "ann@example.com",
                "kept": ADMIN_TOKEN,
                "remembered": remembered_order("SF-000123", ORDER_TOKEN),
                "quantity": 2,
            }
        )
        + " in /work/main/storefront/state/checkout.py line 120 for order SF-000123"
    )
    for secret in (ADMIN_TOKEN, ORDER_TOKEN, "hunter2!", "4242", "123'", "12/30", "1 Main St", "ann@example.com"):
        assert secret not in text
    assert "'quantity': 2" in text and "storefront/state/checkout.py line 120" in text and "SF-000123" in text


def test_a_bare_card_number_or_token_is_masked_anywhere() -> None:
    assert CARD.replace(" ", "") not in redact(f"charged {CARD.replace(' ', '')} ok")
    assert ADMIN_TOKEN not in redact(f"Bearer {ADMIN_TOKEN}")


@pytest.fixture
def captured() -> io.StringIO:
    """What Reflex's event processor logger writes, through a plain handler, with masking installed."""
    log_redaction.install()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logger = logging.getLogger("reflex_base.event.processor.event_processor")
    logger.addHandler(handler)
    try:
        yield out
    finally:
        logger.removeHandler(handler)


def test_a_failing_event_is_logged_without_its_token_headers_or_payload(captured: io.StringIO) -> None:
    event = Event(
        name="reflex___state____state.storefront___state___admin___session____admin_state.resume_session",
        router_data={"pathname": "/admin/dashboard", "headers": {"cookie": f"sid={ADMIN_TOKEN}", "host": "shop"}},
        payload={"token": ADMIN_TOKEN, "form": {"cardNumber": CARD, "shippingAddress.address1": "1 Main St"}},
    )

    def failing_handler(token: str) -> None:
        raise ValueError(f"cannot resume {token}")

    try:
        failing_handler(ADMIN_TOKEN)
    except ValueError:
        # Word for word what Reflex's event processor logs when a handler fails.
        logging.getLogger("reflex_base.event.processor.event_processor").exception(
            f"Error processing event queue entry for {event} [txid=1]:"
        )
    written = captured.getvalue()
    assert "resume_session" in written and "ValueError" in written  # the failure itself is still told
    for secret in (ADMIN_TOKEN, CARD, "1 Main St"):
        assert secret not in written


def test_installing_twice_keeps_one_mask() -> None:
    log_redaction.install()
    factory = logging.getLogRecordFactory()
    log_redaction.install()
    assert logging.getLogRecordFactory() is factory


def test_long_names_are_kept_whole_and_a_key_ending_one_is_still_masked() -> None:
    # Reflex's lock warning names the tab's state token (120 characters of name); it says nothing secret.
    warning = (
        "Lock for token 5e3be2d1-6c07-4590-b879-8986a297fb84_reflex___state____state.storefront___state___"
        "catalog____products_state was held too long time_taken=1.2s"
    )
    assert redact(warning) == warning
    masked = redact(f"{'x_' * 500}session_token={ADMIN_TOKEN} kept")
    assert ADMIN_TOKEN not in masked and masked.endswith("session_token='[redacted]' kept")
