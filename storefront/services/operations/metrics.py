"""/metrics in Prometheus' text format: what the database holds, read at each scrape (orders by
status and payment, payment attempts, refunds, the fulfilment outbox and the mail queue), with
what this process counted (services/platform/metrics.py) and its open websockets.

A scrape is a few grouped counts over indexed columns; every worker answers the same figures
from the database, so a scrape may reach any of them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import col

from storefront.models import MailMessage, Order, OrderHistory, OutboxJob, PaymentAttempt, utcnow

__all__ = ["CONTENT_TYPE_LATEST", "StoreCollector", "render_metrics"]


def _age(now: datetime, oldest: datetime | None) -> float:
    if oldest is None:
        return 0.0
    if oldest.tzinfo is None:  # SQLite hands datetimes back without their zone; all are UTC
        oldest = oldest.replace(tzinfo=UTC)
    return max(0.0, (now - oldest).total_seconds())


class StoreCollector(Collector):
    """The store's figures from its database, and its open websockets from `websockets()`."""

    def __init__(
        self, engine: Engine, websockets: Callable[[], int] | None = None, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.engine = engine
        self.websockets = websockets
        self.clock = clock

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = self.clock()
        orders = GaugeMetricFamily(
            "storefront_orders", "Orders by status, payment status and payment gateway.",
            labels=["status", "payment_status", "gateway"],
        )
        attempts = GaugeMetricFamily(
            "storefront_payment_attempts", "Charges sent to the test gateway, by outcome.", labels=["status"]
        )
        history = GaugeMetricFamily(
            "storefront_order_actions", "What happened to orders (refunded, cancelled, expired, ...), by action.",
            labels=["action"],
        )
        outbox = GaugeMetricFamily(
            "storefront_outbox_waiting_jobs", "Fulfilment outbox jobs not done, by kind.", labels=["kind"]
        )
        outbox_age = GaugeMetricFamily(
            "storefront_outbox_oldest_waiting_seconds", "Age of the oldest fulfilment job not done."
        )
        outbox_retries = GaugeMetricFamily("storefront_outbox_retries", "Attempts already made by the jobs not done.")
        mail = GaugeMetricFamily(
            "storefront_mail_messages",
            "Customer emails: sent, waiting, failing (waiting after a failed try).",
            labels=["state"],
        )
        mail_age = GaugeMetricFamily("storefront_mail_oldest_waiting_seconds", "Age of the oldest email not sent.")
        with self.engine.connect() as connection:
            for status, payment, gateway, count in connection.execute(
                select(col(Order.status), col(Order.payment_status), col(Order.payment_provider), func.count())
                .group_by(Order.status, Order.payment_status, Order.payment_provider)
            ):
                orders.add_metric([status, payment, gateway], count)
            for status, count in connection.execute(
                select(col(PaymentAttempt.status), func.count()).group_by(PaymentAttempt.status)
            ):
                attempts.add_metric([status], count)
            for action, count in connection.execute(
                select(col(OrderHistory.action), func.count()).group_by(OrderHistory.action)
            ):
                history.add_metric([action], count)
            waiting = col(OutboxJob.done_at).is_(None)
            for kind, count in connection.execute(
                select(col(OutboxJob.kind), func.count()).where(waiting).group_by(OutboxJob.kind)
            ):
                outbox.add_metric([kind], count)
            oldest, retries = connection.execute(
                select(func.min(OutboxJob.created_at), func.coalesce(func.sum(OutboxJob.attempts), 0)).where(waiting)
            ).one()
            outbox_age.add_metric([], _age(now, oldest))
            outbox_retries.add_metric([], retries)
            unsent = col(MailMessage.sent_at).is_(None)
            sent = connection.execute(select(func.count()).where(col(MailMessage.sent_at).is_not(None))).scalar_one()
            queued, failing, oldest_mail = connection.execute(
                select(
                    func.count(), func.count().filter(col(MailMessage.attempts) > 0), func.min(MailMessage.created_at)
                ).where(unsent)
            ).one()
            mail.add_metric(["sent"], sent)
            mail.add_metric(["waiting"], queued)
            mail.add_metric(["failing"], failing)
            mail_age.add_metric([], _age(now, oldest_mail))
        yield from (orders, attempts, history, outbox, outbox_age, outbox_retries, mail, mail_age)
        if self.websockets is not None:
            yield GaugeMetricFamily(
                "storefront_websocket_connections", "Open Reflex websockets of the worker that answers.",
                value=self.websockets(),
            )


def render_metrics(store: StoreCollector) -> bytes:
    """The text format of one scrape: this process's (or, with PROMETHEUS_MULTIPROC_DIR, every
    worker's) counters and histograms, then the store's figures."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counted = CollectorRegistry()
        MultiProcessCollector(counted)
    else:
        counted = REGISTRY
    figures = CollectorRegistry(auto_describe=False)
    figures.register(store)
    return generate_latest(counted) + generate_latest(figures)
