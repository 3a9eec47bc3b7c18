"""The store's health as a load balancer asks for it every few seconds: can this process reach its
database and Redis (the checks that fail it), and how far behind are the fulfilment outbox, the
mail queue and the catalogue sync (reported with a `late` flag, never failing it: a provider or
mail server outage must not take every worker out of the balancer and stop the shop taking orders).

Each look is a handful of indexed queries; nothing here holds a connection between looks."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine
from sqlmodel import col

from storefront.models import JobLease, MailMessage, OutboxJob, utcnow

logger = logging.getLogger(__name__)

#: A paid order waiting longer than this for the provider, or an email for the mail server, is late.
OUTBOX_LATE = timedelta(minutes=30)
MAIL_LATE = timedelta(minutes=30)
#: Seconds Redis may take to answer a PING before it counts as gone.
REDIS_TIMEOUT_SECONDS = 1.0


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time stored is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def _failure(error: BaseException) -> str:
    """What went wrong, without addresses or passwords (the exception's kind and its first line)."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first[:200]}" if first else type(error).__name__


@dataclass
class HealthReport:
    """The checks by name, each with `ok` and what it found; `failed` names the checks that failed."""

    checks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def failed(self) -> list[str]:
        return [name for name, check in self.checks.items() if not check["ok"]]

    @property
    def ok(self) -> bool:
        return not self.failed

    def as_json(self) -> dict[str, Any]:
        return {"status": "ok" if self.ok else "failed", "failed": self.failed, "checks": self.checks}


class HealthChecks:
    """Looks at the database, Redis (when configured) and the queues of one store."""

    def __init__(
        self,
        engine: Engine,
        redis_url: str = "",
        *,
        sync_job: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.engine = engine
        self.sync_job = sync_job
        self.clock = clock
        self._redis = (
            redis.Redis.from_url(
                redis_url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS
            )
            if redis_url else None
        )

    def run(self) -> HealthReport:
        report = HealthReport()
        report.checks["database"] = self._database(report)
        if self._redis is not None:
            report.checks["redis"] = self._redis_check()
        return report

    def _database(self, report: HealthReport) -> dict[str, Any]:
        """The database answers; while it does, the queues it holds are read too."""
        now = self.clock()
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
                outbox = connection.execute(
                    select(func.min(OutboxJob.created_at), func.max(OutboxJob.attempts))
                    .where(col(OutboxJob.done_at).is_(None))
                ).one()
                mail = connection.execute(
                    select(func.min(MailMessage.created_at), func.max(MailMessage.attempts))
                    .where(col(MailMessage.sent_at).is_(None))
                ).one()
                synced = (
                    connection.execute(
                        select(col(JobLease.finished_at)).where(col(JobLease.name) == self.sync_job)
                    ).scalar()
                    if self.sync_job else None
                )
        except Exception as error:  # noqa: BLE001 - any failure to reach it is the answer
            logger.warning("Health check: the database failed: %s", _failure(error))
            return {"ok": False, "error": _failure(error)}
        report.checks["fulfilment_outbox"] = self._queue(now, _aware(outbox[0]), outbox[1], OUTBOX_LATE)
        report.checks["mail_queue"] = self._queue(now, _aware(mail[0]), mail[1], MAIL_LATE)
        synced = _aware(synced)
        report.checks["catalogue_sync"] = {
            "ok": True,
            "last_finished_at": synced.isoformat() if synced else None,
            "age_seconds": round((now - synced).total_seconds(), 1) if synced else None,
        }
        return {"ok": True}

    @staticmethod
    def _queue(now: datetime, oldest: datetime | None, attempts: int | None, late: timedelta) -> dict[str, Any]:
        age = (now - oldest).total_seconds() if oldest else 0.0
        return {
            "ok": True,
            "oldest_waiting_seconds": round(max(0.0, age), 1),
            "most_attempts": int(attempts or 0),
            "late": age > late.total_seconds(),
        }

    def _redis_check(self) -> dict[str, Any]:
        assert self._redis is not None
        try:
            self._redis.ping()
        except Exception as error:  # noqa: BLE001 - any failure to reach it is the answer
            logger.warning("Health check: Redis failed: %s", _failure(error))
            return {"ok": False, "error": _failure(error)}
        return {"ok": True}
