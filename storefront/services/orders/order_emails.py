"""The emails a customer gets about an order: confirmed, shipped, refunded, cancelled.

Each is rendered and queued in the transaction that changes the order (the caller commits), with
a key naming the order and the event, so it is queued once however often the change is reported.
Links are absolute (PUBLIC_URL) and open the order on /order-status with a signed key, because
the order's access token is kept only as a hash and cannot be put in a link. A link opens the order
for ORDER_LINK_DAYS after its email was made, and until staff revoke the order's links: the key is
signed over the order's number and its `link_generation`, which revoking moves on. Links sent
before links expired (signed over the number alone, with no expiry) open until ORDER_LINK_DAYS
after the last email about the order, unless revoked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func
from sqlmodel import Session, col, select

from storefront.models import MailMessage, Order, OrderItem, utcnow
from storefront.services.mail.outbox import Mail, message_id, queue_mail
from storefront.services.mail.templates import Contact, render
from storefront.services.orders.checkout import order_items
from storefront.services.orders.customer_status import customer_status
from storefront.services.orders.statuses import PaymentStatus
from storefront.services.platform.money import format_usd
from storefront.services.platform.signing import LinkSigner, signed_expiry

CONFIRMED = "order-confirmed"
SHIPPED = "order-shipped"
REFUNDED = "order-refunded"
CANCELLED = "order-cancelled"
#: The signing purpose of order links (a key for one order opens nothing else).
LINK_PURPOSE = "order"
#: The query parameters of an order link on /order-status: the number and its signed key.
LINK_ORDER_PARAM = "order"
LINK_KEY_PARAM = "key"
ORDER_STATUS_PATH = "/order-status"
#: How long an order's email link opens it (ORDER_LINK_DAYS).
LINK_LIFETIME = timedelta(days=365)
MAX_CLICK_ID_CHARS = 64

SUBJECTS = {
    CONFIRMED: "Order {number} confirmed",
    SHIPPED: "Order {number} has shipped",
    REFUNDED: "Order {number} was refunded",
    CANCELLED: "Order {number} was cancelled",
}
#: A refund of less than the order's total says so from the inbox on.
PARTIAL_REFUND_SUBJECT = "Part of order {number} was refunded"


def mail_key(number: str, kind: str) -> str:
    """'order-SF-000001-confirmed': what the message is about, once per order and event."""
    return f"order-{number}-{kind.removeprefix('order-')}"


def resend_key(number: str, click_id: str) -> str:
    """The key of one 'Resend confirmation' click (a double click carries one click id)."""
    return f"{mail_key(number, CONFIRMED)}-resend-{click_id}"


def clean_click_id(value: object) -> str:
    """A click id as given, limited to letters, digits, '-' and '_' ('' when nothing usable)."""
    text = value.strip() if isinstance(value, str) else ""
    return text[:MAX_CLICK_ID_CHARS] if text and all(c.isalnum() or c in "-_" for c in text) else ""


def _options(item: OrderItem) -> str:
    parts = [f"Size: {item.size}"] if item.size else []
    if item.color:
        parts.append(f"Color: {item.color}")
    return " · ".join(parts)


def link_value(order: Order) -> str:
    """What an order's links are signed over: its number, and the generation once staff revoked
    links (generation 0 is the number alone, as every link sent before revoking existed)."""
    return f"{order.number}#{order.link_generation}" if order.link_generation else order.number


def last_email_at(session: Session, order: Order) -> datetime:
    """When the last email about the order was made (its creation when there was none)."""
    latest = session.exec(select(func.max(MailMessage.created_at)).where(col(MailMessage.order_id) == order.id)).one()
    return max(latest, order.created_at) if latest is not None else order.created_at


def shipping_address(order: Order) -> list[str]:
    """The shipping address as the lines of a label."""
    region = " ".join(part for part in (order.state_code, order.zip) if part)
    city = ", ".join(part for part in (order.city, region) if part)
    lines = [order.customer_name, order.address1, order.address2 or "", city, order.country_code]
    return [line for line in lines if line]


def without_webp(url: str) -> str:
    """An image address mail programs can show as it is ('' for WebP, which Outlook does not show)."""
    return "" if url.split("?", 1)[0].lower().endswith(".webp") else url


@dataclass(frozen=True)
class OrderEmails:
    """Renders and queues one store's order emails; `public_url` is the store's absolute address.
    `contact` fills every footer; `picture` turns a line's image address into a JPEG or PNG one
    ('' for none): the wiring passes media's email pictures."""

    public_url: str
    signer: LinkSigner
    link_lifetime: timedelta = LINK_LIFETIME
    clock: Callable[[], datetime] = utcnow
    contact: Contact = Contact()
    picture: Callable[[str], str] = without_webp

    # ------------------------------------------------------------------ links

    def absolute(self, path: str) -> str:
        """An address from the store's own path ('' stays ''; http(s) addresses stay as they are)."""
        if not path or path.lower().startswith(("https://", "http://")):
            return path
        return f"{self.public_url.rstrip('/')}/{path.lstrip('/')}"

    def order_path(self, order: Order) -> str:
        """The store's own path of the link that opens the order on /order-status (the thank-you
        page), for `link_lifetime` from now and until staff revoke the order's links."""
        key = self.signer.sign(LINK_PURPOSE, link_value(order), expires_at=self.clock() + self.link_lifetime)
        return f"{ORDER_STATUS_PATH}?{urlencode({LINK_ORDER_PARAM: order.number, LINK_KEY_PARAM: key})}"

    def order_link(self, order: Order) -> str:
        """The absolute link of `order_path`, as the emails carry it."""
        return self.absolute(self.order_path(order))

    def link_opens(self, session: Session, order: Order, key: str, now: datetime) -> bool:
        """Whether `key` is a link of this order that is neither revoked nor expired."""
        if not key or not self.signer.verify(LINK_PURPOSE, link_value(order), key, now):
            return False
        if signed_expiry(key) is not None:
            return True  # verify held it to its own expiry
        # Signed before links expired (no expiry of its own): it opens as long as a link in the
        # order's last email would.
        return now <= last_email_at(session, order) + self.link_lifetime

    # ------------------------------------------------------------------ rendering

    def _context(self, order: Order, kind: str) -> dict[str, Any]:
        return {
            "subject": SUBJECTS[kind].format(number=order.number),
            "number": order.number,
            "customer_name": order.customer_name or order.first_name,
            "order_url": self.order_link(order),
            "home_url": self.absolute("/"),
            "total": format_usd(order.total_cents),
            "contact": self.contact,
        }

    def mail(
        self,
        kind: str,
        order: Order,
        items: Sequence[OrderItem] = (),
        key: str | None = None,
        amount_cents: int | None = None,
    ) -> Mail:
        """The message of `kind` about `order` as it stands now (a refund's of `amount_cents`)."""
        context = self._context(order, kind)
        told = customer_status(order)
        context.update(status_label=told.label, status_text=told.sentence)
        if kind == CONFIRMED:
            context.update(
                lines=[
                    {
                        "name": item.name,
                        "options": _options(item),
                        "quantity": item.quantity,
                        "price": format_usd(item.unit_price_cents),
                        "total": format_usd(item.unit_price_cents * item.quantity),
                        "image_url": self.absolute(self.picture(item.image_url)),
                    }
                    for item in items
                ],
                subtotal=format_usd(order.subtotal_cents),
                discount=format_usd(-order.discount_cents) if order.discount_cents else "",
                discount_code=order.discount_code or "",
                shipping=format_usd(order.shipping_cents),
                tax=format_usd(order.tax_cents) if order.tax_cents else "",
                address=shipping_address(order),
            )
        elif kind == SHIPPED:
            link = (order.tracking_url or "").strip()
            context.update(
                carrier=(order.tracking_carrier or "").upper(),
                tracking_number=order.tracking_number or "",
                tracking_url=link if link.lower().startswith(("https://", "http://")) else "",
            )
        elif kind == REFUNDED:
            amount = amount_cents or order.refunded_cents or order.total_cents
            partial = amount < order.total_cents
            context.update(amount=format_usd(amount), partial=partial)
            if partial:
                context["subject"] = PARTIAL_REFUND_SUBJECT.format(number=order.number)
        elif kind == CANCELLED:
            context["refunded"] = order.payment_status in (PaymentStatus.REFUNDING, PaymentStatus.REFUNDED)
        rendered = render(kind.replace("-", "_"), **context)
        return Mail(
            kind=kind,
            recipient=order.customer_email.strip(),
            subject=context["subject"],
            text=rendered.text,
            html=rendered.html,
            key=key or mail_key(order.number, kind),
            order_id=order.id,
        )

    # ------------------------------------------------------------------ queuing

    def _queue(
        self,
        session: Session,
        order: Order,
        kind: str,
        key: str | None = None,
        now: datetime | None = None,
        amount_cents: int | None = None,
    ) -> bool:
        if not order.customer_email.strip() or order.id is None:
            return False
        key = key or mail_key(order.number, kind)
        if queued(session, key):
            return False  # rendering is skipped too: the message exists already
        items = order_items(session, order.id) if kind == CONFIRMED else ()
        return queue_mail(session, self.mail(kind, order, items, key, amount_cents), now)

    def order_paid(self, session: Session, order: Order, now: datetime | None = None) -> bool:
        """Queue the confirmation of a paid order (once per order); False when none was queued."""
        return self._queue(session, order, CONFIRMED, now=now)

    def order_shipped(self, session: Session, order: Order, now: datetime | None = None) -> bool:
        """Queue the shipping notice once the order has shipped (once per order)."""
        if order.shipped_at is None:
            return False
        return self._queue(session, order, SHIPPED, now=now)

    def order_refunded(
        self,
        session: Session,
        order: Order,
        now: datetime | None = None,
        *,
        amount_cents: int | None = None,
        refund_number: int = 1,
    ) -> bool:
        """Queue the notice of the order's `refund_number`-th refund, naming its amount (once each)."""
        key = mail_key(order.number, REFUNDED) + (f"-{refund_number}" if refund_number > 1 else "")
        return self._queue(session, order, REFUNDED, key=key, now=now, amount_cents=amount_cents)

    def order_cancelled(self, session: Session, order: Order, now: datetime | None = None) -> bool:
        """Queue the cancellation notice (once per order)."""
        return self._queue(session, order, CANCELLED, now=now)

    def resend_confirmation(self, session: Session, order: Order, click_id: str, now: datetime | None = None) -> bool:
        """Queue the confirmation again for one staff click; the same click id queues it once."""
        return self._queue(session, order, CONFIRMED, key=resend_key(order.number, click_id), now=now)


def queued(session: Session, key: str) -> bool:
    """Whether the message about `key` was queued (sent or not)."""
    found = session.exec(select(MailMessage.id).where(col(MailMessage.message_id) == message_id(key))).first()
    return found is not None


def confirmation_queued(session: Session, number: str) -> bool:
    """Whether the order's confirmation email was queued (the checkout's toast says so only then)."""
    return queued(session, mail_key(number, CONFIRMED))


def order_mails(session: Session, order_id: int) -> list[MailMessage]:
    """Every email queued about the order, oldest first."""
    query = select(MailMessage).where(col(MailMessage.order_id) == order_id).order_by(col(MailMessage.id))
    return list(session.exec(query).all())
