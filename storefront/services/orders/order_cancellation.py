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

from storefront.models import Order, OrderRefund, OutboxJob, utcnow
from storefront.services.orders import lifecycle, order_access, order_emails, order_history, refund_amounts
from storefront.services.orders.fulfilment import SEND_TO_PRODUCTION
from storefront.services.orders.intent_payments import IntentPayments, refund_key
from storefront.services.orders.order_emails import OrderEmails, clean_click_id
from storefront.services.orders.order_history import Who, name_of
from storefront.services.orders.order_payment import PAYMENT_IN_PROGRESS, SEND_ORDER
from storefront.services.orders.refund_amounts import RefundRequest
from storefront.services.orders.statuses import PAYABLE, WAS_PAID, OrderStatus, PaymentStatus
from storefront.services.payments.gateway import (
    REFUND_FAILED,
    REFUND_SUCCEEDED,
    GatewayRefused,
    GatewayUnavailable,
    PaymentGateway,
)
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.errors import ConflictError
from storefront.services.platform.job_leases import JobLeases, one_at_a_time
from storefront.services.platform.money import format_usd
from storefront.services.printify.errors import ProviderError, ProviderNotFound, ProviderUnavailable
from storefront.services.printify.provider import PrintProvider

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
ShopId = Callable[[], int]

NOT_REFUNDABLE = "Only a paid order can be refunded."
NO_GATEWAY = "The payment gateway that took this payment ({name}) is not configured, so it cannot refund it."
JUST_PAID = "This order has just been paid: refresh it and refund it instead."
REFUND_DECLINED = "The payment gateway could not refund this order: {reason}"
ALREADY_PRINTING = (
    "The garment is already being printed, so the print order could not be cancelled; the refund still goes through."
)
PROVIDER_UNREACHABLE = "The print provider could not be reached to cancel the print order: cancel it there by hand."
PROVIDER_CANCELLED_NOTE = "The print order was cancelled."
UNQUEUED_NOTE = "The order had not reached the print provider: it will not be printed."
#: Refunded orders whose printing could not be stopped keep this reason for staff.
STILL_PRINTING_REASON = "Refunded while the print provider was already printing it"


