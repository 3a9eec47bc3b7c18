"""After a Stripe sale, against the fake Stripe over real HTTP: a payment method that left the page
comes back and the order is paid at once; partial refunds through Stripe's partial refunds; a refund
after production tells the customer the garment is still delivered. SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import MailMessage, Order, OrderRefund
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.orders.order_cancellation import ALREADY_PRINTING
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.platform.errors import NotFoundError
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.wiring import session_factory
from tests.api import test_stripe_payments_api as stripe_api
from tests.fakes.stripe_server import FakeStripe
from tests.ordering import ORDER_EMAILS

# The fixtures of the Stripe payment tests (the fake, the store served over HTTP, a tee to buy).
fake, provider, gateway, store, http, tee = (
    stripe_api.fake,
    stripe_api.provider,
    stripe_api.gateway,
    stripe_api.store,
    stripe_api.http,
    stripe_api.tee,
)


def _refund_mails(engine: Engine, order: Order) -> list[str]:
    with Session(engine) as session:
        query = select(MailMessage.text_body).where(
            col(MailMessage.order_id) == order.id, col(MailMessage.kind) == "order-refunded"
        )
        return list(session.exec(query.order_by(col(MailMessage.id))).all())


def test_a_method_that_left_the_page_comes_back_paid_only_with_its_client_secret(
    http, fake: FakeStripe, tee, engine: Engine, gateway: StripeGateway
) -> None:
    placed = stripe_api._place(http, tee)
    number = placed["order"]["id"]
    intent_id = stripe_api._order(engine, number).payment_intent_id or ""
    stripe_api._pay_at_stripe(fake, intent_id)
    intents = IntentPayments(session_factory(engine), gateway, emails=ORDER_EMAILS)
    with pytest.raises(NotFoundError):
        intents.returned(intent_id, "pi_forged_secret_wrong")
    with pytest.raises(NotFoundError):
        intents.returned("pi_unknown", placed["payment"]["clientSecret"])
    assert stripe_api._order(engine, number).payment_status == "pending"
    assert intents.returned(intent_id, placed["payment"]["clientSecret"]) == (number, True)
    assert stripe_api._order(engine, number).payment_status == "paid"


def test_part_refunds_through_stripe_add_up_to_the_total(http, fake: FakeStripe, tee, engine: Engine) -> None:
    order = stripe_api._paid_order(http, fake, tee, engine)
    admin = stripe_api._admin(http)
    part = http.post(f"/api/orders/{order.number}/refund", json={"amount": 10}, headers=admin)
    assert part.status_code == 200, part.text
    assert [fake.refunds[r]["amount"] for r in fake.created_refunds] == [1000]
    fake.wait_for_event("charge.refunded")
    fake.wait_for_idle()
    # Stripe's word on a part refund (the charge not refunded in full) leaves the order paid.
    after = stripe_api._order(engine, order.number)
    assert (after.payment_status, after.refunded_cents, after.status) == ("paid", 1000, "processing")
    too_much = http.post(f"/api/orders/{order.number}/refund", json={"amount": order.total_cents}, headers=admin)
    assert too_much.status_code == 409 and "can still be refunded" in too_much.json()["error"]
    rest = http.post(f"/api/orders/{order.number}/refund", headers=admin)
    assert rest.status_code == 200, rest.text
    assert [fake.refunds[r]["amount"] for r in fake.created_refunds] == [1000, order.total_cents - 1000]
    done = stripe_api._order(engine, order.number)
    assert (done.payment_status, done.refunded_cents) == ("refunded", order.total_cents)
    assert len(_refund_mails(engine, order)) == 2


def test_a_refund_after_production_tells_the_customer_the_garment_still_comes(
    http, fake: FakeStripe, tee, engine: Engine, provider
) -> None:
    order = stripe_api._paid_order(http, fake, tee, engine)
    OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID).run_due(limit=1)
    printing = stripe_api._order(engine, order.number)
    while provider.get_order(DEMO_SHOP_ID, printing.printify_order_id or "")["status"] != "in-production":
        provider.advance_order(printing.printify_order_id or "")
    answer = http.post(f"/api/orders/{order.number}/refund", headers=stripe_api._admin(http))
    assert answer.status_code == 200 and answer.json()["message"] == ALREADY_PRINTING
    [mail] = _refund_mails(engine, order)
    assert "The garment was already printed and will still be delivered to you." in mail
    status = http.get(f"/api/orders/{order.number}/status", headers=stripe_api._admin(http)).json()
    assert (status["customerStatus"], status["needsAttention"]) == ("refunded", False)


def _refund_rows(engine: Engine, order: Order) -> list[tuple[int, str]]:
    with Session(engine) as session:
        query = select(OrderRefund.amount_cents, OrderRefund.status).where(col(OrderRefund.order_id) == order.id)
        return [(amount, status) for amount, status in session.exec(query.order_by(col(OrderRefund.id))).all()]


def test_a_part_refund_stripe_later_fails_is_taken_off_what_was_refunded(
    http, fake: FakeStripe, tee, engine: Engine
) -> None:
    """Stripe can turn a refund it said succeeded into a failed one (a closed card): the money is the
    customer's no more, so the order counts it refunded no more, and staff can refund it again."""
    order = stripe_api._paid_order(http, fake, tee, engine)
    admin = stripe_api._admin(http)
    for dollars in (10, 5):
        answer = http.post(f"/api/orders/{order.number}/refund", json={"amount": dollars}, headers=admin)
        assert answer.status_code == 200, answer.text
    first, second = fake.created_refunds
    fake.wait_for_idle()
    # The earlier of the two fails: it is not the order's latest refund.
    fake.fail_refund(first)
    fake.wait_for_event("refund.failed")
    fake.wait_for_idle()
    after = stripe_api._order(engine, order.number)
    assert (after.payment_status, after.refunded_cents) == ("paid", 500)
    assert _refund_rows(engine, order) == [(1000, "failed"), (500, "succeeded")]
    status = http.get(f"/api/orders/{order.number}/status", headers=admin).json()
    assert status["amountRefunded"] == 5.0
    # The failure is applied once however often Stripe tells it (three events name it).
    fake.fail_refund(first)
    fake.wait_for_idle()
    assert stripe_api._order(engine, order.number).refunded_cents == 500
    rest = http.post(f"/api/orders/{order.number}/refund", headers=admin)
    assert rest.status_code == 200, rest.text
    assert fake.refunds[fake.created_refunds[-1]]["amount"] == order.total_cents - 500
    assert second in fake.created_refunds


def test_a_whole_refund_stripe_later_fails_leaves_the_order_paid_with_nothing_refunded(
    http, fake: FakeStripe, tee, engine: Engine
) -> None:
    order = stripe_api._paid_order(http, fake, tee, engine)
    admin = stripe_api._admin(http)
    assert http.post(f"/api/orders/{order.number}/refund", headers=admin).status_code == 200
    fake.wait_for_event("charge.refunded")
    fake.wait_for_idle()
    assert stripe_api._order(engine, order.number).payment_status == "refunded"
    fake.fail_refund(fake.created_refunds[-1])
    fake.wait_for_event("refund.failed")
    fake.wait_for_idle()
    after = stripe_api._order(engine, order.number)
    assert (after.payment_status, after.refunded_cents) == ("paid", 0)
    assert _refund_rows(engine, order) == [(order.total_cents, "failed")]
