"""Sending paid orders to the print provider through an outbox with retries.

A paid order is queued (an OutboxJob) in the same transaction that marks it paid, so a provider
outage only delays fulfilment: the job is retried with exponential backoff until it goes through.
An order the provider refuses for good (a 4xx that retrying cannot change) is not retried: it is
marked as needing attention with the provider's reason.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from storefront.models import Order, OrderItem, OutboxJob, utcnow
from storefront.services.checkout import order_items
from storefront.services.order_payment import SEND_ORDER
from storefront.services.printify.errors import ProviderError, ProviderRateLimited, ProviderUnavailable
from storefront.services.printify.provider import PrintProvider
from storefront.services.statuses import PaymentStatus

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
    """An order's progress as GET /api/orders/{id}/status returns it."""
    return {
        "id": order.number,
        "status": order.status,
        "paymentStatus": order.payment_status,
        "printifyStatus": order.printify_status,
        "printifyOrderId": order.printify_order_id,
        "trackingNumber": order.tracking_number,
        "trackingCarrier": order.tracking_carrier,
        "trackingUrl": order.tracking_url,
        "shippedAt": order.shipped_at.isoformat() if order.shipped_at else None,
        "deliveredAt": order.delivered_at.isoformat() if order.delivered_at else None,
        "needsAttention": order.attention_reason is not None,
        "attentionReason": order.attention_reason,
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

#: How long a claimed job is reserved for the worker sending it.
LEASE = timedelta(minutes=5)


class OrderOutbox:
    """Sends queued paid orders to the print provider; failures are retried later, never dropped."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        provider: PrintProvider,
        shop_id: int,
        clock: Clock = utcnow,
    ) -> None:
        self._session_factory = session_factory
        self._provider = provider
        self._shop_id = shop_id
        self._clock = clock

    def run_due(self, limit: int = 10) -> int:
        """Work through up to `limit` due jobs; returns how many orders reached the provider."""
        sent = 0
        for _ in range(max(limit, 0)):
            outcome = self._run_next()
            if outcome is None or outcome is _STOP:
                break
            sent += outcome
        return sent

    def _run_next(self) -> int | object | None:
        """Claim and run the oldest due job: 1 sent, 0 failed or skipped, None none due, _STOP provider down."""
        now = self._clock()
        with self._session_factory() as session:
            # SKIP LOCKED lets several workers share the queue on PostgreSQL (ignored on SQLite).
            job = session.exec(
                select(OutboxJob)
                .where(
                    col(OutboxJob.kind) == SEND_ORDER,
                    col(OutboxJob.done_at).is_(None),
                    col(OutboxJob.next_attempt_at) <= now,
                )
                .order_by(col(OutboxJob.next_attempt_at), col(OutboxJob.id))
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if job is None:
                return None
            if not self._lease(session, job, now):
                return 0  # another worker claimed it first
            order = session.get(Order, job.order_id)
            if order is None or order.printify_order_id or order.payment_status != PaymentStatus.PAID:
                # Nothing (more) to send: already sent, or no longer a paid order.
                job.done_at = now
                if order is not None and not order.printify_order_id:
                    job.last_error = f"Skipped: payment is {order.payment_status}"
                session.add(job)
                session.commit()
                return 0
            try:
                answer = self._provider.create_order(self._shop_id, printify_order_body(order, order_items(session, order.id)))
                provider_id = str(answer["id"])
            except Exception as exc:  # noqa: BLE001 - the job must survive any failure
                if is_permanent(exc):
                    self._give_up(session, job, order, exc, now)
                    return 0
                self._reschedule(session, job, order, exc, now)
                # Throttled or down: the other due jobs would fail the same way, so end the round.
                return _STOP if isinstance(exc, (ProviderRateLimited, ProviderUnavailable)) else 0
            job.attempts += 1
            job.done_at = now
            job.last_error = None
            order.printify_order_id = provider_id
            order.printify_status = PROVIDER_PENDING
            order.updated_at = now
            session.add(job)
            session.add(order)
            session.commit()
            logger.info("Order %s sent to the print provider as %s", order.number, provider_id)
            return 1

    @staticmethod
    def _lease(session: Session, job: OutboxJob, now: datetime) -> bool:
        """Claim the job for LEASE by moving its due time, only if nobody moved it since we read it.

        This compare-and-set keeps two workers (processes or hosts, SQLite included, which has
        no SKIP LOCKED) from sending one order twice; if this worker dies, the lease runs out
        and another takes the job over.
        """
        claimed = session.execute(
            update(OutboxJob)
            .where(
                col(OutboxJob.id) == job.id,
                col(OutboxJob.next_attempt_at) == job.next_attempt_at,
                col(OutboxJob.done_at).is_(None),
            )
            .values(next_attempt_at=now + LEASE)
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
                "Sending order %s to the print provider failed (attempt %d), retry at %s: %s",
                order.number, job.attempts, job.next_attempt_at.isoformat(), job.last_error,
            )
        else:
            logger.exception("Unexpected error sending order %s (attempt %d)", order.number, job.attempts)


    @staticmethod
    def _give_up(session: Session, job: OutboxJob, order: Order, exc: Exception, now: datetime) -> None:
        """The provider refused the order for good: stop retrying and flag it for a person."""
        job.attempts += 1
        job.done_at = now
        job.last_error = _describe(exc)[:MAX_ERROR_CHARS]
        order.attention_reason = provider_reason(exc)[:MAX_ERROR_CHARS]
        order.updated_at = now
        session.add(job)
        session.add(order)
        session.commit()
        logger.error("The print provider refused order %s; it needs attention: %s", order.number, job.last_error)


def is_permanent(exc: Exception) -> bool:
    """True for a provider refusal that retrying the same order cannot change (4xx but 401/403/408/429)."""
    status = exc.status if isinstance(exc, ProviderError) else None
    return status is not None and 400 <= status < 500 and status not in TEMPORARY_CLIENT_ERRORS


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


@dataclass
class OutboxWorker:
    """A running outbox thread; stop() ends it after the current round."""

    thread: threading.Thread
    stop_event: threading.Event

    def stop(self, timeout: float | None = 5.0) -> None:
        self.stop_event.set()
        self.thread.join(timeout)


def start_outbox_worker(outbox: OrderOutbox, interval_seconds: float = 5.0, batch_size: int = 10) -> OutboxWorker:
    """Run outbox.run_due in a daemon thread every interval_seconds until stopped."""
    stop_event = threading.Event()

    def loop() -> None:
        while not stop_event.is_set():
            try:
                # Keep going without waiting while whole batches are being sent.
                while outbox.run_due(batch_size) >= batch_size and not stop_event.is_set():
                    pass
            except Exception:  # noqa: BLE001 - a database hiccup must not end the worker
                logger.exception("Outbox round failed")
            stop_event.wait(interval_seconds)

    thread = threading.Thread(target=loop, name="order-outbox", daemon=True)
    thread.start()
    return OutboxWorker(thread=thread, stop_event=stop_event)
