"""Refunding and cancelling orders from the back office, and expiring checkouts nobody paid.

A refund goes through the gateway that took the payment, with an idempotency key of the order,
after a compare-and-set claims the order (paid -> refunding), so a double click or two staff at
once refund once. The provider's order is cancelled while the provider still allows it; an order
never sent is taken out of the outbox. Everything lands in the order's history with who and when.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select, update

from storefront.models import Order, OutboxJob, utcnow
from storefront.services.orders import order_access, order_emails, order_history
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.job_leases import JobLeases, one_at_a_time
from storefront.services.platform.errors import ConflictError
from storefront.services.orders.fulfilment import SEND_TO_PRODUCTION
from storefront.services.orders.intent_payments import IntentPayments, refund_key
from storefront.services.platform.money import format_usd
from storefront.services.orders.order_payment import PAYMENT_IN_PROGRESS, SEND_ORDER
from storefront.services.payments.gateway import (
    REFUND_FAILED,
    REFUND_SUCCEEDED,
    GatewayRefused,
    GatewayUnavailable,
    PaymentGateway,
)
from storefront.services.printify.errors import ProviderError, ProviderNotFound, ProviderUnavailable
from storefront.services.printify.provider import PrintProvider
from storefront.services.orders.statuses import PAYABLE, OrderStatus, PaymentStatus
from storefront.services.payments.stripe_gateway import StripeGateway

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
ShopId = Callable[[], int]

NOT_REFUNDABLE = "Only a paid order can be refunded."
NO_GATEWAY = "The payment gateway that took this payment ({name}) is not configured, so it cannot refund it."
JUST_PAID = "This order has just been paid: refresh it and refund it instead."
REFUND_DECLINED = "The payment gateway could not refund this order: {reason}"
ALREADY_PRINTING = "The garment is already being printed, so the print order could not be cancelled; the refund still goes through."
PROVIDER_UNREACHABLE = "The print provider could not be reached to cancel the print order: cancel it there by hand."
PROVIDER_CANCELLED_NOTE = "The print order was cancelled."
UNQUEUED_NOTE = "The order had not reached the print provider: it will not be printed."
#: Refunded orders whose printing could not be stopped keep this reason for staff.
STILL_PRINTING_REASON = "Refunded while the print provider was already printing it"


@dataclass(frozen=True)
class Outcome:
    """The order after a refund or cancellation, and what staff should be told about printing."""

    order: Order
    message: str


class OrderCancellations:
    """Refund and cancel orders for staff; `gateways` maps a gateway's name to the gateway."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        gateways: Mapping[str, PaymentGateway],
        provider: PrintProvider,
        shop_id: ShopId,
        *,
        intents: IntentPayments | None = None,
        clock: Clock = utcnow,
        emails: OrderEmails | None = None,
    ) -> None:
        self._session_factory = session_factory
        self._gateways = gateways
        self._provider = provider
        self._shop_id = shop_id
        self._intents = intents
        self._clock = clock
        self._emails = emails

    @property
    def emails(self) -> OrderEmails:
        return self._emails or order_emails.configured()

    # ------------------------------------------------------------------ refund

    def refund(self, number: str, admin: str) -> Outcome:
        """Refund the whole order once, then stop its printing where the provider still allows it."""
        return self._refund(number, admin, order_emails.REFUNDED)

    def _refund(self, number: str, admin: str, mail_kind: str) -> Outcome:
        """Refund as `refund` does; the customer is told with the email of `mail_kind` (refunded,
        or cancelled when staff cancelled a paid order)."""
        with self._session_factory() as session:
            order = order_access.find_order(session, number)
            if order.payment_status in (PaymentStatus.REFUNDING, PaymentStatus.REFUNDED):
                return Outcome(order, "")  # a second click: the first one refunds
            if order.payment_status != PaymentStatus.PAID or not order.payment_id:
                raise ConflictError(NOT_REFUNDABLE)
            gateway = self._gateways.get(order.payment_provider)
            if gateway is None:
                raise ConflictError(NO_GATEWAY.format(name=order.payment_provider))
            now = self._clock()
            claimed = session.execute(
                update(Order)
                .where(col(Order.id) == order.id, col(Order.payment_status) == PaymentStatus.PAID)
                .values(payment_status=PaymentStatus.REFUNDING, updated_at=now)
            ).rowcount
            if claimed != 1:
                session.rollback()
                return Outcome(order_access.find_order(session, number), "")
            assert order.id is not None
            order_history.record(session, order.id, admin, order_history.REFUND_REQUESTED, format_usd(order.total_cents), at=now)
            session.commit()
            key, payment_id, amount = refund_key(order), order.payment_id, order.total_cents
        try:
            result = gateway.refund(payment_id=payment_id, amount_cents=amount, idempotency_key=key)
        except (GatewayRefused, GatewayUnavailable) as exc:
            self._refund_failed(order, admin, exc.message)
            raise ConflictError(REFUND_DECLINED.format(reason=exc.message)) from None
        except Exception:
            # Unknown outcome: the order stays 'refunding' and a second click repeats the same key.
            logger.exception("Refund of order %s failed unexpectedly", order.number)
            raise
        if result.status == REFUND_FAILED:
            self._refund_failed(order, admin, "the refund failed")
            raise ConflictError(REFUND_DECLINED.format(reason="the refund failed"))
        self._refunded(order, admin, result.refund_id, result.status == REFUND_SUCCEEDED, mail_kind)
        message = self._stop_fulfilment(order, admin)
        with self._session_factory() as session:
            return Outcome(order_access.find_order(session, number), message)

    def _refund_failed(self, order: Order, admin: str, reason: str) -> None:
        with self._session_factory() as session:
            session.execute(
                update(Order)
                .where(col(Order.id) == order.id, col(Order.payment_status) == PaymentStatus.REFUNDING)
                .values(payment_status=PaymentStatus.PAID, updated_at=self._clock())
            )
            assert order.id is not None
            order_history.record(session, order.id, admin, order_history.REFUND_FAILED, reason, at=self._clock())
            session.commit()

    def _refunded(self, order: Order, admin: str, refund_id: str, confirmed: bool, mail_kind: str) -> None:
        """Keep the refund's id; the payment is 'refunded' once the gateway confirms it. The
        gateway took the refund: the customer is told (once) in the same transaction."""
        now = self._clock()
        values: dict[str, object] = {"refund_id": refund_id[:64], "updated_at": now}
        if confirmed:
            values["payment_status"] = PaymentStatus.REFUNDED
        with self._session_factory() as session:
            changed = session.execute(
                update(Order)
                .where(col(Order.id) == order.id, col(Order.payment_status) == PaymentStatus.REFUNDING)
                .values(**values)
            ).rowcount
            if changed:
                current = order_access.find_order(session, order.number)
                if mail_kind == order_emails.CANCELLED:
                    self.emails.order_cancelled(session, current, now)
                else:
                    self.emails.order_refunded(session, current, now)
            if confirmed:
                assert order.id is not None
                order_history.record(session, order.id, admin, order_history.REFUNDED,
                                     f"{format_usd(order.total_cents)} ({refund_id})", at=now)
            session.commit()
        logger.info("Order %s refunded by %s (%s, %s)", order.number, admin, refund_id,
                    "confirmed" if confirmed else "pending")

    def _stop_fulfilment(self, order: Order, admin: str) -> str:
        """Cancel the order at the provider, or take it out of the outbox; the note for staff."""
        now = self._clock()
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            assert current.id is not None
            if not current.printify_order_id:
                # The outbox skips an order that is no longer paid; closing its job says so at once.
                session.execute(
                    update(OutboxJob)
                    .where(col(OutboxJob.order_id) == current.id, col(OutboxJob.kind) == SEND_ORDER,
                           col(OutboxJob.done_at).is_(None))
                    .values(done_at=now, last_error="Cancelled: the order was refunded")
                )
                self._cancelled(session, current, admin, order_history.UNQUEUED, UNQUEUED_NOTE, now)
                session.commit()
                return UNQUEUED_NOTE
            provider_id = current.printify_order_id
        try:
            self._provider.cancel_order(self._shop_id(), provider_id)
        except ProviderUnavailable:
            logger.warning("Could not reach the print provider to cancel order %s", order.number)
            return self._note(order, admin, order_history.PROVIDER_PRINTING, PROVIDER_UNREACHABLE, PROVIDER_UNREACHABLE)
        except ProviderNotFound:
            return self._note(order, admin, order_history.PROVIDER_PRINTING, PROVIDER_UNREACHABLE, PROVIDER_UNREACHABLE)
        except ProviderError as exc:
            # Printify cancels only orders not yet in production (contract: on-hold, payment-not-received).
            logger.info("The print provider would not cancel order %s: %s", order.number, exc.message)
            return self._note(order, admin, order_history.PROVIDER_PRINTING, exc.message, ALREADY_PRINTING)
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            session.execute(
                update(OutboxJob)
                .where(col(OutboxJob.order_id) == current.id, col(OutboxJob.kind) == SEND_TO_PRODUCTION,
                       col(OutboxJob.done_at).is_(None))
                .values(done_at=now, last_error="Cancelled: the order was refunded")
            )
            current.printify_status = "canceled"
            session.add(current)
            self._cancelled(session, current, admin, order_history.PROVIDER_CANCELLED, provider_id, now)
            session.commit()
        return PROVIDER_CANCELLED_NOTE

    def _note(self, order: Order, admin: str, action: str, detail: str, message: str) -> str:
        with self._session_factory() as session:
            assert order.id is not None
            order_history.record(session, order.id, admin, action, detail, at=self._clock())
            session.execute(update(Order).where(col(Order.id) == order.id).values(
                attention_reason=f"{STILL_PRINTING_REASON}: {detail}"[:2000]))
            session.commit()
        return message

    @staticmethod
    def _cancelled(session: Session, order: Order, admin: str, action: str, detail: str, now: datetime) -> None:
        assert order.id is not None
        session.execute(update(Order).where(col(Order.id) == order.id).values(
            status=OrderStatus.CANCELLED, attention_reason=None, updated_at=now))
        order_history.record(session, order.id, admin, action, detail, at=now)

    # ------------------------------------------------------------------ cancel

    def cancel(self, number: str, admin: str) -> Outcome:
        """Cancel an order: a paid one is refunded (as Refund does), an unpaid one's intent is
        cancelled first, so it can never be paid afterwards."""
        with self._session_factory() as session:
            order = order_access.find_order(session, number)
        if order.status == OrderStatus.CANCELLED:
            return Outcome(order, "")
        if order.payment_status in (PaymentStatus.PAID, PaymentStatus.REFUNDING, PaymentStatus.REFUNDED):
            return self._refund(number, admin, order_emails.CANCELLED)
        if order.payment_status == PaymentStatus.CHARGING:
            raise ConflictError(PAYMENT_IN_PROGRESS)
        self._cancel_intent(order)
        now = self._clock()
        with self._session_factory() as session:
            if not expire_order(session, order, admin, order_history.CANCELLED, "Cancelled before payment", now):
                session.rollback()
                current = order_access.find_order(session, number)
                if current.status == OrderStatus.CANCELLED:
                    return Outcome(current, "")
                raise ConflictError(JUST_PAID if current.payment_status == PaymentStatus.PAID else PAYMENT_IN_PROGRESS)
            self.emails.order_cancelled(session, order_access.find_order(session, number), now)
            session.commit()
            return Outcome(order_access.find_order(session, number), "")

    def _cancel_intent(self, order: Order) -> None:
        """Cancel the order's PaymentIntent; ConflictError when Stripe says it was paid meanwhile."""
        gateway = self._gateways.get(order.payment_provider)
        if not order.payment_intent_id or not isinstance(gateway, StripeGateway):
            return
        cancel_unpaid_intent(gateway, self._intents, order.payment_intent_id)


