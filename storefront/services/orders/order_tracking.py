"""Keeping our orders in step with the print provider's copy: statuses and shipment tracking.

The provider tells us about changes by webhook (services/orders/provider_events.py), and webhooks can be
lost, so `OrderTracker` also re-reads, now and then, every sent order that is not final yet. Both
paths read the provider's data with the functions here, which move the order through the
lifecycle's provider steps (in production, shipped, delivered): never backwards, each step's
history line written once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from storefront.models import Order, utcnow
from storefront.services.catalog.sync import parse_provider_time
from storefront.services.orders import lifecycle
from storefront.services.orders.fulfilment import is_permanent
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.platform.background import Step, Worker, start_worker
from storefront.services.platform.job_leases import JobLeases, one_at_a_time
from storefront.services.printify.provider import PrintProvider

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]

#: Provider statuses after which an order changes no more (contract §7).
FINAL_PROVIDER_STATUSES = lifecycle.PROVIDER_FINAL
IN_PRODUCTION = lifecycle.PROVIDER_IN_PRODUCTION
order_status_for = lifecycle.order_status_for
DEFAULT_POLL_INTERVAL = timedelta(minutes=10)
DEFAULT_POLL_BATCH = 20
#: The order poll's job: one process of the store polls (services/platform/job_leases.py).
TRACKING_JOB = "order-tracking"

# Column sizes of the orders table: a longer provider value must not fail the whole update.
_STATUS_CHARS = 32
_NUMBER_CHARS = 128
_CARRIER_CHARS = 64
_URL_CHARS = 2000


# --------------------------------------------------------------------------- applying provider data


def apply_provider_status(session: Session, order: Order, provider_status: object, now: datetime) -> bool:
    """Take the provider's status (lifecycle.provider_status: a final one is never replaced by an
    earlier one, and a fulfilled or cancelled order keeps its status). True when anything changed."""
    if not isinstance(provider_status, str) or not provider_status.strip():
        return False
    status = provider_status.strip().lower()[:_STATUS_CHARS]
    if status == "cancelled":
        status = "canceled"
    return lifecycle.provider_status(session, order, status, now=now)


def mark_in_production(session: Session, order: Order, now: datetime) -> bool:
    """The provider sent the order to production: move a not-yet-started provider status on."""
    return lifecycle.in_production(session, order, now=now)


def _text(value: object, limit: int) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip()[:limit]


def _web_link(value: object) -> str | None:
    """An http(s) URL, or None: a provider link is shown as a link, so nothing else may get through."""
    url = _text(value, _URL_CHARS)
    return url if url is not None and url.lower().startswith(("https://", "http://")) else None


def apply_shipment(
    session: Session,
    order: Order,
    *,
    carrier: object = None,
    number: object = None,
    url: object = None,
    shipped_at: datetime | None = None,
    delivered_at: datetime | None = None,
    now: datetime,
) -> bool:
    """Record a shipment as the provider gives it (lifecycle.shipped: the latest one wins; what it
    leaves out is kept). Returns True when the order changed."""
    return lifecycle.shipped(
        session, order, carrier=_text(carrier, _CARRIER_CHARS), number=_text(number, _NUMBER_CHARS),
        url=_web_link(url), shipped_at=shipped_at, delivered_at=delivered_at, now=now,
    )


def _latest_time(*values: object) -> datetime | None:
    times = [t for t in (parse_provider_time(v) for v in values) if t is not None]
    return max(times) if times else None


def apply_provider_order(session: Session, order: Order, snapshot: Mapping[str, Any], now: datetime) -> bool:
    """Bring an order in line with the provider's order object (contract §7): its status and its
    latest shipment (a snapshot without shipments keeps the tracking we have). Returns True when
    anything but the check time changed."""
    changed = apply_provider_status(session, order, snapshot.get("status"), now)
    shipments = [s for s in snapshot.get("shipments") or [] if isinstance(s, Mapping)]
    if shipments:
        latest = shipments[-1]
        lines = [line for line in snapshot.get("line_items") or [] if isinstance(line, Mapping)]
        # The order object's shipments carry no shipping time: the fulfilment time stands in.
        shipped_at = parse_provider_time(latest.get("shipped_at")) or _latest_time(
            snapshot.get("fulfilled_at"), *(line.get("fulfilled_at") for line in lines)
        )
        changed |= apply_shipment(
            session,
            order,
            carrier=latest.get("carrier"),
            number=latest.get("number"),
            url=latest.get("url"),
            shipped_at=shipped_at if order.shipped_at is None else None,
            delivered_at=parse_provider_time(latest.get("delivered_at")),
            now=now,
        )
    order.provider_checked_at = now
    if changed:
        order.updated_at = now
    return changed


# --------------------------------------------------------------------------- the slow poll

#: What checking one order came to.
_READ, _SKIPPED, _PROVIDER_DOWN = object(), object(), object()


class OrderTracker:
    """Re-reads sent orders that are not final from the provider, so statuses stay right even
    when webhooks are lost. Each order is read at most once per `interval`, oldest check first."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        provider: PrintProvider,
        shop_id: int | Callable[[], int],
        *,
        interval: timedelta = DEFAULT_POLL_INTERVAL,
        clock: Clock = utcnow,
        emails: OrderEmails,
    ) -> None:
        self._session_factory = session_factory
        self._provider = provider
        self._shop_id = shop_id
        self.interval = interval
        self._clock = clock
        self._emails = emails

    @property
    def emails(self) -> OrderEmails:
        return self._emails

    def due_order_ids(self, limit: int = DEFAULT_POLL_BATCH) -> list[int]:
        """Ids of sent, not final orders last checked more than `interval` ago, never checked first."""
        stale_before = self._clock() - self.interval
        checked = col(Order.provider_checked_at)
        query = (
            select(Order.id)
            .where(
                col(Order.printify_order_id).is_not(None),
                or_(col(Order.printify_status).is_(None), col(Order.printify_status).not_in(FINAL_PROVIDER_STATUSES)),
                col(Order.delivered_at).is_(None),
                or_(checked.is_(None), checked < stale_before),
            )
            # NULL sorts first on SQLite and last on PostgreSQL: order by "was checked" first.
            .order_by(checked.is_not(None), checked, col(Order.id))
            .limit(max(limit, 0))
        )
        with self._session_factory() as session:
            return [order_id for order_id in session.exec(query).all() if order_id is not None]

    def poll_due(self, limit: int = DEFAULT_POLL_BATCH) -> int:
        """Re-read up to `limit` due orders; returns how many were read. A provider that is down
        or throttling ends the round; nothing is raised (failures are logged)."""
        try:
            shop_id = self._shop_id() if callable(self._shop_id) else self._shop_id
            read = 0
            for order_id in self.due_order_ids(limit):
                outcome = self._check(order_id, shop_id)
                if outcome is _PROVIDER_DOWN:
                    break
                read += outcome is _READ
            return read
        except Exception:  # a poll round must never take its caller down
            logger.exception("Polling the print provider for order updates failed")
            return 0

    def _check(self, order_id: int, shop_id: int) -> object:
        now = self._clock()
        with self._session_factory() as session:
            order = session.get(Order, order_id)
            if order is None or order.printify_order_id is None:
                return _SKIPPED
            provider_order_id, previous_check = order.printify_order_id, order.provider_checked_at
            # Claim the order (compare-and-set on its check time) so two workers do not both read it.
            if not _set_checked(session, order_id, previous_check, now):
                return _SKIPPED
        try:
            snapshot = self._provider.get_order(shop_id, provider_order_id)
        except Exception as exc:  # noqa: BLE001 - logged; the order keeps what it had
            if is_permanent(exc):
                # The provider will not answer for this order (gone): leave it until the next interval.
                logger.warning("The print provider could not give order %s: %r", provider_order_id, exc)
                return _SKIPPED
            with self._session_factory() as session:
                _set_checked(session, order_id, now, previous_check)
            logger.warning("The print provider is unavailable; order polling paused: %r", exc)
            return _PROVIDER_DOWN
        with self._session_factory() as session:
            order = session.get(Order, order_id)
            if order is None:
                return _SKIPPED
            now = self._clock()
            if apply_provider_order(session, order, snapshot, now):
                logger.info("Order %s updated from the print provider: %s", order.number, order.printify_status)
            session.add(order)
            lifecycle.notify(session, order, self.emails, now)
            session.commit()
        return _READ


def _set_checked(session: Session, order_id: int, expected: datetime | None, value: datetime | None) -> bool:
    """Move an order's check time from `expected` to `value` if nobody moved it meanwhile."""
    checked = col(Order.provider_checked_at)
    condition = checked.is_(None) if expected is None else checked == expected
    moved = session.exec(
        update(Order).where(col(Order.id) == order_id, condition).values(provider_checked_at=value)
    ).rowcount
    session.commit()
    return moved == 1


# --------------------------------------------------------------------------- background thread


def start_order_tracker(
    tracker: OrderTracker,
    every_seconds: float = 60.0,
    batch_size: int = DEFAULT_POLL_BATCH,
    leases: JobLeases | None = None,
) -> Worker:
    """Run tracker.poll_due in a daemon thread every `every_seconds` (whole batches back to back);
    with `leases`, only in the one process of the store holding the job."""

    def poll() -> float:
        return 0.0 if tracker.poll_due(batch_size) >= batch_size else every_seconds

    step: Step = poll
    if leases is not None:
        step = one_at_a_time(leases, TRACKING_JOB, poll, lease_seconds=every_seconds * 3, idle_seconds=every_seconds)
    return start_worker("order-tracker", step, error_wait=every_seconds)
