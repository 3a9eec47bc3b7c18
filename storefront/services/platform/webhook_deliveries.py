"""Webhook deliveries applied once: a delivery's id is recorded in the transaction of its effect."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from storefront.models import WebhookDelivery


def record_delivery(session: Session, delivery_id: str, topic: str, resource_id: str, at: datetime) -> bool:
    """Add the delivery to the session's transaction; False (rolled back) when it was recorded before."""
    session.add(WebhookDelivery(id=delivery_id[:128], topic=topic[:64], resource_id=resource_id[:64], received_at=at))
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        return False
    return True
