"""Charging an order exactly once: claim it, charge outside any transaction, record the outcome.

The claim is a compare-and-set on the order's payment status (UPDATE ... WHERE payment_status
IN (pending, failed)), which holds on SQLite and PostgreSQL alike, so of any number of parallel
requests for one order only one reaches the gateway. No database connection is held while the
gateway works. Every charge sent to the gateway is recorded as a PaymentAttempt; card numbers
and CVVs never are.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select, update

from storefront.models import Order, OutboxJob, PaymentAttempt, utcnow
from storefront.services.orders import lifecycle, order_access
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.statuses import PAYABLE, AttemptStatus, OrderStatus, PaymentStatus
from storefront.services.payments.gateway import CardDetails, CardGateway, PaymentDeclined, PaymentResult
from storefront.services.platform.errors import ConflictError, TooManyRequestsError, ValidationError
from storefront.services.platform.money import format_usd

logger = logging.getLogger(__name__)

SEND_ORDER = "send_order"
ORDER_CANCELLED = "This order was cancelled."
ORDER_REFUNDED = "This order was refunded."
PAYMENT_IN_PROGRESS = "A payment for this order is already being processed. Please wait a moment."
TOO_MANY_DECLINES = (
    "Too many declined payments for this order. Please check your card with your bank and try again later."
)
MAX_PAYMENT_KEY_CHARS = 200
#: A claim older than this is taken to belong to a request that died, and may be taken over.
CLAIM_LEASE = timedelta(minutes=2)
DEFAULT_MAX_DECLINES = 5

Clock = Callable[[], datetime]


def _form_text(value: object) -> str:
    """A card form field as text (numbers typed into JSON become strings)."""
    if isinstance(value, bool) or value is None:
        return ""
    return str(value).strip() if isinstance(value, (str, int)) else ""


def card_from_form(data: object) -> CardDetails:
    """CardDetails from the checkout form's cardData: expiryDate "MM/YY", or expiryMonth plus expiryYear."""
    form = data if isinstance(data, Mapping) else {}
    expiry = _form_text(form.get("expiryDate"))
    month, year = _form_text(form.get("expiryMonth")), _form_text(form.get("expiryYear"))
    if not expiry and month and year:
        expiry = f"{month.zfill(2)}/{year[-2:].zfill(2)}"
    return CardDetails(
        number=_form_text(form.get("cardNumber")),
        expiry=expiry,
        cvv=_form_text(form.get("cvv")),
        cardholder_name=_form_text(form.get("cardholderName")),
    )


def payment_key(payment_id: object) -> str:
    """The idempotency key of a payment request: the client's paymentId, else a fresh one."""
    text = payment_id.strip() if isinstance(payment_id, str) else ""
    return text[:MAX_PAYMENT_KEY_CHARS] if text else f"auto-{uuid.uuid4().hex}"


@dataclass(frozen=True)
class Claim:
    """An order reserved for one charge, and the attempt recording it."""

    order_id: int
    number: str
    attempt_id: int
    amount_cents: int
    gateway_key: str
    #: The payment status to go back to when nothing was charged.
    previous_status: PaymentStatus


