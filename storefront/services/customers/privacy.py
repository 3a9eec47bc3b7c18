"""A customer's two privacy duties: export everything the shop keeps about them as JSON, and
erase it. Erasing keeps each order's money and lines for the books (totals, refunds, items,
country and state for tax) and replaces the personal fields everywhere: the order's name, email,
phone and address, its history notes, the mail log (sent messages' bodies and the .eml files
written without SMTP; unsent ones are dropped) and the newsletter. Both are logged, naming the
customer only by a hash, so the log keeps no address after an erase."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, or_
from sqlmodel import Session, col, select

from storefront.models import MailMessage, NewsletterSubscriber, Order, OrderHistory, OrderItem, utcnow
from storefront.services.customers.customers import ERASED_DOMAIN, customer_orders, normal_email
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor

CUSTOMER_NOT_FOUND = "Customer not found"
EMAIL_REQUIRED = "Enter the customer's email"
ERASED = "[erased]"
ERASED_NAME = "Erased customer"


def customer_ref(email: str) -> str:
    """How the activity log names a customer: a hash of the email, never the email itself."""
    return f"customer {hashlib.sha256(email.encode()).hexdigest()[:12]}"


def _mail_of(session: Session, email: str, order_ids: list[int]) -> list[MailMessage]:
    conditions = [func.lower(col(MailMessage.recipient)) == email, func.lower(col(MailMessage.reply_to)) == email]
    if order_ids:
        conditions.append(col(MailMessage.order_id).in_(order_ids))
    return list(session.exec(select(MailMessage).where(or_(*conditions))).all())


def _address(order: Order) -> dict[str, Any]:
    return {
        "firstName": order.first_name, "lastName": order.last_name, "address1": order.address1,
        "address2": order.address2, "city": order.city, "state": order.state_code, "zip": order.zip,
        "country": order.country_code,
        "billing": json.loads(order.billing_address_json) if order.billing_address_json else None,
    }


def export_customer(session: Session, actor: Actor, email: object) -> dict[str, Any]:
    """Everything kept about the customer, as JSON-ready data; the export is logged (and committed)."""
    wanted = normal_email(email)
    if not wanted:
        raise ValidationError(EMAIL_REQUIRED, {"email": EMAIL_REQUIRED})
    orders = customer_orders(session, wanted)
    subscriber = session.exec(select(NewsletterSubscriber).where(col(NewsletterSubscriber.email) == wanted)).first()
    if not orders and subscriber is None:
        raise NotFoundError(CUSTOMER_NOT_FOUND)
    order_ids = [o.id for o in orders if o.id is not None]
    items = session.exec(select(OrderItem).where(col(OrderItem.order_id).in_(order_ids))).all() if order_ids else []
    data = {
        "email": wanted,
        "exportedAt": utcnow().isoformat(),
        "orders": [
            {
                "number": o.number, "createdAt": o.created_at.isoformat(), "name": o.customer_name,
                "email": o.customer_email, "phone": o.customer_phone, "shippingAddress": _address(o),
                "totalCents": o.total_cents, "refundedCents": o.refunded_cents, "paymentStatus": o.payment_status,
                "status": o.status, "cardBrand": o.card_brand, "cardLast4": o.card_last4,
                "items": [
                    {"name": i.name, "size": i.size, "color": i.color, "quantity": i.quantity,
                     "unitPriceCents": i.unit_price_cents}
                    for i in items if i.order_id == o.id
                ],
            }
            for o in orders
        ],
        "newsletter": None if subscriber is None else {
            "subscribedAt": subscriber.created_at.isoformat(),
            "confirmedAt": subscriber.confirmed_at.isoformat() if subscriber.confirmed_at else None,
            "unsubscribedAt": subscriber.unsubscribed_at.isoformat() if subscriber.unsubscribed_at else None,
        },
        "emails": [
            {"subject": m.subject, "sentAt": m.sent_at.isoformat() if m.sent_at else None, "kind": m.kind}
            for m in _mail_of(session, wanted, order_ids)
        ],
    }
    activity.record(session, actor, activity.CUSTOMER_EXPORT, customer_ref(wanted))
    session.commit()
    return data


def eml_path(folder: Path, message_id: str) -> Path:
    """Where the file mailer wrote the message (services/mail/mailers.py names files so)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", message_id.strip("<>"))[:150]
    return folder / f"{name}.eml"


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret:
            text = re.sub(re.escape(secret), ERASED, text, flags=re.IGNORECASE)
    return text


def erase_customer(session: Session, actor: Actor, email: object, mail_folder: Path | None = None) -> int:
    """Replace the customer's personal fields everywhere (see the module's doc); how many orders kept
    their money. Logged in the same transaction; the .eml files go once it is committed."""
    wanted = normal_email(email)
    if not wanted:
        raise ValidationError(EMAIL_REQUIRED, {"email": EMAIL_REQUIRED})
    orders = customer_orders(session, wanted)
    subscriber = session.exec(select(NewsletterSubscriber).where(col(NewsletterSubscriber.email) == wanted)).first()
    if not orders and subscriber is None:
        raise NotFoundError(CUSTOMER_NOT_FOUND)
    personal: list[str] = [wanted]
    for order in orders:
        personal += [order.customer_name, order.customer_phone or "", order.first_name, order.last_name,
                     order.address1, order.address2 or "", order.zip]
    # Longest first, so a full name is replaced before the first name inside it.
    personal = sorted({p.strip() for p in personal if p and len(p.strip()) >= 3}, key=len, reverse=True)
    order_ids = [o.id for o in orders if o.id is not None]
    now = utcnow()
    for order in orders:
        order.customer_email = f"{order.number.lower()}@{ERASED_DOMAIN}"
        order.customer_name, order.customer_phone = ERASED_NAME, None
        order.first_name, order.last_name = ERASED, ERASED
        order.address1, order.address2, order.city, order.zip = ERASED, None, ERASED, ""
        order.billing_address_json = None
        order.updated_at = now
        session.add(order)
    if order_ids:
        for entry in session.exec(select(OrderHistory).where(col(OrderHistory.order_id).in_(order_ids))).all():
            entry.detail = _scrub(entry.detail, personal)
            session.add(entry)
    files: list[Path] = []
    for message in _mail_of(session, wanted, order_ids):
        if mail_folder is not None:
            files.append(eml_path(mail_folder, message.message_id))
        if message.sent_at is None:
            session.execute(delete(MailMessage).where(col(MailMessage.id) == message.id))
            continue
        message.recipient = ERASED if message.recipient.lower() == wanted else message.recipient
        message.reply_to = None if (message.reply_to or "").lower() == wanted else message.reply_to
        message.subject = _scrub(message.subject, personal)
        message.text_body, message.html_body, message.list_unsubscribe = ERASED, ERASED, None
        session.add(message)
    if subscriber is not None:
        session.delete(subscriber)
    activity.record(session, actor, activity.CUSTOMER_ERASE, customer_ref(wanted),
                    after={"orders kept for the books": len(orders)})
    session.commit()
    for path in files:
        path.unlink(missing_ok=True)
    return len(orders)