def cancel_unpaid_intent(gateway: StripeGateway, intents: IntentPayments | None, intent_id: str) -> None:
    """Cancel an intent so it can never be paid; ConflictError (and the order marked paid) when it was."""
    try:
        gateway.abandon_intent(intent_id)
        return
    except GatewayRefused:
        intent = gateway.retrieve_intent(intent_id)
    if intent.status == "canceled":
        return
    if intent.succeeded and intents is not None:
        intents.apply_intent(intent)
    raise ConflictError(JUST_PAID)


def expire_order(session: Session, order: Order, actor: str, action: str, detail: str, now: datetime) -> bool:
    """Cancel an unpaid order in this transaction (compare-and-set); False when it moved on."""
    assert order.id is not None
    done = session.execute(
        update(Order)
        .where(col(Order.id) == order.id, col(Order.status) == OrderStatus.PENDING, col(Order.payment_status).in_(PAYABLE))
        .values(status=OrderStatus.CANCELLED, updated_at=now)
    ).rowcount
    if done == 1:
        order_history.record(session, order.id, actor, action, detail, at=now)
    return done == 1


# --------------------------------------------------------------------------- abandoned checkouts


class UnpaidOrderExpiry:
    """Cancels orders left unpaid longer than `ttl`, with their PaymentIntents."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        ttl: timedelta,
        *,
        gateway: StripeGateway | None = None,
        intents: IntentPayments | None = None,
        clock: Clock = utcnow,
    ) -> None:
        self._session_factory = session_factory
        self._ttl = ttl
        self._gateway = gateway
        self._intents = intents
        self._clock = clock

    def run(self, limit: int = 100) -> int:
        """Expire up to `limit` of the oldest abandoned orders; returns how many were cancelled."""
        cutoff = self._clock() - self._ttl
        with self._session_factory() as session:
            due = list(session.exec(
                select(Order)
                .where(col(Order.status) == OrderStatus.PENDING, col(Order.payment_status).in_(PAYABLE),
                       col(Order.created_at) < cutoff)
                .order_by(col(Order.id))
                .limit(limit)
            ).all())
        expired = 0
        for order in due:
            if order.payment_intent_id and self._gateway is not None:
                try:
                    cancel_unpaid_intent(self._gateway, self._intents, order.payment_intent_id)
                except ConflictError:
                    continue  # paid at the last moment: the order is paid, not expired
                except (GatewayUnavailable, GatewayRefused) as exc:
                    logger.warning("Could not cancel the payment of abandoned order %s: %s", order.number, exc.message)
                    continue  # tried again at the next run
            with self._session_factory() as session:
                hours = self._ttl.total_seconds() / 3600
                if expire_order(session, order, order_history.SYSTEM, order_history.EXPIRED,
                                f"Unpaid after {hours:g} hours", self._clock()):
                    expired += 1
                session.commit()
        if expired:
            logger.info("Cancelled %d abandoned unpaid order(s)", expired)
        return expired


#: The job name of the expiry of abandoned checkouts (one process of the store at a time).
EXPIRY_JOB = "unpaid-order-expiry"
#: How often abandoned checkouts are looked for (sooner when the time to live is short).
EXPIRY_EVERY_SECONDS = 600.0


def start_unpaid_order_expiry(expiry: UnpaidOrderExpiry, ttl: timedelta, leases: JobLeases) -> Worker:
    """Expire abandoned checkouts now and then every few minutes, in one process at a time."""
    every = max(1.0, min(EXPIRY_EVERY_SECONDS, ttl.total_seconds() / 4))

    def step() -> float:
        expiry.run()
        return every

    return start_worker(EXPIRY_JOB, one_at_a_time(leases, EXPIRY_JOB, step, lease_seconds=every * 3, idle_seconds=every))