@dataclass(frozen=True, slots=True)
class _Ticket:
    """A refund claimed on an order: its row, its place among the order's refunds, its amount, whether
    it refunds the rest, its gateway key and the payment it refunds."""

    row_id: int
    number: int
    amount: int
    full: bool
    key: str
    payment_id: str


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
        emails: OrderEmails,
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
        return self._emails

    # ------------------------------------------------------------------ refund

    def refund(self, number: str, admin: Who, request: RefundRequest | None = None, click_id: str = "") -> Outcome:
        """Refund the rest of the order, or `request`'s amount or lines, once per `click_id` (a
        double click refunds once) and never more than was paid; a refund of the rest then stops
        its printing where the provider still allows it."""
        return self._refund(number, admin, order_emails.REFUNDED, request or RefundRequest(), click_id)

    def _refund(self, number: str, admin: Who, mail_kind: str, request: RefundRequest, click_id: str = "") -> Outcome:
        """Refund as `refund` does; the customer is told with the email of `mail_kind` (refunded,
        or cancelled when staff cancelled a paid order)."""
        with self._session_factory() as session:
            order = order_access.find_order(session, number)
            assert order.id is not None
            request_key = f"{order.number}:{clean_click_id(click_id)}" if clean_click_id(click_id) else ""
            if (
                request_key
                and session.exec(select(OrderRefund.id).where(col(OrderRefund.request_key) == request_key)).first()
            ):
                return Outcome(order, "")  # the same click again: its refund is made (or being made)
            if order.payment_status == PaymentStatus.REFUNDING:
                return Outcome(order, "")  # a second click: the first one refunds
            if order.payment_status == PaymentStatus.REFUNDED and request.whole:
                return Outcome(order, "")
            if order.payment_status == PaymentStatus.REFUNDED:
                raise ConflictError(refund_amounts.NOTHING_LEFT)
            if not lifecycle.can_refund(order):
                raise ConflictError(NOT_REFUNDABLE)
            gateway = self._gateways.get(order.payment_provider)
            if gateway is None:
                raise ConflictError(NO_GATEWAY.format(name=order.payment_provider))
            amount, lines_json = refund_amounts.amount_to_refund(session, order, request)
            full = amount == refund_amounts.left_to_refund(order)
            now = self._clock()
            earlier = len(refund_amounts.refunds(session, order.id))
            key = refund_key(order) + (f"-{earlier + 1}" if earlier else "")
            claimed = lifecycle.refund_requested(
                session,
                order,
                actor=admin,
                detail=format_usd(amount),
                now=now,
                where=[col(Order.refunded_cents) == order.refunded_cents],
            )
            if not claimed:
                session.rollback()
                return Outcome(order_access.find_order(session, number), "")
            row = OrderRefund(
                order_id=order.id,
                request_key=request_key or key,
                amount_cents=amount,
                lines_json=lines_json,
                status=refund_amounts.REQUESTED,
                actor=name_of(admin)[:100],
                created_at=now,
            )
            session.add(row)
            session.commit()
            ticket = _Ticket(row.id or 0, earlier + 1, amount, full, key, order.payment_id or "")
        try:
            result = gateway.refund(payment_id=ticket.payment_id, amount_cents=amount, idempotency_key=key)
        except (GatewayRefused, GatewayUnavailable) as exc:
            self._refund_failed(order, admin, exc.message, ticket)
            raise ConflictError(REFUND_DECLINED.format(reason=exc.message)) from None
        except Exception:
            # Unknown outcome: the order stays 'refunding' and a second click repeats the same key.
            logger.exception("Refund of order %s failed unexpectedly", order.number)
            raise
        if result.status == REFUND_FAILED:
            self._refund_failed(order, admin, "the refund failed", ticket)
            raise ConflictError(REFUND_DECLINED.format(reason="the refund failed"))
        self._refunded(order, admin, result.refund_id, result.status == REFUND_SUCCEEDED, ticket)
        message = self._stop_fulfilment(order, admin) if ticket.full else ""
        self._tell_customer(order.number, mail_kind if ticket.full else order_emails.REFUNDED, ticket)
        with self._session_factory() as session:
            return Outcome(order_access.find_order(session, number), message)

    def _refund_failed(self, order: Order, admin: Who, reason: str, ticket: _Ticket) -> None:
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            lifecycle.refund_failed(
                session,
                current,
                actor=admin,
                detail=reason,
                now=self._clock(),
                where=[col(Order.payment_status) == PaymentStatus.REFUNDING],
            )
            session.execute(
                update(OrderRefund).where(col(OrderRefund.id) == ticket.row_id).values(status=refund_amounts.FAILED)
            )
            session.commit()

    def _refunded(self, order: Order, admin: Who, refund_id: str, confirmed: bool, ticket: _Ticket) -> None:
        """Keep the refund's id and add its amount to what the order had refunded. The rest of the
        order: the payment is 'refunded' once the gateway confirms it. Part of it: the order is paid
        again, with less left to refund."""
        now = self._clock()
        refunding = [col(Order.payment_status) == PaymentStatus.REFUNDING]
        detail = f"{format_usd(ticket.amount)} ({refund_id})"
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            values = {"refund_id": refund_id[:64], "refunded_cents": current.refunded_cents + ticket.amount}
            if not ticket.full:
                lifecycle.partially_refunded(
                    session, current, actor=admin, detail=detail, now=now, values=values, where=refunding
                )
            elif confirmed:
                lifecycle.refunded(
                    session,
                    current,
                    actor=admin,
                    detail=detail,
                    now=now,
                    emails=None,
                    email=False,
                    values=values,
                    where=refunding,
                )
            else:
                # Taken, not confirmed yet (Stripe's charge.refunded confirms it): the refund's id and
                # amount are kept while the payment stays 'refunding'.
                session.exec(
                    update(Order).where(col(Order.id) == current.id, *refunding).values(**values, updated_at=now)
                )
            status = refund_amounts.SUCCEEDED if confirmed else refund_amounts.PENDING
            session.execute(
                update(OrderRefund)
                .where(col(OrderRefund.id) == ticket.row_id)
                .values(status=status, refund_id=refund_id[:64])
            )
            session.commit()
        logger.info(
            "Order %s refunded %s by %s (%s, %s)",
            order.number,
            format_usd(ticket.amount),
            name_of(admin),
            refund_id,
            "confirmed" if confirmed else "pending",
        )

    def _tell_customer(self, number: str, mail_kind: str, ticket: _Ticket) -> None:
        """The customer's email about the refund, once printing was stopped (or could not be), so it
        says whether the garment will still be delivered."""
        now = self._clock()
        with self._session_factory() as session:
            current = order_access.find_order(session, number)
            if mail_kind == order_emails.CANCELLED:
                self.emails.order_cancelled(session, current, now)
            else:
                self.emails.order_refunded(
                    session, current, now, amount_cents=ticket.amount, refund_number=ticket.number
                )
            session.commit()

    def _stop_fulfilment(self, order: Order, admin: Who) -> str:
        """Cancel the order at the provider, or take it out of the outbox; the note for staff."""
        now = self._clock()
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            assert current.id is not None
            if not current.printify_order_id:
                # The outbox skips an order that is no longer paid; closing its job says so at once.
                session.execute(
                    update(OutboxJob)
                    .where(
                        col(OutboxJob.order_id) == current.id,
                        col(OutboxJob.kind) == SEND_ORDER,
                        col(OutboxJob.done_at).is_(None),
                    )
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
                .where(
                    col(OutboxJob.order_id) == current.id,
                    col(OutboxJob.kind) == SEND_TO_PRODUCTION,
                    col(OutboxJob.done_at).is_(None),
                )
                .values(done_at=now, last_error="Cancelled: the order was refunded")
            )
            current.printify_status = "canceled"
            session.add(current)
            self._cancelled(session, current, admin, order_history.PROVIDER_CANCELLED, provider_id, now)
            session.commit()
        return PROVIDER_CANCELLED_NOTE

    def _note(self, order: Order, admin: Who, action: str, detail: str, message: str) -> str:
        with self._session_factory() as session:
            current = order_access.find_order(session, order.number)
            lifecycle.needs_attention(
                session,
                current,
                f"{STILL_PRINTING_REASON}: {detail}",
                now=self._clock(),
                actor=admin,
                action=action,
                detail=detail,
                touch=False,
            )
            session.commit()
        return message

    @staticmethod
    def _cancelled(session: Session, order: Order, admin: Who, action: str, detail: str, now: datetime) -> None:
        lifecycle.withdrawn(
            session, order, actor=admin, action=action, detail=detail, now=now, values={"attention_reason": None}
        )

    # ------------------------------------------------------------------ cancel

    def cancel(self, number: str, admin: Who) -> Outcome:
        """Cancel an order: a paid one is refunded (as Refund does), an unpaid one's intent is
        cancelled first, so it can never be paid afterwards."""
        with self._session_factory() as session:
            order = order_access.find_order(session, number)
        if order.status == OrderStatus.CANCELLED:
            return Outcome(order, "")
        if order.payment_status in WAS_PAID:
            return self._refund(number, admin, order_emails.CANCELLED, RefundRequest())
        if order.payment_status == PaymentStatus.CHARGING:
            raise ConflictError(PAYMENT_IN_PROGRESS)
        self._cancel_intent(order)
        now = self._clock()
        with self._session_factory() as session:
            current = order_access.find_order(session, number)
            if not lifecycle.cancelled(
                session, current, actor=admin, detail="Cancelled before payment", now=now, emails=self.emails
            ):
                session.rollback()
                current = order_access.find_order(session, number)
                if current.status == OrderStatus.CANCELLED:
                    return Outcome(current, "")
                raise ConflictError(JUST_PAID if current.payment_status == PaymentStatus.PAID else PAYMENT_IN_PROGRESS)
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
    """Cancel an unpaid order in this transaction (compare-and-set) without an email; False when it
    moved on."""
    return lifecycle.cancelled(session, order, actor=actor, detail=detail, now=now, emails=None, action=action)


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
            due = list(
                session.exec(
                    select(Order)
                    .where(
                        col(Order.status) == OrderStatus.PENDING,
                        col(Order.payment_status).in_(PAYABLE),
                        col(Order.created_at) < cutoff,
                    )
                    .order_by(col(Order.id))
                    .limit(limit)
                ).all()
            )
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
                if expire_order(
                    session,
                    order,
                    order_history.SYSTEM,
                    order_history.EXPIRED,
                    f"Unpaid after {hours:g} hours",
                    self._clock(),
                ):
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

    return start_worker(
        EXPIRY_JOB, one_at_a_time(leases, EXPIRY_JOB, step, lease_seconds=every * 3, idle_seconds=every)
    )
