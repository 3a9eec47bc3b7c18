"""Stripe behind the PaymentGateway interface: PaymentIntents, refunds and signed webhook events.

The card never reaches our server: Stripe's Payment Element in the page sends it to Stripe, and
this client only creates, reads and cancels the order's PaymentIntent and refunds it, with the
official SDK (contract: ../shared/contracts/stripe.md). Every POST carries an idempotency key
derived from the order, so a retried request never creates a second intent or refund. The
client secret an intent carries is handed to the paying shopper's browser only, never logged or
stored.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import stripe

from storefront.services.payments.gateway import (
    REFUND_FAILED,
    REFUND_PENDING,
    REFUND_SUCCEEDED,
    GatewayRefused,
    GatewayUnavailable,
    PaymentDeclined,
    RefundResult,
)
from storefront.services.platform.metrics import external_call

logger = logging.getLogger(__name__)

CURRENCY = "usd"
#: The metadata key that names the order on its PaymentIntent.
ORDER_METADATA_KEY = "order"
#: Intent statuses that end it: nothing can change its outcome any more.
SUCCEEDED = "succeeded"
CANCELED = "canceled"
PROCESSING = "processing"
#: A Stripe call waits this long for an answer before it counts as failed (the SDK's default is 80 s).
TIMEOUT_SECONDS = 20.0
#: Network failures and 409/5xx answers are retried this often by the SDK, under the same key.
NETWORK_RETRIES = 2
WEBHOOK_TOLERANCE_SECONDS = 300
GATEWAY_DOWN = "The payment service could not be reached. Please try again in a moment."


@dataclass(frozen=True)
class Intent:
    """What the store needs of a PaymentIntent. `client_secret` goes to the shopper's browser only."""

    id: str
    status: str
    amount: int
    amount_received: int
    currency: str
    order_number: str
    client_secret: str = ""
    card_brand: str | None = None
    card_last4: str | None = None
    #: The decline message of the last failed attempt, safe to show to the shopper.
    last_error: str | None = None

    def __repr__(self) -> str:  # the client secret stays out of logs and tracebacks
        return f"Intent(id={self.id!r}, status={self.status!r}, amount={self.amount}, order={self.order_number!r})"

    __str__ = __repr__

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCEEDED


