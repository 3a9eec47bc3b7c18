"""Printify webhooks (contract §8): signature check, the envelope, and applying each delivery once.

A delivery is applied in the same transaction that records its id (WebhookDelivery), so a
redelivery is a no-op. What fails for a reason that may pass (provider down, database error) is
not recorded and answered 5xx: Printify retries it. No transaction is open during a provider call.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from storefront.models import CatalogProduct, Order, WebhookDelivery, utcnow
from storefront.services.catalog.catalog import storefront_handle
from storefront.services.catalog.sync import parse_provider_time, remove_products, upsert_product
from storefront.services.orders import lifecycle
from storefront.services.orders.fulfilment import is_permanent
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_tracking import (
    apply_provider_order,
    apply_provider_status,
    apply_shipment,
    mark_in_production,
)
from storefront.services.platform.errors import ServiceError, UnauthorizedError
from storefront.services.platform.webhook_deliveries import record_delivery
from storefront.services.printify.errors import ProviderError, ProviderNotFound, provider_reason
from storefront.services.printify.provider import PrintProvider

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]

SIGNATURE_PREFIX = "sha256="
INVALID_SIGNATURE = "Invalid webhook signature"
INVALID_PAYLOAD = "Invalid webhook payload"
NOT_APPLIED = "Webhook not applied, please retry"
#: Told to the provider when the storefront cannot take a product it is asked to publish.
STORE_FAILED = "The storefront could not save the product."

ORDER_CREATED = "order:created"
ORDER_UPDATED = "order:updated"
ORDER_SENT_TO_PRODUCTION = "order:sent-to-production"
ORDER_SHIPMENT_CREATED = "order:shipment:created"
ORDER_SHIPMENT_DELIVERED = "order:shipment:delivered"
ORDER_TOPICS = frozenset(
    {ORDER_CREATED, ORDER_UPDATED, ORDER_SENT_TO_PRODUCTION, ORDER_SHIPMENT_CREATED, ORDER_SHIPMENT_DELIVERED}
)
PRODUCT_PUBLISH_STARTED = "product:publish:started"
PRODUCT_DELETED = "product:deleted"
PRODUCT_CREATED = "product:created"
PRODUCT_UPDATED = "product:updated"

# Column sizes of webhook_delivery.
_ID_CHARS = 128
_TOPIC_CHARS = 64
_RESOURCE_CHARS = 64


class InvalidSignature(UnauthorizedError):
    """The delivery is not signed with our secret (or no secret is set): nothing is applied."""

    def __init__(self) -> None:
        super().__init__(INVALID_SIGNATURE)


class MalformedWebhook(ServiceError):
    """A signed body that is not a webhook envelope; `details` says what is wrong."""

    status_code = 400

    def __init__(self, problem: str) -> None:
        super().__init__(INVALID_PAYLOAD, details=problem)


class WebhookNotApplied(ServiceError):
    """Applying failed for a reason that may pass; not recorded, so the provider's retry applies it."""

    status_code = 503

    def __init__(self, reason: str) -> None:
        super().__init__(NOT_APPLIED, details=reason)


class Outcome(StrEnum):
    """What became of a delivery that was accepted."""

    APPLIED = "applied"
    #: Recorded without a change: another shop's, an unknown order, an unhandled topic.
    IGNORED = "ignored"
    #: Already applied before.
    DUPLICATE = "duplicate"


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    """A parsed delivery envelope: {id, type, created_at, resource: {id, type, data}}."""

    id: str
    topic: str
    resource_id: str
    resource_type: str
    data: Mapping[str, Any]
    created_at: str = ""


# --------------------------------------------------------------------------- signature and envelope

_missing_secret_logged = False
_log_lock = threading.Lock()


def _log_missing_secret() -> None:
    global _missing_secret_logged
    with _log_lock:
        if _missing_secret_logged:
            return
        _missing_secret_logged = True
    logger.error(
        "PRINTIFY_WEBHOOK_SECRET is not set: every Printify webhook delivery is refused with 401. "
        "Set it to the secret the webhooks were created with."
    )


