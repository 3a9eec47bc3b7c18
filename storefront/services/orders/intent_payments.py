"""Orders paid through Stripe: one PaymentIntent per order total, paid only on Stripe's word.

The browser confirms the intent with Stripe itself (the card never reaches us); an order becomes
paid only when the server has seen its own intent (the one the store created, its id kept on the
order) `succeeded` for exactly the order's total and currency, from a signed webhook event or from
retrieving the intent when the browser reports success. Any other succeeded intent that names the
order (made by another tool on the same account, or a second charge) leaves it as it was and flags
it for a refund. Each event is applied once: its id is recorded in the same transaction as its effect.
Every change is a compare-and-set on the order's row, so events out of order never undo what is
final (a `payment_failed` after `succeeded` changes nothing).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlmodel import Session, col, select, update

from storefront.models import Order, OrderRefund, OutboxJob, PaymentAttempt, utcnow
from storefront.services.orders import lifecycle, order_access, order_history, refund_amounts
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_payment import ORDER_CANCELLED, SEND_ORDER
from storefront.services.orders.statuses import PAYABLE, WAS_PAID, AttemptStatus, OrderStatus
from storefront.services.payments.gateway import GatewayRefused
from storefront.services.payments.stripe_gateway import (
    CANCELED,
    CURRENCY,
    PROCESSING,
    Intent,
    StripeGateway,
    intent_from,
)
from storefront.services.platform.errors import ConflictError, NotFoundError
from storefront.services.platform.money import format_usd
from storefront.services.platform.webhook_deliveries import record_delivery

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
NO_INTENT = "This order has no payment to confirm yet."
#: Prefix of Stripe event ids in the webhook_delivery table (shared with the provider's deliveries).
EVENT_PREFIX = "stripe:"


class EventOutcome(StrEnum):
    """What one webhook event did."""

    APPLIED = "applied"
    DUPLICATE = "duplicate"
    IGNORED = "ignored"


@dataclass(frozen=True)
class Handoff:
    """What the shopper's browser needs to pay with Stripe's Payment Element."""

    client_secret: str
    publishable_key: str

    def __repr__(self) -> str:  # the client secret stays out of logs
        return f"Handoff(publishable_key={self.publishable_key!r})"

    def answer(self) -> dict[str, str]:
        """The `payment` part of the order answer."""
        return {"provider": "stripe", "clientSecret": self.client_secret, "publishableKey": self.publishable_key}


def intent_key(order: Order, attempt: int) -> str:
    """The idempotency key of the order's n-th intent: its number plus a digest of the checkout's
    own key, so two stores on one Stripe account never share a key."""
    digest = hashlib.sha256(order.idempotency_key.encode()).hexdigest()[:16]
    return f"{order.number}-{digest}-pi-{attempt}"


def refund_key(order: Order) -> str:
    """The idempotency key of the refund of the whole order (a double click refunds once)."""
    digest = hashlib.sha256(order.idempotency_key.encode()).hexdigest()[:16]
    return f"{order.number}-{digest}-refund"


def _not_its_own(order: Order, intent: Intent) -> str | None:
    """Why a succeeded intent is not the one the store made for this order, or None when it is.

    Only the intent the store created (its id kept on the order) pays it: anyone with the Stripe
    account's keys can make an intent whose metadata names the order."""
    if intent.id == order.payment_intent_id:
        return None
    if order.payment_status in WAS_PAID:
        return f"Stripe payment {intent.id} is a second charge: the order was paid by {order.payment_id}"
    return f"Stripe payment {intent.id} names this order but is not the payment the store created for it"


def _mismatch(order: Order, intent: Intent) -> str | None:
    """Why a succeeded intent does not pay this order, or None when it does."""
    if intent.currency != CURRENCY:
        return f"Stripe payment {intent.id} is in {intent.currency.upper()}, not USD"
    if intent.amount_received != order.total_cents:
        return (
            f"Stripe payment {intent.id} received {format_usd(intent.amount_received)}"
            f" for an order total of {format_usd(order.total_cents)}"
        )
    if intent.order_number and intent.order_number != order.number:
        return f"Stripe payment {intent.id} names order {intent.order_number}"
    return None


