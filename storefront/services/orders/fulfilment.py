"""Sending paid orders to the print provider through an outbox with retries.

A paid order is queued (an OutboxJob) in the same transaction that marks it paid, so a provider
outage only delays fulfilment: the job is retried with exponential backoff until it goes through.
An order the provider refuses for good (a 4xx that retrying cannot change) is not retried: it is
marked as needing attention with the provider's reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from storefront.models import Order, OrderItem, OutboxJob, utcnow
from storefront.services.orders import lifecycle, order_history
from storefront.services.orders.checkout import order_items
from storefront.services.orders.customer_status import answer_payment_status, customer_status
from storefront.services.orders.order_money import dollars
from storefront.services.orders.order_payment import SEND_ORDER
from storefront.services.orders.statuses import OrderStatus, PaymentStatus
from storefront.services.platform.background import KeepAlive, Worker, beating, start_worker
from storefront.services.printify.errors import (
    ProviderError,
    ProviderOutcomeUnknown,
    ProviderRateLimited,
    ProviderUnavailable,
)
from storefront.services.printify.provider import PrintProvider

logger = logging.getLogger(__name__)

#: Printify's standard shipping (contract §7).
STANDARD_SHIPPING_METHOD = 1
RETRY_BASE_SECONDS = 30
RETRY_MAX_SECONDS = 3600
MAX_ERROR_CHARS = 2000
#: 4xx answers that say nothing about the order itself (credentials, a timeout, throttling):
#: retrying later can succeed, so they keep the backoff.
TEMPORARY_CLIENT_ERRORS = frozenset({401, 403, 408, 429})

#: The provider status of an order it has just accepted.
PROVIDER_PENDING = "pending"

Clock = Callable[[], datetime]
_STOP = object()


# --------------------------------------------------------------------------- the shopper's view


def order_status(order: Order) -> dict[str, Any]:
    """The customer's view of an order's progress (GET /api/orders/{id}/status, and the guest
    view's start): its one customer status (customer_status.py) and no staff fields, as the reason
    an order needs attention can quote its address or name its refund (and is no customer's alarm)."""
    told = customer_status(order)
    return {
        "id": order.number,
        "status": order.status,
        "paymentStatus": answer_payment_status(order),
        "customerStatus": told.stage.value,
        "customerStatusLabel": told.label,
        "customerStatusText": told.sentence,
        "amountRefunded": dollars(order.refunded_cents),
        "printifyStatus": order.printify_status,
        "printifyOrderId": order.printify_order_id,
        "trackingNumber": order.tracking_number,
        "trackingCarrier": order.tracking_carrier,
        "trackingUrl": order.tracking_url,
        "shippedAt": order.shipped_at.isoformat() if order.shipped_at else None,
        "deliveredAt": order.delivered_at.isoformat() if order.delivered_at else None,
    }


# --------------------------------------------------------------------------- the provider's order body


def printify_order_body(order: Order, items: Sequence[OrderItem]) -> dict[str, Any]:
    """The Printify order body of contract §7 for an order and its lines."""
    return {
        "external_id": order.number,
        "label": order.number,
        "line_items": [
            {"product_id": item.product_id, "variant_id": int(item.variant_id), "quantity": item.quantity}
            for item in items
        ],
        "shipping_method": STANDARD_SHIPPING_METHOD,
        "send_shipping_notification": False,
        "address_to": {
            "first_name": order.first_name,
            "last_name": order.last_name,
            "email": order.customer_email,
            "phone": order.customer_phone or "",
            "country": order.country_code,
            "region": order.state_code,
            "address1": order.address1,
            "address2": order.address2 or "",
            "city": order.city,
            "zip": order.zip,
        },
    }


def retry_delay(attempts: int, retry_after: float | None = None) -> timedelta:
    """Backoff after the n-th failed attempt: 30 s doubling to at most 1 h; at least retry_after."""
    exponent = max(attempts - 1, 0)
    seconds = float(RETRY_MAX_SECONDS) if exponent >= 7 else min(RETRY_BASE_SECONDS * 2**exponent, RETRY_MAX_SECONDS)
    if retry_after is not None and retry_after > seconds:
        seconds = float(retry_after)
    return timedelta(seconds=seconds)


# --------------------------------------------------------------------------- the outbox

#: How long a claim holds unless renewed: a worker that dies leaves its order waiting this long at
#: most. A live worker renews it every HEARTBEAT while it calls the provider (a call can take 22.5
#: minutes: the Printify client waits out up to 4 answers of 429 for up to 5 minutes each), so it is
#: never taken over while its call may still create the order.
LEASE = timedelta(minutes=2)
#: How often a live worker renews its claim: a quarter of LEASE, so three renewals in a row can be
#: late (a busy database, a starved thread) before the claim could lapse under a live call.
HEARTBEAT = LEASE / 4
#: The second step of every order: approve it for printing once the provider has costed it.
SEND_TO_PRODUCTION = "send_to_production"
OUTBOX_KINDS = (SEND_ORDER, SEND_TO_PRODUCTION)
#: Provider statuses of an order still being costed: too early to send it to production.
COSTING_STATUSES = frozenset({"pending", "cost-calculation"})
ON_HOLD = "on-hold"
#: Printify's "Operation failed." code, e.g. send_to_production while the order is still pending.
OPERATION_FAILED_CODE = 8502

ShopId = Callable[[], int]


def pending_step(order: Order) -> str:
    """The outbox job that moves this paid order on: sending it, or sending it to production."""
    return SEND_TO_PRODUCTION if order.printify_order_id else SEND_ORDER


class OrderOutbox:
    """Sends queued paid orders to the print provider, then to production; failures are retried, never dropped.

    An attempt whose outcome is unknown (a timeout after the request left, a 5xx to a POST, a
    worker that died mid-send and whose lease ran out) is never blindly repeated: the next attempt
    first looks for the order among the provider's recent orders by its external id.
    """

    def __init__(
        self,
        session_factory: Callable[[], Session],
        provider: PrintProvider,
        shop_id: int | ShopId,
        clock: Clock = utcnow,
        *,
        production_hold: timedelta = timedelta(0),
        keep_alive: KeepAlive = beating,
    ) -> None:
        self._session_factory = session_factory
        self._provider = provider
        #: How long a sent order waits at the provider (on-hold) before it is sent to production:
        #: while it waits, a refund or cancellation still cancels the print order.
        self._production_hold = production_hold
        # A callable resolves the shop when first needed, so a wrong token or shop id delays
        # fulfilment (logged, retried) instead of stopping the store from starting.
        self._shop_id: ShopId = shop_id if callable(shop_id) else (lambda: shop_id)
        self._clock = clock
        #: Runs the heartbeat that renews a claim while its step calls the provider (tests drive it).
        self._keep_alive = keep_alive

    def run_due(self, limit: int = 10) -> int:
        """Work through up to `limit` due jobs; returns how many steps reached the provider."""
        sent = 0
        for _ in range(max(limit, 0)):
            outcome = self._run_next()
            if not isinstance(outcome, int):  # none due, or _STOP: the provider is down
                break
            sent += outcome
        return sent

    def _run_next(self) -> int | object | None:
        """Claim and run the oldest due job: 1 done, 0 failed or skipped, None none due, _STOP provider down."""
        now = self._clock()
        with self._session_factory() as session:
            # SKIP LOCKED lets several workers share the queue on PostgreSQL (ignored on SQLite).
            job = session.exec(
                select(OutboxJob)
                .where(
                    col(OutboxJob.kind).in_(OUTBOX_KINDS),
                    col(OutboxJob.done_at).is_(None),
                    col(OutboxJob.next_attempt_at) <= now,
                )
                .order_by(col(OutboxJob.next_attempt_at), col(OutboxJob.id))
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if job is None:
                return None
            maybe_sent = job.outcome_unknown
            if not self._lease(session, job, now):
                return 0  # another worker claimed it first
            order = session.get(Order, job.order_id)
            if job.kind == SEND_ORDER:
                return self._send_order(session, job, order, now, maybe_sent)
            return self._send_to_production(session, job, order, now)

    def _send_order(
        self, session: Session, job: OutboxJob, order: Order | None, now: datetime, maybe_sent: bool
    ) -> int | object:
        """Create the order at the provider (or find the one an earlier attempt created)."""
        if order is None or order.printify_order_id or not lifecycle.allowed(lifecycle.Move.SENT, order):
            # Nothing (more) to send: already sent, or no longer a paid order.
            reason = None if order is None or order.printify_order_id else f"Skipped: payment is {order.payment_status}"
            return self._finish(session, job, now, reason)
        try:
            with self._claim_kept(job):
                shop_id = self._shop_id()
                provider_id = self._already_sent(shop_id, order) if maybe_sent else None
                if provider_id is None:
                    assert order.id is not None  # read from the database
                    body = printify_order_body(order, order_items(session, order.id))
                    provider_id = str(self._provider.create_order(shop_id, body)["id"])
        except Exception as exc:  # noqa: BLE001 - the job must survive any failure
            # Only a failure that proves nothing was created clears the doubt of an earlier attempt.
            job.outcome_unknown = maybe_sent or _may_have_taken_effect(exc)
            return self._failed(session, job, order, exc, now)
        job.attempts += 1
        job.done_at = now
        job.last_error = None
        job.outcome_unknown = False
        lifecycle.sent(session, order, provider_id, PROVIDER_PENDING, now)
        session.add_all([job, order])
        self._queue_production(session, order, now)
        session.commit()
        logger.info("Order %s sent to the print provider as %s", order.number, provider_id)
        return 1

    def _already_sent(self, shop_id: int, order: Order) -> str | None:
        """The provider's id of this order if an earlier attempt created it (looked up by external id)."""
        existing = self._provider.find_order_by_external_id(shop_id, order.number)
        if existing is None:
            return None
        logger.warning(
            "Order %s was already at the print provider as %s (an earlier send's answer was lost)",
            order.number,
            existing["id"],
        )
        return str(existing["id"])

    def _queue_production(self, session: Session, order: Order, now: datetime) -> None:
        assert order.id is not None
        exists = session.exec(
            select(OutboxJob.id).where(col(OutboxJob.kind) == SEND_TO_PRODUCTION, col(OutboxJob.order_id) == order.id)
        ).first()
        if exists is None:
            due = now + self._production_hold
            session.add(OutboxJob(kind=SEND_TO_PRODUCTION, order_id=order.id, next_attempt_at=due, created_at=now))

    def _send_to_production(self, session: Session, job: OutboxJob, order: Order | None, now: datetime) -> int | object:
        """Approve the provider's order for printing once it is costed (on-hold); done if it moved on already.

        Reading the order first makes the step safe to repeat: an approval whose answer was lost
        shows up as a status past on-hold."""
        if order is None or not order.printify_order_id:
            return self._finish(session, job, now, None)
        if order.status == OrderStatus.CANCELLED or order.payment_status != PaymentStatus.PAID:
            # Refunded or cancelled while its send was in flight: the provider's copy must not be printed.
            return self._withdraw(session, job, order, now)
        try:
            with self._claim_kept(job):
                shop_id = self._shop_id()
                status = str(self._provider.get_order(shop_id, order.printify_order_id).get("status") or "")
                if status == ON_HOLD:
                    answer = self._provider.send_to_production(shop_id, order.printify_order_id)
                    status = str(answer.get("status") or "sending-to-production")
            if status in COSTING_STATUSES:
                return self._wait_for_costing(session, job, order, status, now)
        except Exception as exc:  # noqa: BLE001 - the job must survive any failure
            return self._failed(session, job, order, exc, now)
        job.attempts += 1
        job.done_at = now
        job.last_error = None
        order.printify_status = status[:32]
        order.provider_checked_at = now
        order.updated_at = now
        session.add_all([job, order])
        session.commit()
        logger.info("Order %s is %s at the print provider", order.number, status)
        return 1

    def _withdraw(self, session: Session, job: OutboxJob, order: Order, now: datetime) -> int | object:
        """Cancel at the provider an order that was refunded or cancelled before it was printed."""
        try:
            with self._claim_kept(job):
                self._provider.cancel_order(self._shop_id(), str(order.printify_order_id))
        except (ProviderRateLimited, ProviderUnavailable) as exc:
            return self._failed(session, job, order, exc, now)
        except ProviderError as exc:
            logger.warning("Order %s was withdrawn but the provider would not cancel it: %s", order.number, exc.message)
            return self._finish(session, job, now, f"Not cancelled at the provider: {exc.message}"[:MAX_ERROR_CHARS])
        order.printify_status = "canceled"
        session.add(order)
        if not lifecycle.withdrawn(session, order, actor=order_history.SYSTEM, action=None, detail="", now=now):
            order.status = OrderStatus.CANCELLED  # not paid any more either way: it is not printed
            order.updated_at = now
        logger.info("Order %s was withdrawn: cancelled at the print provider", order.number)
        return self._finish(session, job, now, "Cancelled at the provider: the order was withdrawn")

    def _wait_for_costing(self, session: Session, job: OutboxJob, order: Order, status: str, now: datetime) -> int:
        """The provider is still costing the order: look again later (not a failure)."""
        job.attempts += 1
        job.next_attempt_at = now + retry_delay(job.attempts)
        job.last_error = f"Waiting for the print provider to cost the order (status {status})"
        order.printify_status = status[:32]
        order.provider_checked_at = now
        session.add_all([job, order])
        session.commit()
        return 0

    def _finish(self, session: Session, job: OutboxJob, now: datetime, reason: str | None) -> int:
        """Close a job that has nothing (more) to do."""
        job.done_at = now
        job.outcome_unknown = False
        if reason is not None:
            job.last_error = reason
        session.add(job)
        session.commit()
        return 0

    def _failed(self, session: Session, job: OutboxJob, order: Order, exc: Exception, now: datetime) -> int | object:
        """Give up on a permanent refusal, else schedule a retry; _STOP when the provider is down."""
        if is_permanent(exc):
            self._give_up(session, job, order, exc, now)
            return 0
        self._reschedule(session, job, order, exc, now)
        # Throttled or down: the other due jobs would fail the same way, so end the round.
        return _STOP if isinstance(exc, (ProviderRateLimited, ProviderUnavailable)) else 0

    @contextmanager
    def _claim_kept(self, job: OutboxJob) -> Iterator[None]:
        """Renew this worker's claim on the job every HEARTBEAT while the block calls the provider.

        Each renewal is a compare-and-set on the lease this worker set last, so it never extends a
        claim another worker holds; the beats stop before the block's outcome is recorded."""
        job_id, held_until = job.id, job.next_attempt_at

        def renew() -> bool:
            nonlocal held_until
            until = self._clock() + LEASE
            with self._session_factory() as session:
                renewed = session.exec(
                    update(OutboxJob)
                    .where(
                        col(OutboxJob.id) == job_id,
                        col(OutboxJob.next_attempt_at) == held_until,
                        col(OutboxJob.done_at).is_(None),
                    )
                    .values(next_attempt_at=until)
                ).rowcount
                session.commit()
            if renewed != 1:
                logger.error("Outbox job %s: its claim was taken over while its step was still running", job_id)
                return False
            held_until = until
            return True

        with self._keep_alive(f"outbox-claim-{job_id}", renew, HEARTBEAT.total_seconds()):
            yield

    @staticmethod
    def _lease(session: Session, job: OutboxJob, now: datetime) -> bool:
        """Claim the job for LEASE by moving its due time, only if nobody moved it since we read it.

        This compare-and-set keeps two workers (processes or hosts, SQLite included, which has
        no SKIP LOCKED) from sending one order twice; a live worker renews it (_claim_kept), and
        if this worker dies, the lease runs out within LEASE and another takes the job over. The
        claim marks the outcome unknown until the attempt
        records one, so a worker that dies after sending leaves a job that looks before it resends.
        """
        claimed = session.exec(
            update(OutboxJob)
            .where(
                col(OutboxJob.id) == job.id,
                col(OutboxJob.next_attempt_at) == job.next_attempt_at,
                col(OutboxJob.done_at).is_(None),
            )
            .values(next_attempt_at=now + LEASE, outcome_unknown=True)
        ).rowcount
        session.commit()
        if claimed != 1:
            return False
        session.refresh(job)
        return True

    def _reschedule(self, session: Session, job: OutboxJob, order: Order, exc: Exception, now: datetime) -> None:
        """Record the failure and schedule the next attempt; the order stays paid and queued."""
        job.attempts += 1
        retry_after = exc.retry_after if isinstance(exc, ProviderRateLimited) else None
        job.next_attempt_at = now + retry_delay(job.attempts, retry_after)
        job.last_error = _describe(exc)[:MAX_ERROR_CHARS]
        session.add(job)
        session.commit()
        if isinstance(exc, ProviderError):
            logger.warning(
                "Step %s of order %s at the print provider failed (attempt %d), retry at %s: %s",
                job.kind,
                order.number,
                job.attempts,
                job.next_attempt_at.isoformat(),
                job.last_error,
            )
        else:
            logger.exception(
                "Unexpected error in step %s of order %s (attempt %d)", job.kind, order.number, job.attempts
            )

    @staticmethod
    def _give_up(session: Session, job: OutboxJob, order: Order, exc: Exception, now: datetime) -> None:
        """The provider refused the order for good: stop retrying and flag it for a person."""
        job.attempts += 1
        job.done_at = now
        job.outcome_unknown = False
        job.last_error = _describe(exc)[:MAX_ERROR_CHARS]
        session.add(job)
        lifecycle.needs_attention(session, order, provider_reason(exc)[:MAX_ERROR_CHARS], now=now)
        session.commit()
        logger.error("The print provider refused order %s; it needs attention: %s", order.number, job.last_error)


def _may_have_taken_effect(exc: Exception) -> bool:
    """False only for failures that prove the provider did not act (refusals, throttling, no connection)."""
    if isinstance(exc, ProviderOutcomeUnknown):
        return True
    return not isinstance(exc, ProviderError)


def is_permanent(exc: Exception) -> bool:
    """True for a provider refusal that retrying the same order cannot change (4xx but 401/403/408/429)."""
    if not isinstance(exc, ProviderError) or exc.status is None:
        return False
    if exc.code == OPERATION_FAILED_CODE:
        return False  # the order's state moved under us (e.g. still costing): look again later
    return 400 <= exc.status < 500 and exc.status not in TEMPORARY_CLIENT_ERRORS


def provider_reason(exc: Exception) -> str:
    """The provider's own reason for a refusal (Printify's errors.reason), else its message."""
    if isinstance(exc, ProviderError) and isinstance(exc.details, dict):
        errors = exc.details.get("errors")
        reason = errors.get("reason") if isinstance(errors, dict) else None
        if isinstance(reason, str) and reason.strip():
            return reason.strip()
    return exc.message if isinstance(exc, ProviderError) else str(exc)


def _describe(exc: Exception) -> str:
    """A failure as stored in last_error: class, provider status and details, message."""
    if isinstance(exc, ProviderError):
        text = f"{type(exc).__name__} (status {exc.status}): {exc.message}"
        return f"{text} {exc.details}" if exc.details else text
    return f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- background worker


def start_outbox_worker(outbox: OrderOutbox, interval_seconds: float = 5.0, batch_size: int = 10) -> Worker:
    """Run outbox.run_due in a daemon thread every interval_seconds until stopped."""

    def step() -> float:
        # Go on without waiting while whole batches are being sent.
        return 0.0 if outbox.run_due(batch_size) >= batch_size else interval_seconds

    return start_worker("order-outbox", step, error_wait=interval_seconds)