def expected_signature(body: bytes, secret: str) -> str:
    """"sha256=" + hex HMAC-SHA256 of the raw body keyed with the secret."""
    return SIGNATURE_PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_is_valid(body: bytes, header: str | None, secret: str) -> bool:
    """True when `header` (X-Pfy-Signature, with or without "sha256=") signs the raw `body`."""
    if not secret:
        _log_missing_secret()
        return False
    if not header:
        return False
    given = header.strip()
    if given[: len(SIGNATURE_PREFIX)].lower() == SIGNATURE_PREFIX:
        given = given[len(SIGNATURE_PREFIX) :]
    expected = expected_signature(body, secret)[len(SIGNATURE_PREFIX) :]
    return hmac.compare_digest(expected.encode(), given.lower().encode("utf-8", "replace"))


def _identifier(value: object, name: str, limit: int) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise MalformedWebhook(f"{name} is missing")
    if len(value.strip()) > limit:
        raise MalformedWebhook(f"{name} is longer than {limit} characters")
    return value.strip()


def parse_event(body: bytes) -> WebhookEvent:
    """The envelope of a delivery; MalformedWebhook says what is missing or wrong."""
    try:
        envelope = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise MalformedWebhook("The body is not JSON") from None
    if not isinstance(envelope, dict):
        raise MalformedWebhook("The body is not a JSON object")
    resource = envelope.get("resource")
    if not isinstance(resource, dict):
        raise MalformedWebhook("resource is missing")
    data = resource.get("data")
    if data is not None and not isinstance(data, dict):
        raise MalformedWebhook("resource.data is not an object")
    created_at = envelope.get("created_at")
    return WebhookEvent(
        id=_identifier(envelope.get("id"), "id", _ID_CHARS),
        topic=_identifier(envelope.get("type"), "type", _TOPIC_CHARS),
        resource_id=_identifier(resource.get("id"), "resource.id", _RESOURCE_CHARS),
        resource_type=str(resource.get("type") or ""),
        data=data or {},
        created_at=created_at if isinstance(created_at, str) else "",
    )


def apply_order_event(session: Session, order: Order, event: WebhookEvent, now: datetime) -> bool:
    """What an order delivery's own data says, applied to our order (no provider call needed)."""
    data = event.data
    changed = False
    if event.topic == ORDER_UPDATED:
        changed = apply_provider_status(session, order, data.get("status"), now)
    elif event.topic == ORDER_SENT_TO_PRODUCTION:
        changed = mark_in_production(session, order, now)
    elif event.topic in (ORDER_SHIPMENT_CREATED, ORDER_SHIPMENT_DELIVERED):
        raw_carrier = data.get("carrier")
        carrier: Mapping[str, Any] = raw_carrier if isinstance(raw_carrier, Mapping) else {}
        changed = apply_shipment(
            session,
            order,
            carrier=carrier.get("code"),
            number=carrier.get("tracking_number"),
            url=carrier.get("tracking_url"),
            shipped_at=parse_provider_time(data.get("shipped_at")),
            delivered_at=parse_provider_time(data.get("delivered_at")),
            now=now,
        )
    order.provider_checked_at = now
    if changed:
        order.updated_at = now
    return changed


# --------------------------------------------------------------------------- the service