class IntentPayments:
    """The Stripe side of paying an order: its intent, the browser's report, Stripe's events."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        gateway: StripeGateway,
        *,
        clock: Clock = utcnow,
        emails: OrderEmails,
    ) -> None:
        self._session_factory = session_factory
        self._gateway = gateway
        self._clock = clock
        self._emails = emails

    @property
    def emails(self) -> OrderEmails:
        return self._emails

    # ------------------------------------------------------------------ the intent

    def handoff(self, number: str) -> Handoff | None:
        """The client secret of the intent that pays the order's current total, made if needed;
        None when the order is no longer payable (paid, refunded or cancelled)."""
        with self._session_factory() as session:
            order = order_access.find_order(session, number)
            if order.status != OrderStatus.PENDING or order.payment_status not in PAYABLE:
                return None
            current = order.payment_intent_id
            attempts = self._attempts(session, order)
        if current:
            intent = self._gateway.retrieve_intent(current)
            if intent.succeeded:
                self.apply_intent(intent)
                return None
            if intent.amount == order.total_cents and intent.status != CANCELED:
                return Handoff(intent.client_secret, self._gateway.publishable_key)
            # The order was amended to another total: that intent must never be paid.
            self._cancel_quietly(intent, order)
        key = intent_key(order, attempts + 1)
        intent = self._gateway.create_intent(
            amount_cents=order.total_cents, order_number=order.number, idempotency_key=key
        )
        self._record_intent(order, current, intent, key)
        return Handoff(intent.client_secret, self._gateway.publishable_key)

    @staticmethod
    def _attempts(session: Session, order: Order) -> int:
        query = select(PaymentAttempt.id).where(col(PaymentAttempt.order_id) == order.id)
        return len(session.exec(query).all())

    def _cancel_quietly(self, intent: Intent, order: Order) -> None:
        # Ended already: a late success is flagged when its event comes (amount mismatch).
        with contextlib.suppress(GatewayRefused):
            self._gateway.abandon_intent(intent.id)

    def _record_intent(self, order: Order, previous: str | None, intent: Intent, key: str) -> None:
        """Make the new intent the order's own, and keep it as an attempt (once, even if raced)."""
        now = self._clock()
        with self._session_factory() as session:
            known = session.exec(select(PaymentAttempt.id).where(col(PaymentAttempt.gateway_key) == key)).first()
            if known is None:
                assert order.id is not None  # read from the database
                session.add(
                    PaymentAttempt(
                        order_id=order.id,
                        gateway_key=key,
                        amount_cents=intent.amount,
                        status=AttemptStatus.STARTED,
                        payment_id=intent.id,
                        created_at=now,
                    )
                )
            expected = (
                col(Order.payment_intent_id).is_(None) if previous is None else col(Order.payment_intent_id) == previous
            )
            session.execute(
                update(Order)
                .where(col(Order.id) == order.id, expected)
                .values(payment_intent_id=intent.id, payment_provider=self._gateway.name, updated_at=now)
            )
            session.commit()

    # ------------------------------------------------------------------ the browser's report

    def confirm(self, number: str, access_token: str | None) -> Order:
        """The browser says Stripe took the payment: ask Stripe, and mark the order paid only if so."""
        with self._session_factory() as session:
            order = order_access.shopper_order(session, number, access_token)
            if order.payment_status in WAS_PAID:
                return order
            if order.status == OrderStatus.CANCELLED:
                raise ConflictError(ORDER_CANCELLED)
            if not order.payment_intent_id:
                raise ConflictError(NO_INTENT)
            intent_id = order.payment_intent_id
        self.apply_intent(self._gateway.retrieve_intent(intent_id))
        with self._session_factory() as session:
            return order_access.find_order(session, number)

    def returned(self, intent_id: str, client_secret: str) -> tuple[str, bool]:
        """A payment method that left the page (3-D Secure, a bank's page) came back with its intent:
        apply what Stripe says of it now, so the order's page shows it paid before the webhook comes.
        The order's number, and whether the payment went through or is being processed. The same
        NotFoundError unless `client_secret` is that intent's (only the paying browser holds it)."""
        intent_id, client_secret = str(intent_id or "").strip(), str(client_secret or "").strip()
        if not intent_id or not client_secret or len(intent_id) > 64 or len(client_secret) > 200:
            raise NotFoundError(order_access.ORDER_NOT_FOUND)
        with self._session_factory() as session:
            order = session.exec(select(Order).where(col(Order.payment_intent_id) == intent_id)).first()
            if order is None:
                raise NotFoundError(order_access.ORDER_NOT_FOUND)
            number = order.number
        try:
            intent = self._gateway.retrieve_intent(intent_id)
        except GatewayRefused:
            raise NotFoundError(order_access.ORDER_NOT_FOUND) from None
        if not hmac.compare_digest(intent.client_secret.encode(), client_secret.encode()):
            raise NotFoundError(order_access.ORDER_NOT_FOUND)
        self.apply_intent(intent)
        return number, intent.succeeded or intent.status == PROCESSING

    # ------------------------------------------------------------------ Stripe's events

    def receive(self, payload: bytes, signature: str | None) -> EventOutcome:
        """One webhook delivery: verified on its raw bytes (ValueError if not Stripe's), applied once."""
        event = self._gateway.construct_event(payload, signature)
        event_id, kind = str(event.get("id") or ""), str(event.get("type") or "")
        obj = (event.get("data") or {}).get("object") or {}
        if not event_id:
            raise ValueError("Stripe event without an id")
        if kind.startswith("payment_intent."):
            return self.apply_intent(intent_from(obj), event_id=event_id, event_type=kind)
        if kind == "charge.refunded":
            return self._apply_refunded_charge(obj, event_id)
        if kind in ("refund.failed", "refund.updated", "charge.refund.updated"):
            return self._apply_refund_update(obj, event_id, kind)
        return self._record_only(event_id, kind)

    def _claim_event(self, session: Session, event_id: str | None, kind: str, resource: str) -> bool:
        """Record the event in this transaction; False when it was applied before."""
        if event_id is None:
            return True
        return record_delivery(session, f"{EVENT_PREFIX}{event_id}", kind, resource, self._clock())

    def _record_only(self, event_id: str, kind: str) -> EventOutcome:
        with self._session_factory() as session:
            if not self._claim_event(session, event_id, kind, ""):
                return EventOutcome.DUPLICATE
            session.commit()
        return EventOutcome.IGNORED

    @staticmethod
    def _order_for(session: Session, intent_id: str, number: str) -> Order | None:
        order = session.exec(select(Order).where(col(Order.payment_intent_id) == intent_id)).first()
        if order is None and number:
            order = session.exec(select(Order).where(col(Order.number) == number)).first()
        return order

    def apply_intent(self, intent: Intent, *, event_id: str | None = None, event_type: str = "") -> EventOutcome:
        """Bring the order in line with its intent as Stripe reports it (at most once per event)."""
        now = self._clock()
        with self._session_factory() as session:
            if not self._claim_event(session, event_id, event_type, intent.id):
                return EventOutcome.DUPLICATE
            order = self._order_for(session, intent.id, intent.order_number)
            if order is None:
                session.commit()
                return EventOutcome.IGNORED
            outcome = EventOutcome.IGNORED
            if intent.succeeded:
                outcome = self._paid(session, order, intent, now)
            elif intent.last_error and order.payment_intent_id == intent.id:
                failed = lifecycle.payment_failed(session, order, now=now)
                self._finish_attempt(session, intent, AttemptStatus.DECLINED, now, reason=intent.last_error)
                outcome = EventOutcome.APPLIED if failed else EventOutcome.IGNORED
            session.commit()
            return outcome

    def _paid(self, session: Session, order: Order, intent: Intent, now: datetime) -> EventOutcome:
        """Mark the order paid by its own intent and queue it for the provider, in this transaction,
        once; any other money that names the order flags it for a refund."""
        if (
            _not_its_own(order, intent) is None
            and _mismatch(order, intent) is None
            and self._pay(session, order, intent, now)
        ):
            return EventOutcome.APPLIED
        session.refresh(order)
        if order.payment_status in WAS_PAID and order.payment_id == intent.id:
            return EventOutcome.IGNORED  # paid by this very intent before: nothing is final twice
        # Money arrived that does not pay this order as it stands: a person must refund it.
        reason = (
            _not_its_own(order, intent)
            or _mismatch(order, intent)
            or f"Stripe payment {intent.id} arrived after the order was cancelled"
        )
        lifecycle.needs_attention(
            session,
            order,
            f"{reason}: refund it in Stripe",
            now=now,
            actor=order_history.STRIPE,
            action=order_history.PAYMENT_MISMATCH,
            detail=reason,
        )
        logger.error("Order %s: %s; it must be refunded", order.number, reason)
        return EventOutcome.APPLIED

    def _pay(self, session: Session, order: Order, intent: Intent, now: datetime) -> bool:
        """Mark the unpaid order paid by `intent`, still its own, and queue it; False if it changed under us."""
        payment = {
            "payment_id": intent.id,
            "payment_provider": self._gateway.name,
            "card_brand": intent.card_brand or None,
            "card_last4": intent.card_last4 or None,
        }
        if not lifecycle.paid(
            session,
            order,
            actor=order_history.STRIPE,
            payment=payment,
            now=now,
            emails=self.emails,
            detail=f"{format_usd(intent.amount_received)} by Stripe ({intent.id})",
            where=[col(Order.payment_intent_id) == intent.id],
        ):
            return False
        assert order.id is not None
        self._finish_attempt(session, intent, AttemptStatus.APPROVED, now)
        session.add(OutboxJob(kind=SEND_ORDER, order_id=order.id, next_attempt_at=now, created_at=now))
        logger.info("Order %s paid through Stripe (%s); queued for fulfilment", order.number, intent.id)
        return True

    @staticmethod
    def _finish_attempt(
        session: Session, intent: Intent, status: AttemptStatus, now: datetime, reason: str | None = None
    ) -> None:
        values: dict[str, Any] = {"status": status, "finished_at": now}
        if intent.card_brand:
            values.update(card_brand=intent.card_brand[:32], card_last4=(intent.card_last4 or "")[:4] or None)
        if reason:
            values["reason"] = reason[:2000]
        session.execute(update(PaymentAttempt).where(col(PaymentAttempt.payment_id) == intent.id).values(**values))

    def _apply_refunded_charge(self, charge: Mapping[str, Any], event_id: str) -> EventOutcome:
        """Stripe confirms the charge is refunded in full: the order's payment is 'refunded'."""
        intent_id = str(charge.get("payment_intent") or "")
        now = self._clock()
        with self._session_factory() as session:
            if not self._claim_event(session, event_id, "charge.refunded", intent_id):
                return EventOutcome.DUPLICATE
            order = (
                session.exec(select(Order).where(col(Order.payment_intent_id) == intent_id)).first()
                if intent_id
                else None
            )
            if order is None or not charge.get("refunded"):
                session.commit()
                return EventOutcome.IGNORED
            # A refund made in Stripe itself is recorded; the customer was told by whoever asked for it.
            done = lifecycle.refunded(
                session,
                order,
                actor=order_history.STRIPE,
                now=now,
                emails=None,
                detail=f"{format_usd(int(charge.get('amount_refunded') or 0))} confirmed by Stripe",
                values={"refunded_cents": order.total_cents},
            )
            session.commit()
            return EventOutcome.APPLIED if done else EventOutcome.IGNORED

    def _apply_refund_update(self, refund: Mapping[str, Any], event_id: str, kind: str) -> EventOutcome:
        """A refund Stripe could not complete (or undid after it succeeded): its amount is taken off
        what the order had refunded, once, and the order is paid again and needs a person."""
        now = self._clock()
        refund_id = str(refund.get("id") or "")
        with self._session_factory() as session:
            if not self._claim_event(session, event_id, kind, refund_id):
                return EventOutcome.DUPLICATE
            failed = str(refund.get("status") or "") in ("failed", "canceled")
            # Each refund staff asked for is its own row (an earlier part refund may fail after a
            # later one); an order refunded before part refunds existed knows only its one refund.
            row = (
                session.exec(select(OrderRefund).where(col(OrderRefund.refund_id) == refund_id)).first()
                if refund_id
                else None
            )
            order = (
                session.get(Order, row.order_id)
                if row is not None
                else session.exec(select(Order).where(col(Order.refund_id) == refund_id)).first()
            )
            if order is None or not failed or (row is not None and row.status == refund_amounts.FAILED):
                session.commit()
                return EventOutcome.IGNORED
            reason = f"Stripe could not refund the payment ({refund.get('failure_reason') or 'unknown reason'})"
            taken_back = row.amount_cents if row is not None else order.refunded_cents
            moved = lifecycle.refund_failed(
                session,
                order,
                actor=order_history.STRIPE,
                detail=f"{format_usd(taken_back)} ({refund_id}): {reason}",
                now=now,
                values={"attention_reason": reason, "refunded_cents": max(order.refunded_cents - taken_back, 0)},
            )
            if moved and row is not None:
                session.execute(
                    update(OrderRefund).where(col(OrderRefund.id) == row.id).values(status=refund_amounts.FAILED)
                )
            session.commit()
            return EventOutcome.APPLIED if moved else EventOutcome.IGNORED