class OrderPayments:
    """Pays shoppers' orders through the gateway, once per order."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        gateway: CardGateway,
        *,
        max_declines: int = DEFAULT_MAX_DECLINES,
        clock: Clock = utcnow,
        emails: OrderEmails,
    ) -> None:
        self._session_factory = session_factory
        self._gateway = gateway
        self.max_declines = max_declines
        self._clock = clock
        self._emails = emails

    @property
    def emails(self) -> OrderEmails:
        return self._emails

    def pay(self, number: str, access_token: str | None, card: CardDetails, key: str, client: str = "") -> Order:
        """Charge the order's total once; on success mark it paid and queue it for the provider.

        An order already paid is returned unchanged. A decline marks the payment failed and
        re-raises PaymentDeclined (the shopper may fix the card and retry); a ValidationError
        from the card checks leaves the payment as it was. A request while another one is
        charging the order is a ConflictError; past `max_declines` declines, TooManyRequestsError.
        """
        claim = self._claim(number, access_token, key, client)
        if isinstance(claim, Order):
            return claim
        try:
            result = self._gateway.charge(amount_cents=claim.amount_cents, card=card, idempotency_key=claim.gateway_key)
        except PaymentDeclined as exc:
            self._release(claim, AttemptStatus.DECLINED, PaymentStatus.FAILED, exc.reason)
            logger.info("Payment declined for order %s: %s", claim.number, exc.reason)
            raise
        except ValidationError as exc:
            self._release(claim, AttemptStatus.INVALID, claim.previous_status, exc.message)
            raise
        except BaseException as exc:
            self._release(claim, AttemptStatus.ERROR, claim.previous_status, type(exc).__name__)
            raise
        return self._record_paid(claim, result)

    def _claim(self, number: str, access_token: str | None, key: str, client: str) -> Claim | Order:
        """Reserve the order for this request, or return it when it is already paid."""
        with self._session_factory() as session:
            order = order_access.shopper_order(session, number, access_token)
            if order.payment_status == PaymentStatus.PAID:
                return order
            if order.status == OrderStatus.CANCELLED:
                raise ConflictError(ORDER_CANCELLED)
            if order.payment_status == PaymentStatus.REFUNDED:
                raise ConflictError(ORDER_REFUNDED)
            if self._declines(session, order) >= self.max_declines:
                raise TooManyRequestsError(TOO_MANY_DECLINES)
            now = self._clock()
            claimed = session.exec(
                update(Order)
                .where(
                    col(Order.id) == order.id,
                    col(Order.status) != OrderStatus.CANCELLED,
                    # The total read above is the total charged: an amended order is claimed afresh.
                    col(Order.request_fingerprint) == order.request_fingerprint,
                    or_(
                        col(Order.payment_status).in_(PAYABLE),
                        and_(
                            col(Order.payment_status) == PaymentStatus.CHARGING,
                            col(Order.payment_claimed_at) < now - CLAIM_LEASE,
                        ),
                    ),
                )
                .values(payment_status=PaymentStatus.CHARGING, payment_claimed_at=now, updated_at=now)
            ).rowcount
            if claimed != 1:
                session.rollback()
                session.refresh(order)
                if order.payment_status == PaymentStatus.PAID:
                    return order
                raise ConflictError(PAYMENT_IN_PROGRESS)
            assert order.id is not None
            attempt = PaymentAttempt(
                order_id=order.id,
                gateway_key=f"{order.number}:{key}"[:255],
                amount_cents=order.total_cents,
                status=AttemptStatus.STARTED,
                client=client[:64],
                created_at=now,
            )
            session.add(attempt)
            session.commit()
            assert attempt.id is not None
            previous = PaymentStatus(order.payment_status) if order.payment_status in PAYABLE else PaymentStatus.PENDING
            return Claim(order.id, order.number, attempt.id, order.total_cents, attempt.gateway_key, previous)

    @staticmethod
    def _declines(session: Session, order: Order) -> int:
        return session.exec(
            select(func.count())
            .select_from(PaymentAttempt)
            .where(col(PaymentAttempt.order_id) == order.id, col(PaymentAttempt.status) == AttemptStatus.DECLINED)
        ).one()

    def _finish_attempt(self, session: Session, claim: Claim, status: AttemptStatus, **values: object) -> None:
        session.execute(
            update(PaymentAttempt)
            .where(col(PaymentAttempt.id) == claim.attempt_id)
            .values(status=status, finished_at=self._clock(), **values)
        )

    def _release(self, claim: Claim, outcome: AttemptStatus, payment_status: PaymentStatus, reason: str) -> None:
        """Nothing was charged: record why and let the order be paid again."""
        with self._session_factory() as session:
            session.execute(
                update(Order)
                .where(col(Order.id) == claim.order_id, col(Order.payment_status) == PaymentStatus.CHARGING)
                .values(payment_status=payment_status, payment_claimed_at=None, updated_at=self._clock())
            )
            self._finish_attempt(session, claim, outcome, reason=reason[:2000])
            session.commit()

    def _record_paid(self, claim: Claim, result: PaymentResult) -> Order:
        """Mark the order paid (its history and confirmation too) and queue it for the provider, in
        one transaction."""
        now = self._clock()
        with self._session_factory() as session:
            order = order_access.find_order(session, claim.order_id)
            details = {"payment_id": result.payment_id, "card_brand": result.brand, "card_last4": result.last4}
            detail = f"{format_usd(claim.amount_cents)} ({result.payment_id})"
            if lifecycle.paid(
                session, order, actor=self._gateway.name, detail=detail, payment=details, now=now, emails=self.emails
            ):
                self._finish_attempt(session, claim, AttemptStatus.APPROVED, **details)
                session.add(OutboxJob(kind=SEND_ORDER, order_id=claim.order_id, next_attempt_at=now, created_at=now))
                logger.info("Order %s paid (payment %s); queued for fulfilment", claim.number, result.payment_id)
            else:
                # Only after a claim outlived its lease: the money must go back, so say so loudly.
                duplicate = "Duplicate charge: refund it"
                self._finish_attempt(session, claim, AttemptStatus.APPROVED, reason=duplicate, **details)
                logger.error("Order %s was already paid; payment %s must be refunded", claim.number, result.payment_id)
            session.commit()
            return order_access.find_order(session, claim.order_id)