def _field(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a StripeObject or a plain dict (StripeObject has no .get() in SDK 16)."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    try:
        value = obj[name]
    except (KeyError, AttributeError, TypeError):
        return default
    return default if value is None else value


def intent_from(obj: Any) -> Intent:
    """An Intent from a PaymentIntent object (an API answer or an event's data.object)."""
    charge = _field(obj, "latest_charge")
    card = _field(_field(charge, "payment_method_details"), "card") if not isinstance(charge, str) else None
    error = _field(obj, "last_payment_error")
    metadata = _field(obj, "metadata", {})
    return Intent(
        id=str(_field(obj, "id", "")),
        status=str(_field(obj, "status", "")),
        amount=int(_field(obj, "amount", 0) or 0),
        amount_received=int(_field(obj, "amount_received", 0) or 0),
        currency=str(_field(obj, "currency", "")),
        order_number=str(_field(metadata, ORDER_METADATA_KEY, "") or ""),
        client_secret=str(_field(obj, "client_secret", "") or ""),
        card_brand=_field(card, "brand"),
        card_last4=_field(card, "last4"),
        last_error=_field(error, "message"),
    )


def refund_from(obj: Any) -> RefundResult:
    status = str(_field(obj, "status", ""))
    known = {REFUND_SUCCEEDED: REFUND_SUCCEEDED, "failed": REFUND_FAILED, "canceled": REFUND_FAILED}
    return RefundResult(
        str(_field(obj, "id", "")), known.get(status, REFUND_PENDING), int(_field(obj, "amount", 0) or 0)
    )


class StripeGateway:
    """Stripe through its official SDK; every failure becomes one of the payment errors."""

    name = "stripe"

    def __init__(
        self,
        secret_key: str,
        publishable_key: str,
        webhook_secret: str,
        *,
        api_base: str = "https://api.stripe.com",
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self.publishable_key = publishable_key
        self._webhook_secret = webhook_secret
        self._client = stripe.StripeClient(
            secret_key,
            base_addresses={"api": api_base.rstrip("/")},
            max_network_retries=NETWORK_RETRIES,
            http_client=stripe.new_default_http_client(timeout=timeout),
        )

    def __repr__(self) -> str:
        return f"StripeGateway(publishable_key={self.publishable_key!r})"

    # ------------------------------------------------------------------ intents

    def create_intent(self, *, amount_cents: int, order_number: str, idempotency_key: str) -> Intent:
        """A PaymentIntent for the order's total in USD, once per idempotency key."""
        params: dict[str, Any] = {
            "amount": amount_cents,
            "currency": CURRENCY,
            "automatic_payment_methods": {"enabled": True},
            "metadata": {ORDER_METADATA_KEY: order_number},
            "description": f"Order {order_number}",
        }
        return intent_from(self._call(self._client.v1.payment_intents.create, params=params,
                                      options={"idempotency_key": idempotency_key}))

    def retrieve_intent(self, intent_id: str) -> Intent:
        """The intent as Stripe has it now, with its charge's card brand and last four digits."""
        return intent_from(
            self._call(self._client.v1.payment_intents.retrieve, intent_id, params={"expand": ["latest_charge"]})
        )

    def cancel_intent(self, intent_id: str, *, reason: str, idempotency_key: str) -> Intent:
        """Cancel an intent nobody paid; GatewayRefused when it has succeeded (or ended) already."""
        return intent_from(
            self._call(
                self._client.v1.payment_intents.cancel,
                intent_id,
                params={"cancellation_reason": reason},
                options={"idempotency_key": idempotency_key},
            )
        )

    def abandon_intent(self, intent_id: str) -> Intent:
        """Cancel an intent nobody will pay (abandoned, or replaced by one for a new total), once."""
        return self.cancel_intent(intent_id, reason="abandoned", idempotency_key=f"{intent_id}-cancel")

    # ------------------------------------------------------------------ refunds

    def refund(self, *, payment_id: str, amount_cents: int, idempotency_key: str) -> RefundResult:
        """Refund `amount_cents` of the intent `payment_id`, once per idempotency key."""
        params = {"payment_intent": payment_id, "amount": amount_cents, "reason": "requested_by_customer"}
        return refund_from(
            self._call(self._client.v1.refunds.create, params=params, options={"idempotency_key": idempotency_key})
        )

    # ------------------------------------------------------------------ webhooks

    def construct_event(self, payload: bytes, signature: str | None) -> dict[str, Any]:
        """The event of a webhook delivery, verified on its raw bytes; ValueError when it is not
        Stripe's (bad signature, older than the tolerance, not JSON)."""
        try:
            event = self._client.construct_event(
                payload, signature or "", self._webhook_secret, tolerance=WEBHOOK_TOLERANCE_SECONDS
            )
        except stripe.SignatureVerificationError as exc:
            raise ValueError(f"Invalid Stripe signature: {exc.user_message or exc}") from None
        return event.to_dict()

    # ------------------------------------------------------------------ errors

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            with external_call("stripe", answers=(stripe.CardError,)):
                return method(*args, **kwargs)
        except stripe.CardError as exc:
            raise PaymentDeclined(exc.user_message or "Your card was declined.") from None
        except (stripe.APIConnectionError, stripe.RateLimitError, stripe.APIError) as exc:
            logger.warning(
                "Stripe call failed (%s, request %s): %s", type(exc).__name__, exc.request_id, exc.user_message
            )
            raise GatewayUnavailable(GATEWAY_DOWN) from None
        except (stripe.AuthenticationError, stripe.PermissionError) as exc:
            logger.error("Stripe refused our API key (%s): %s", type(exc).__name__, exc.user_message)
            raise GatewayUnavailable(GATEWAY_DOWN) from None
        except stripe.StripeError as exc:
            code = getattr(exc, "code", None)
            logger.warning("Stripe refused a request (%s, code %s, request %s): %s",
                           type(exc).__name__, code, exc.request_id, exc.user_message)
            raise GatewayRefused(exc.user_message or "The payment service refused the request.", details=code) from None