class ProviderEvents:
    """Receives Printify webhook deliveries for the shop `shop_id` (an int, or a function that
    finds it, called only for signed deliveries)."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        provider: PrintProvider,
        shop_id: int | Callable[[], int],
        secret: str,
        *,
        clock: Clock = utcnow,
        refetch_orders: bool = True,
        emails: OrderEmails,
    ) -> None:
        self._session_factory = session_factory
        self._provider = provider
        self._shop_id = shop_id
        self._secret = secret
        self._clock = clock
        self._emails = emails
        #: Re-read an order from the provider for the details a delivery leaves out (best effort).
        self._refetch_orders = refetch_orders

    @property
    def emails(self) -> OrderEmails:
        return self._emails

    def receive(self, body: bytes, signature: str | None) -> Outcome:
        """Verify, parse and apply one delivery (raw body and X-Pfy-Signature header).

        InvalidSignature (401), MalformedWebhook (400) and WebhookNotApplied (503) change nothing."""
        if not signature_is_valid(body, signature, self._secret):
            raise InvalidSignature()
        return self.apply(parse_event(body))

    def apply(self, event: WebhookEvent) -> Outcome:
        """Apply a verified delivery once."""
        try:
            if self._already_applied(event.id):
                return Outcome.DUPLICATE
            if event.topic in ORDER_TOPICS:
                return self._order_event(event)
            if event.topic == PRODUCT_PUBLISH_STARTED:
                return self._publish_started(event)
            if event.topic == PRODUCT_DELETED:
                return self._product_deleted(event)
            if event.topic in (PRODUCT_CREATED, PRODUCT_UPDATED):
                return self._product_changed(event)
            return self._record_only(event, "a topic the store does not handle")
        except (ServiceError, SQLAlchemyError) as exc:
            if isinstance(exc, ServiceError) and not isinstance(exc, ProviderError):
                raise
            logger.warning("Webhook %s (%s) not applied, left for a retry: %r", event.id, event.topic, exc)
            raise WebhookNotApplied(_describe(exc)) from exc
        except Exception as exc:
            logger.exception("Webhook %s (%s) failed unexpectedly, left for a retry", event.id, event.topic)
            raise WebhookNotApplied(type(exc).__name__) from exc

    # ------------------------------------------------------------------ shared steps

    def _our_shop(self) -> int:
        """Our shop id (may ask the provider: a ProviderError means try later)."""
        return int(self._shop_id() if callable(self._shop_id) else self._shop_id)

    @staticmethod
    def _foreign(event: WebhookEvent, shop_id: int | None) -> bool:
        """True when the delivery names a shop and it is not ours."""
        named = event.data.get("shop_id")
        return shop_id is not None and named is not None and str(named) != str(shop_id)

    def _already_applied(self, event_id: str) -> bool:
        with self._session_factory() as session:
            return session.get(WebhookDelivery, event_id) is not None

    def _record(self, session: Session, event: WebhookEvent) -> bool:
        """Add the delivery to the session's transaction; False when it was recorded meanwhile."""
        return record_delivery(session, event.id, event.topic, event.resource_id, self._clock())

    def _record_only(self, event: WebhookEvent, why: str) -> Outcome:
        with self._session_factory() as session:
            if not self._record(session, event):
                return Outcome.DUPLICATE
            session.commit()
        logger.info("Webhook %s (%s, %s) recorded and ignored: %s", event.id, event.topic, event.resource_id, why)
        return Outcome.IGNORED

    # ------------------------------------------------------------------ orders

    def _order_event(self, event: WebhookEvent) -> Outcome:
        try:
            shop_id: int | None = self._our_shop()
        except ProviderError as exc:
            # Provider order ids are unique, and the signature says it is Printify: go on without.
            logger.warning(
                "Shop unknown while the provider is unreachable (%r); webhook %s applied without it", exc, event.id
            )
            shop_id = None
        if self._foreign(event, shop_id):
            return self._record_only(event, "another shop's order")
        if not self._order_exists(event.resource_id):
            return self._record_only(event, "no order of ours has this provider id")
        snapshot = self._fetch_order(shop_id, event.resource_id)
        now = self._clock()
        with self._session_factory() as session:
            if not self._record(session, event):
                return Outcome.DUPLICATE
            order = session.exec(select(Order).where(col(Order.printify_order_id) == event.resource_id)).first()
            if order is None:
                session.commit()
                return Outcome.IGNORED
            apply_order_event(session, order, event, now)
            if snapshot is not None:
                apply_provider_order(session, order, snapshot, now)
            session.add(order)
            lifecycle.notify(session, order, self.emails, now)
            session.commit()
            logger.info(
                "Webhook %s (%s) applied to order %s: %s", event.id, event.topic, order.number, order.printify_status
            )
        return Outcome.APPLIED

    def _order_exists(self, provider_order_id: str) -> bool:
        with self._session_factory() as session:
            found = session.exec(select(Order.id).where(col(Order.printify_order_id) == provider_order_id)).first()
            return found is not None

    def _fetch_order(self, shop_id: int | None, provider_order_id: str) -> dict[str, Any] | None:
        """The provider's full order, or None (the delivery's own data then has to do)."""
        if not self._refetch_orders or shop_id is None:
            return None
        try:
            snapshot = self._provider.get_order(shop_id, provider_order_id)
        except ProviderError as exc:
            logger.warning("Could not re-read order %s from the provider: %r", provider_order_id, exc)
            return None
        return snapshot if isinstance(snapshot, dict) else None

    # ------------------------------------------------------------------ products

    def _product_deleted(self, event: WebhookEvent) -> Outcome:
        if self._foreign(event, self._our_shop()):
            return self._record_only(event, "another shop's product")
        with self._session_factory() as session:
            if not self._record(session, event):
                return Outcome.DUPLICATE
            remove_products(session, [event.resource_id])
            session.commit()
        logger.info("Webhook %s: product %s removed from the catalogue", event.id, event.resource_id)
        return Outcome.APPLIED

    def _product_changed(self, event: WebhookEvent) -> Outcome:
        shop_id = self._our_shop()
        if self._foreign(event, shop_id):
            return self._record_only(event, "another shop's product")
        try:
            product = self._provider.get_product(shop_id, event.resource_id)
        except ProviderNotFound:
            return self._product_deleted(event)
        except ProviderError as exc:
            if not is_permanent(exc):
                raise
            return self._record_only(event, f"the provider refused to give the product: {provider_reason(exc)}")
        with self._session_factory() as session:
            if not self._record(session, event):
                return Outcome.DUPLICATE
            try:
                upsert_product(session, product, shop_id)
            except (KeyError, TypeError, ValueError) as exc:
                session.rollback()
                return self._record_only(event, f"the product could not be read: {exc!r}")
            session.commit()
        logger.info("Webhook %s: product %s refreshed in the catalogue", event.id, event.resource_id)
        return Outcome.APPLIED

    def _publish_started(self, event: WebhookEvent) -> Outcome:
        """The storefront is the sales channel: take the product in, published, and say so."""
        shop_id = self._our_shop()
        product_id = event.resource_id
        if self._foreign(event, shop_id):
            return self._record_only(event, "another shop's product")
        try:
            product = self._provider.get_product(shop_id, product_id)
        except ProviderError as exc:
            if not is_permanent(exc):
                raise
            self._publishing_failed(shop_id, product_id, provider_reason(exc))
            return self._record_only(event, f"the provider could not give the product: {provider_reason(exc)}")

        was_published = self._store_published(event, shop_id, product, product_id)
        if was_published is _UNREADABLE:
            return self._record_only(event, "the product could not be read")
        try:
            self._provider.publishing_succeeded(
                shop_id, product_id, {"id": product_id, "handle": storefront_handle(product_id)}
            )
        except ProviderError as exc:
            self._restore_published(product_id, bool(was_published))
            if not is_permanent(exc):
                raise
            self._publishing_failed(shop_id, product_id, provider_reason(exc))
            return self._record_only(event, f"the provider refused the publish: {provider_reason(exc)}")
        with self._session_factory() as session:
            if not self._record(session, event):
                return Outcome.DUPLICATE
            session.commit()
        logger.info("Webhook %s: product %s published on the storefront", event.id, product_id)
        return Outcome.APPLIED

    def _store_published(self, event: WebhookEvent, shop_id: int, product: dict[str, Any], product_id: str) -> object:
        """Write the product into the cache marked published; returns whether it was published before.

        A product we cannot read is refused to the provider (_UNREADABLE); a database error is
        refused too, then raised, so the retry can publish it after all."""
        with self._session_factory() as session:
            try:
                existing = session.get(CatalogProduct, product_id)
                was_published = bool(existing and existing.is_published)
                row = upsert_product(session, product, shop_id)
                row.is_published = True
                session.add(row)
                session.commit()
                return was_published
            except (KeyError, TypeError, ValueError) as exc:
                session.rollback()
                logger.warning("Webhook %s: product %s could not be stored: %r", event.id, product_id, exc)
                self._publishing_failed(shop_id, product_id, STORE_FAILED)
                return _UNREADABLE
            except SQLAlchemyError:
                session.rollback()
                self._publishing_failed(shop_id, product_id, STORE_FAILED)
                raise

    def _restore_published(self, product_id: str, was_published: bool) -> None:
        """Undo 'published' in the cache after the provider did not take the confirmation (best effort)."""
        try:
            with self._session_factory() as session:
                row = session.get(CatalogProduct, product_id)
                if row is not None and row.is_published != was_published:
                    row.is_published = was_published
                    session.add(row)
                    session.commit()
        except SQLAlchemyError:
            logger.exception("Could not undo the published mark of product %s", product_id)

    def _publishing_failed(self, shop_id: int, product_id: str, reason: str) -> None:
        """Tell the provider the publish failed, so it unlocks the product (best effort, logged)."""
        try:
            self._provider.publishing_failed(shop_id, product_id, reason)
        except ProviderError as exc:
            logger.warning("Could not report the failed publish of product %s: %r", product_id, exc)


_UNREADABLE = object()


def _describe(exc: Exception) -> str:
    if isinstance(exc, ProviderError):
        return f"Print provider: {provider_reason(exc)}"
    return "Database unavailable"
