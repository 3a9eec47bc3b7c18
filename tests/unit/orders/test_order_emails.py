"""The customer's emails about an order, on SQLite and PostgreSQL: each queued once with the change
that causes it, rendered from the templates (escaped HTML, dollars, absolute links), delivered
through a real SMTP server on loopback, and resent by staff once per click."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import MailMessage, Order
from storefront.services.admin import admin_orders
from storefront.services.mail.mailers import SmtpMailer
from storefront.services.mail.outbox import Mail, MailOutbox, queue_mail
from storefront.services.orders import order_emails, order_lookup
from storefront.services.orders.checkout import PlacedOrder, place_order
from storefront.services.orders.order_cancellation import OrderCancellations
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.orders.order_tracking import OrderTracker
from storefront.services.orders.provider_events import ProviderEvents
from storefront.services.payments.gateway import PaymentDeclined, TestPaymentGateway
from storefront.services.platform.errors import ConflictError, NotFoundError, ValidationError
from storefront.services.platform.signing import LinkSigner
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.wiring import session_factory
from tests.fakes.printify_server import sign_webhook, webhook_event
from tests.fakes.smtp_server import smtp_server
from tests.ordering import GOOD_CARD, FakeClock, order_payload, pick, seed_demo
from tests.unit.orders.test_order_tracking import provider_order, shipment

PUBLIC_URL = "https://shop.example"
EMAILS = OrderEmails(PUBLIC_URL, LinkSigner(b"test-signing-key"))
GOOD = card_from_form(GOOD_CARD)
WEBHOOK_SECRET = "b1946ac92492d2347c6235b4d2611184"


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


def _place(engine: Engine, key: str = "checkout-1", **overrides: object) -> PlacedOrder:
    with Session(engine, expire_on_commit=False) as session:
        return place_order(session, order_payload((pick(engine), 2), **overrides), key)


def _pay(engine: Engine, placed: PlacedOrder) -> Order:
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=EMAILS)
    return payments.pay(placed.order.number, placed.access_token, GOOD, f"pay-{placed.order.number}")


def _mails(engine: Engine, kind: str | None = None) -> list[MailMessage]:
    with Session(engine) as session:
        query = select(MailMessage).order_by(col(MailMessage.id))
        if kind:
            query = query.where(col(MailMessage.kind) == kind)
        return list(session.exec(query).all())


def _order(engine: Engine, number: str) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(col(Order.number) == number)).one()


def _link(html: str) -> str:
    found = re.search(r'href="([^"]*/order-status\?[^"]*)"', html)
    assert found, "no order link in the message"
    return found.group(1).replace("&amp;", "&")


# --------------------------------------------------------------------------- confirmation


def test_paying_twice_queues_one_confirmation(engine: Engine, provider: DemoPrintProvider) -> None:
    placed = _place(engine)
    with Session(engine) as session:
        assert order_emails.confirmation_queued(session, placed.order.number) is False
    _pay(engine, placed)
    _pay(engine, placed)  # a retry of a paid order changes nothing
    mails = _mails(engine)
    assert [(m.kind, m.recipient, m.subject) for m in mails] == [
        ("order-confirmed", "ada@example.com", f"Order {placed.order.number} confirmed"),
    ]
    assert mails[0].message_id == f"<order-{placed.order.number}-confirmed@storefront.mail>"
    assert mails[0].order_id == placed.order.id
    with Session(engine) as session:
        assert order_emails.confirmation_queued(session, placed.order.number) is True


def test_an_unpaid_or_declined_order_queues_nothing(engine: Engine, provider: DemoPrintProvider) -> None:
    placed = _place(engine)
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=EMAILS)
    with pytest.raises(PaymentDeclined):
        payments.pay(
            placed.order.number,
            placed.access_token,
            card_from_form({**GOOD_CARD, "cardNumber": "4000 0000 0000 0002"}),
            "p1",
        )
    assert _mails(engine) == []


def test_the_confirmation_delivered_over_smtp_shows_the_order_and_a_link_that_opens_it(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    placed = _place(engine)
    order = _pay(engine, placed)
    with smtp_server() as (url, inbox):
        outbox = MailOutbox(session_factory(engine), SmtpMailer(url), "Shop <shop@example.com>")
        assert outbox.run_due() == 1
    [message] = inbox.messages
    assert message["To"] == "ada@example.com"
    assert message["Subject"] == f"Order {order.number} confirmed"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    line_name = pick(engine).name
    for part in (text, html):
        assert order.number in part
        assert line_name in part
        assert "Size: M" in part
        assert "12 Analytical Row" in part and "Albany, NY 12207" in part
    unit = order.subtotal_cents // 2
    assert f"${unit / 100:,.2f}" in text and f"${order.subtotal_cents / 100:,.2f}" in text
    assert f"Total: ${order.total_cents / 100:,.2f}" in text
    assert "Shipping: $9.99" in text
    # Images and links are absolute, under PUBLIC_URL.
    assert f'src="{PUBLIC_URL}/images/product-placeholder.jpg"' in html
    link = _link(html)
    assert link in text
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{PUBLIC_URL}/order-status"
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    assert query["order"] == order.number
    with Session(engine) as session:
        view = order_lookup.order_view_by_link(session, query["order"], query["key"], EMAILS)
    assert view["orderNumber"] == order.number and view["items"][0]["name"] == line_name
    with Session(engine) as session:
        sent = session.exec(select(MailMessage)).one()
    assert sent.sent_at is not None and sent.attempts == 0


def _key(link: str) -> str:
    return parse_qs(urlsplit(link).query)["key"][0]


def test_a_forged_or_another_orders_key_opens_nothing(engine: Engine, provider: DemoPrintProvider) -> None:
    first, second = _place(engine, "one"), _place(engine, "two")
    first_key = _key(EMAILS.order_link(first.order))
    other_store = OrderEmails(PUBLIC_URL, LinkSigner(b"another-store"))
    with Session(engine) as session:
        assert (
            order_lookup.order_view_by_link(session, first.order.number, first_key, EMAILS)["orderNumber"]
            == first.order.number
        )
        for number, key, emails in [
            (second.order.number, first_key, EMAILS),  # another order's key
            (first.order.number, first_key[:-2] + "xx", EMAILS),  # tampered
            (first.order.number, "", EMAILS),
            (first.order.number, "²." + first_key.partition(".")[2], EMAILS),  # a Unicode digit
            (first.order.number, first_key, other_store),  # signed by another key
            ("SF-999999", EMAILS.signer.sign(order_emails.LINK_PURPOSE, "SF-999999"), EMAILS),  # no such order
        ]:
            with pytest.raises(NotFoundError):
                order_lookup.order_view_by_link(session, number, key, emails)


def test_a_link_opens_the_order_for_its_lifetime_only(engine: Engine, provider: DemoPrintProvider) -> None:
    clock = FakeClock()
    emails = OrderEmails(PUBLIC_URL, EMAILS.signer, link_lifetime=timedelta(days=365), clock=clock)
    placed = _place(engine)
    key = _key(emails.order_link(placed.order))
    with Session(engine) as session:
        opened = order_lookup.order_view_by_link(
            session, placed.order.number, key, emails, clock() + timedelta(days=364)
        )
        assert opened["orderNumber"] == placed.order.number
        with pytest.raises(NotFoundError):
            order_lookup.order_view_by_link(session, placed.order.number, key, emails, clock() + timedelta(days=366))


def test_a_link_sent_before_links_expired_opens_until_a_year_after_the_orders_last_email(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    placed = _place(engine)
    old_key = EMAILS.signer.sign(order_emails.LINK_PURPOSE, placed.order.number)  # as every link was signed before
    assert old_key.startswith("0.")
    last_email = placed.order.created_at + timedelta(days=40)
    with Session(engine) as session:
        queue_mail(session, Mail("order-shipped", "ann@example.com", "Shipped", "text", "<p>html</p>",
                                 f"order-{placed.order.number}-shipped", placed.order.id), now=last_email)
        session.commit()
        number = placed.order.number
        assert order_lookup.order_view_by_link(session, number, old_key, EMAILS, last_email + timedelta(days=364))
        with pytest.raises(NotFoundError):
            order_lookup.order_view_by_link(session, number, old_key, EMAILS, last_email + timedelta(days=366))


def test_revoked_links_open_nothing_and_later_emails_carry_new_ones(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    placed = _place(engine)
    number = placed.order.number
    sent = [_key(EMAILS.order_link(placed.order)), EMAILS.signer.sign(order_emails.LINK_PURPOSE, number)]
    with Session(engine) as session:
        for key in sent:
            assert order_lookup.order_view_by_link(session, number, key, EMAILS)["orderNumber"] == number
        admin_orders.revoke_links(session, number, "owner")
    with Session(engine) as session:
        for key in sent:
            with pytest.raises(NotFoundError):
                order_lookup.order_view_by_link(session, number, key, EMAILS)
        order = session.exec(select(Order).where(col(Order.number) == number)).one()
        assert order.link_generation == 1
        assert order_lookup.order_view_by_link(session, number, _key(EMAILS.order_link(order)), EMAILS)
        history = admin_orders.order_detail(session, number)["history"]
        assert [(line["actor"], line["label"]) for line in history] == [("owner", "Email links revoked")]


def test_a_customer_name_with_markup_is_escaped_in_the_html_part(engine: Engine, provider: DemoPrintProvider) -> None:
    placed = _place(engine, customerName="<script>alert(1)</script>")
    _pay(engine, placed)
    [mail] = _mails(engine)
    assert "<script>" not in mail.html_body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in mail.html_body
    assert "<script>alert(1)</script>" in mail.text_body  # plain text is not HTML


# --------------------------------------------------------------------------- shipped, refunded, cancelled


def _sent_order(engine: Engine, provider_order_id: str = "5a96f649b2439217d070f507") -> Order:
    placed = _place(engine)
    order = _pay(engine, placed)
    with Session(engine) as session:
        row = session.get(Order, order.id)
        assert row is not None
        row.printify_order_id = provider_order_id
        session.add(row)
        session.commit()
        session.refresh(row)
        return row


def test_a_shipment_reported_twice_queues_one_shipped_message_with_its_tracking(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _sent_order(engine)
    events = ProviderEvents(session_factory(engine), provider, DEMO_SHOP_ID, WEBHOOK_SECRET, refetch_orders=False,
                            emails=EMAILS)
    data = {
        "shop_id": DEMO_SHOP_ID,
        "shipped_at": "2030-01-01 09:00:00+00:00",
        "carrier": {"code": "usps", "tracking_number": "9400111899223197428490", "tracking_url": "https://t.example/9400"},
    }
    for event_id in ("e-1", "e-2"):
        event = webhook_event("order:shipment:created", order.printify_order_id or "", "order", data, event_id=event_id)
        body = json.dumps(event).encode()
        events.receive(body, sign_webhook(body, WEBHOOK_SECRET))
    [mail] = _mails(engine, order_emails.SHIPPED)
    assert mail.subject == f"Order {order.number} has shipped"
    for body in (mail.text_body, mail.html_body):
        assert "USPS" in body and "9400111899223197428490" in body and "https://t.example/9400" in body
    assert mail.message_id == f"<order-{order.number}-shipped@storefront.mail>"


def test_the_order_poll_queues_the_shipped_message_once(engine: Engine, provider: DemoPrintProvider) -> None:
    order = _sent_order(engine)

    class Shipped:
        def get_order(self, shop_id: int, order_id: str) -> dict:
            return provider_order("fulfilled", shipment(), fulfilled_at="2030-01-01 09:00:00+00:00")

    clock = FakeClock()
    tracker = OrderTracker(session_factory(engine), Shipped(), DEMO_SHOP_ID, clock=clock, emails=EMAILS)  # type: ignore[arg-type]
    assert tracker.poll_due() == 1
    clock.advance(24 * 3600)
    tracker.poll_due()
    [mail] = _mails(engine, order_emails.SHIPPED)
    assert order.number in mail.text_body and "9400111899223197428490" in mail.text_body


def _cancellations(engine: Engine, provider: DemoPrintProvider) -> OrderCancellations:
    gateway = TestPaymentGateway()
    return OrderCancellations(session_factory(engine), {gateway.name: gateway}, provider, lambda: DEMO_SHOP_ID,
                              emails=EMAILS)


def test_refunding_twice_queues_one_refund_message(engine: Engine, provider: DemoPrintProvider) -> None:
    order = _pay(engine, _place(engine))
    service = _cancellations(engine, provider)
    service.refund(order.number, "admin")
    service.refund(order.number, "admin")
    service.cancel(order.number, "admin")  # refunded already: nothing more to tell
    [mail] = _mails(engine, order_emails.REFUNDED)
    assert mail.subject == f"Order {order.number} was refunded"
    assert f"${order.total_cents / 100:,.2f}" in mail.text_body
    assert _mails(engine, order_emails.CANCELLED) == []


def test_cancelling_a_paid_order_queues_one_cancellation_saying_it_was_refunded(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _pay(engine, _place(engine))
    service = _cancellations(engine, provider)
    service.cancel(order.number, "admin")
    service.cancel(order.number, "admin")
    [mail] = _mails(engine, order_emails.CANCELLED)
    assert "We refunded" in mail.text_body and f"${order.total_cents / 100:,.2f}" in mail.text_body
    assert _mails(engine, order_emails.REFUNDED) == []


def test_cancelling_an_unpaid_order_queues_one_cancellation(engine: Engine, provider: DemoPrintProvider) -> None:
    placed = _place(engine)
    service = _cancellations(engine, provider)
    service.cancel(placed.order.number, "admin")
    service.cancel(placed.order.number, "admin")
    [mail] = _mails(engine)
    assert mail.kind == order_emails.CANCELLED
    assert "you were not charged" in mail.text_body
    assert _order(engine, placed.order.number).status == "cancelled"


# --------------------------------------------------------------------------- staff


def test_the_admin_detail_lists_the_emails_and_resend_queues_one_per_click(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _pay(engine, _place(engine))
    with Session(engine) as session:
        assert admin_orders.resend_confirmation(session, order.number, "click-1", EMAILS) is True
    with Session(engine) as session:
        assert admin_orders.resend_confirmation(session, order.number, "click-1", EMAILS) is False  # a double click
    with Session(engine) as session:
        assert admin_orders.resend_confirmation(session, order.number, "click-2", EMAILS) is True
    keys = [m.message_id for m in _mails(engine, order_emails.CONFIRMED)]
    assert keys == [
        f"<order-{order.number}-confirmed@storefront.mail>",
        f"<order-{order.number}-confirmed-resend-click-1@storefront.mail>",
        f"<order-{order.number}-confirmed-resend-click-2@storefront.mail>",
    ]
    outbox_sent = _mails(engine)[0]
    with Session(engine) as session:
        row = session.get(MailMessage, outbox_sent.id)
        assert row is not None
        row.attempts, row.last_error = 2, "SMTPServerDisconnected: gone"
        session.add(row)
        session.commit()
        emails = admin_orders.order_detail(session, order.number)["emails"]
    assert [(e["subject"], e["recipient"], e["state"]) for e in emails] == [
        (f"Order {order.number} confirmed", "ada@example.com", "Failed (2 attempts)"),
        (f"Order {order.number} confirmed", "ada@example.com", "Queued"),
        (f"Order {order.number} confirmed", "ada@example.com", "Queued"),
    ]
    assert emails[0]["lastError"] == "SMTPServerDisconnected: gone"


def test_resend_needs_a_click_id_and_a_paid_order(engine: Engine, provider: DemoPrintProvider) -> None:
    placed = _place(engine)
    with Session(engine) as session:
        with pytest.raises(ConflictError):
            admin_orders.resend_confirmation(session, placed.order.number, "click-1", EMAILS)
        for click in ("", None, "has space", "x" * 65 + "<"):
            with pytest.raises(ValidationError):
                admin_orders.resend_confirmation(session, placed.order.number, click, EMAILS)
    assert _mails(engine) == []
