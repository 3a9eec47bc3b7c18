"""Paying, refunding and cancelling orders through Stripe, over real HTTP against the fake Stripe
(tests/fakes/stripe_server.py), with the store's API served on loopback so Stripe's signed
webhooks reach it as they would in production. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import MailMessage, Order, OrderHistory, OutboxJob, WebhookDelivery
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.orders.order_cancellation import (
    ALREADY_PRINTING,
    PROVIDER_CANCELLED_NOTE,
    UNQUEUED_NOTE,
    UnpaidOrderExpiry,
)
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.wiring import session_factory
from tests.fakes.stripe_server import FakeStripe
from tests.ordering import ORDER_EMAILS, FakeClock, Pick, order_payload, pick, seed_demo
from tests.serving import free_port

ORDERS = "/api/printify/orders"
WEBHOOKS = "/api/stripe/webhooks"
ADMIN = {"username": "admin", "password": "admin123"}


# --------------------------------------------------------------------------- serving


class ServedApi:
    """The store's API on a loopback port, in a thread, for as long as the test runs."""

    def __init__(self, app: FastAPI) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> ServedApi:
        self._thread.start()
        started = threading.Event()

        def wait() -> None:
            while not self._server.started and self._thread.is_alive():
                started.wait(0.02)

        wait()
        assert self._server.started, "the API did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with FakeStripe() as stripe_fake:
        yield stripe_fake


@pytest.fixture
def provider(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DemoPrintProvider:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    return seed_demo(engine, tmp_path)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def gateway(fake: FakeStripe) -> StripeGateway:
    return StripeGateway(fake.secret_key, fake.publishable_key, fake.webhook_secret, api_base=fake.api_base, timeout=5)


@pytest.fixture
def store(engine: Engine, provider: DemoPrintProvider, gateway: StripeGateway, fake: FakeStripe) -> Iterator[ServedApi]:
    app = create_api(Settings(), engine=engine, gateway=gateway, provider=provider)
    with ServedApi(app) as served:
        fake.webhook_url = f"{served.url}{WEBHOOKS}"
        yield served


@pytest.fixture
def http(store: ServedApi) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=store.url, timeout=15, trust_env=False) as client:
        yield client


@pytest.fixture
def tee(engine: Engine, provider: DemoPrintProvider) -> Pick:
    return pick(engine)


def _place(
    http: httpx.Client, tee: Pick, key: str = "checkout-1", token: str | None = None, **overrides: Any
) -> dict[str, Any]:
    """Place an order (a retry carries the order's token, as the shopper's browser does)."""
    headers = {"Idempotency-Key": key, **({"X-Order-Token": token} if token else {})}
    response = http.post(ORDERS, json=order_payload((tee, 1), **overrides), headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def _order(engine: Engine, number: str) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order).where(col(Order.number) == number)).one()


def _pay_at_stripe(fake: FakeStripe, intent_id: str, payment_method: str = "pm_card_visa") -> None:
    """What Stripe.js does in the shopper's browser: confirm the intent with a card, at Stripe."""
    client = fake.sdk_client()
    try:
        client.v1.payment_intents.confirm(
            intent_id, params={"payment_method": payment_method, "return_url": "https://shop.example/order-status"}
        )
    except Exception as exc:  # a decline: the intent stays payable, as in the browser
        if type(exc).__name__ != "CardError":
            raise


def _outbox_jobs(engine: Engine, order_id: int) -> int:
    with Session(engine) as session:
        return session.exec(
            select(func.count()).select_from(OutboxJob).where(col(OutboxJob.order_id) == order_id)
        ).one()


def _wait(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Poll until `condition` holds (webhooks arrive in the background)."""
    done = threading.Event()
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        done.wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _admin(http: httpx.Client) -> dict[str, str]:
    token = http.post("/api/admin/login", json=ADMIN).json()["token"]
    return {"x-admin-token": token}


# --------------------------------------------------------------------------- placing and paying


def test_an_order_answers_a_payment_intent_for_the_servers_total(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    # The browser says each line costs a cent less than the catalogue (within the tolerance):
    # the intent is for the server's total all the same.
    cheaper = order_payload((tee, 2))
    for item in cheaper["items"]:
        item["price"] = round(item["price"] - 0.01, 2)
    cheaper["subtotal"] = round(sum(i["price"] * i["quantity"] for i in cheaper["items"]), 2)
    response = http.post(ORDERS, json=cheaper, headers={"Idempotency-Key": "tampered"})
    assert response.status_code == 201, response.text
    answer = response.json()
    order = _order(engine, answer["order"]["id"])
    payment = answer["payment"]
    assert payment["provider"] == "stripe" and payment["publishableKey"] == fake.publishable_key
    intent = fake.intent(order.payment_intent_id or "")
    assert payment["clientSecret"] == intent["client_secret"]
    assert (intent["amount"], intent["currency"]) == (order.total_cents, "usd")
    assert intent["amount"] == 2 * tee.price_cents + 999
    assert intent["metadata"] == {"order": order.number}
    assert (order.payment_status, order.payment_provider) == ("pending", "stripe")


def test_a_lost_answer_to_the_create_call_makes_one_intent(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    fake.drop_next_response("/v1/payment_intents", method="POST")
    first = _place(http, tee, key="lost-answer")
    # The shopper's browser retries the whole request too: still the same intent.
    again = _place(http, tee, key="lost-answer", token=first["accessToken"])
    assert len(fake.created_intents) == 1
    assert first["payment"]["clientSecret"] == again["payment"]["clientSecret"]
    keys = {r.idempotency_key for r in fake.requests_to("POST", "/v1/payment_intents")}
    assert len(keys) == 1 and next(iter(keys)).startswith(first["order"]["id"])


def test_stripe_down_keeps_the_order_and_a_retry_makes_the_intent(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    fake.fail_next(500, times=3, path_part="/v1/payment_intents")
    response = http.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": "outage"})
    assert response.status_code == 503 and "payment service" in response.json()["error"]
    with Session(engine) as session:
        assert session.exec(select(func.count()).select_from(Order)).one() == 1
    # The answer names the saved order and hands over its token: the retry carries it.
    assert response.json()["orderId"].startswith("SF-")
    retried = _place(http, tee, key="outage", token=response.json()["accessToken"])
    assert retried["order"]["id"] == response.json()["orderId"]
    assert retried["payment"]["clientSecret"] and len(fake.created_intents) == 1


def test_the_card_is_never_posted_to_the_store_with_stripe(http: httpx.Client, tee: Pick) -> None:
    placed = _place(http, tee)
    number, token = placed["order"]["id"], placed["accessToken"]
    response = http.post(
        f"{ORDERS}/{number}/process-payment",
        json={"paymentId": "pay_1", "cardData": {"cardNumber": "4242 4242 4242 4242"}},
        headers={"X-Order-Token": token},
    )
    assert response.status_code == 409 and "Stripe" in response.json()["error"]


def test_a_paid_intent_pays_the_order_once_by_webhook_and_by_the_browsers_report(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number, token = placed["order"]["id"], placed["accessToken"]
    confirm = f"{ORDERS}/{number}/confirm-payment"
    # The browser's word alone pays nothing.
    early = http.post(confirm, headers={"X-Order-Token": token})
    assert early.status_code == 200 and early.json()["success"] is False
    assert _order(engine, number).payment_status == "pending"

    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    reported = http.post(confirm, headers={"X-Order-Token": token})
    assert reported.json()["success"] is True and reported.json()["order"]["paymentStatus"] == "paid"
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    order = _order(engine, number)
    assert (order.payment_status, order.status, order.card_brand, order.card_last4) == (
        "paid",
        "processing",
        "visa",
        "4242",
    )
    assert _outbox_jobs(engine, order.id or 0) == 1


def test_a_duplicate_succeeded_event_sends_the_order_to_the_provider_once(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, provider: DemoPrintProvider
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    succeeded = fake.wait_for_event("payment_intent.succeeded")[0]
    fake.wait_for_idle()
    assert fake.deliver(succeeded["id"]) == 200  # Stripe delivers at least once
    assert fake.deliver(succeeded["id"]) == 200
    order = _order(engine, number)
    assert order.payment_status == "paid" and _outbox_jobs(engine, order.id or 0) == 1
    OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID).run_due()
    sent = provider.list_orders(DEMO_SHOP_ID, limit=50)["data"]
    assert [o["metadata"]["shop_order_id"] for o in sent] == [number]
    with Session(engine) as session:
        recorded = session.exec(
            select(WebhookDelivery).where(col(WebhookDelivery.id) == f"stripe:{succeeded['id']}")
        ).all()
    assert len(recorded) == 1


def test_a_payment_failed_event_after_succeeded_changes_nothing(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    intent_id = _order(engine, number).payment_intent_id or ""
    fake.auto_deliver = False
    _pay_at_stripe(fake, intent_id, "pm_card_visa_chargeDeclined")
    _pay_at_stripe(fake, intent_id)
    failed = fake.wait_for_event("payment_intent.payment_failed")[0]
    succeeded = fake.wait_for_event("payment_intent.succeeded")[0]
    assert fake.deliver(succeeded["id"]) == 200
    assert fake.deliver(failed["id"]) == 200  # late, out of order
    order = _order(engine, number)
    assert (order.payment_status, order.status) == ("paid", "processing")


def test_a_decline_marks_the_payment_failed_and_the_shopper_pays_the_same_intent(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    intent_id = _order(engine, number).payment_intent_id or ""
    _pay_at_stripe(fake, intent_id, "pm_card_visa_chargeDeclinedInsufficientFunds")
    fake.wait_for_event("payment_intent.payment_failed")
    fake.wait_for_idle()
    assert _order(engine, number).payment_status == "failed"
    again = _place(http, tee, token=placed["accessToken"])  # the dialog's retry: same key, same order, same intent
    assert again["payment"]["clientSecret"] == placed["payment"]["clientSecret"]
    _pay_at_stripe(fake, intent_id)
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    assert _order(engine, number).payment_status == "paid"


def test_an_amended_total_gets_a_new_intent_and_the_old_one_is_cancelled(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number, token = placed["order"]["id"], placed["accessToken"]
    first_intent = _order(engine, number).payment_intent_id or ""
    amended = http.post(ORDERS, json=order_payload((tee, 2)),
                        headers={"Idempotency-Key": "checkout-1", "X-Order-Token": token})
    assert amended.status_code == 201, amended.text
    order = _order(engine, number)
    assert order.payment_intent_id != first_intent
    assert fake.intent(first_intent)["status"] == "canceled"
    assert fake.intent(order.payment_intent_id or "")["amount"] == order.total_cents


def test_a_succeeded_intent_for_another_amount_does_not_pay_the_order(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    intent_id = _order(engine, number).payment_intent_id or ""
    fake.sdk_client().v1.payment_intents.update(intent_id, params={"amount": 100})  # not the store's doing
    _pay_at_stripe(fake, intent_id)
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    order = _order(engine, number)
    assert order.payment_status == "pending" and "$1.00" in (order.attention_reason or "")
    assert _outbox_jobs(engine, order.id or 0) == 0


def _foreign_payment(fake: FakeStripe, order: Order) -> str:
    """Another tool on the same Stripe account charges the order's total under its number; the intent id."""
    intent = fake.sdk_client().v1.payment_intents.create(
        params={"amount": order.total_cents, "currency": "usd", "metadata": {"order": order.number}}
    )
    _pay_at_stripe(fake, intent.id)
    return str(intent.id)


def test_a_foreign_intent_naming_an_order_leaves_it_unpaid_and_flagged(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number, token = placed["order"]["id"], placed["accessToken"]
    own = _order(engine, number).payment_intent_id or ""
    foreign = _foreign_payment(fake, _order(engine, number))
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    order = _order(engine, number)
    assert (order.payment_status, order.status, order.payment_intent_id, order.payment_id) == (
        "pending",
        "pending",
        own,
        None,
    )
    assert foreign in (order.attention_reason or "") and "not the payment the store created" in (
        order.attention_reason or ""
    )
    assert _outbox_jobs(engine, order.id or 0) == 0
    # The browser's report asks Stripe about the order's own intent only: still unpaid.
    report = http.post(f"{ORDERS}/{number}/confirm-payment", headers={"X-Order-Token": token})
    assert report.json()["success"] is False and _order(engine, number).payment_status == "pending"
    # The shopper's own payment still pays it; the flag stays for the foreign charge's refund.
    _pay_at_stripe(fake, own)
    fake.wait_for_event("payment_intent.succeeded", count=2)
    fake.wait_for_idle()
    order = _order(engine, number)
    assert (order.payment_status, order.payment_id) == ("paid", own) and foreign in (order.attention_reason or "")
    assert _outbox_jobs(engine, order.id or 0) == 1


def test_a_second_charge_on_a_paid_order_flags_it(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    own = _order(engine, number).payment_intent_id or ""
    _pay_at_stripe(fake, own)
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    assert _order(engine, number).payment_status == "paid"
    second = _foreign_payment(fake, _order(engine, number))
    fake.wait_for_event("payment_intent.succeeded", count=2)
    fake.wait_for_idle()
    order = _order(engine, number)
    assert (order.payment_status, order.status, order.payment_id, order.payment_intent_id) == (
        "paid",
        "processing",
        own,
        own,
    )
    assert f"{second} is a second charge" in (order.attention_reason or "") and own in (order.attention_reason or "")
    assert _outbox_jobs(engine, order.id or 0) == 1
    with Session(engine) as session:
        actions = session.exec(select(OrderHistory.action).where(col(OrderHistory.order_id) == order.id)).all()
    assert actions.count("payment_mismatch") == 1


# --------------------------------------------------------------------------- webhook signatures


def _event_body(fake: FakeStripe, http: httpx.Client, tee: Pick, engine: Engine) -> bytes:
    placed = _place(http, tee)
    fake.auto_deliver = False
    _pay_at_stripe(fake, _order(engine, placed["order"]["id"]).payment_intent_id or "")
    event = fake.wait_for_event("payment_intent.succeeded")[0]
    return json.dumps(event, indent=2).encode()


@pytest.mark.parametrize(
    "tamper", ["bad signature", "old timestamp", "re-serialised body", "no header", "other secret"]
)
def test_a_webhook_stripe_did_not_sign_is_refused_with_400(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, tamper: str
) -> None:
    body = _event_body(fake, http, tee, engine)
    headers = {"Content-Type": "application/json", "Stripe-Signature": fake.sign(body)}
    if tamper == "bad signature":
        headers["Stripe-Signature"] = fake.sign(body).replace("v1=", "v1=0")
    elif tamper == "old timestamp":
        headers["Stripe-Signature"] = fake.sign(body, int(fake.clock()) - 301)
    elif tamper == "re-serialised body":
        body = json.dumps(json.loads(body)).encode()  # same JSON, other bytes
    elif tamper == "no header":
        del headers["Stripe-Signature"]
    elif tamper == "other secret":
        headers["Stripe-Signature"] = fake.sign(body, secret="whsec_someone_else")
    response = http.post(WEBHOOKS, content=body, headers=headers)
    assert response.status_code == 400
    number = json.loads(body)["data"]["object"]["metadata"]["order"]
    assert _order(engine, number).payment_status == "pending"


def test_a_signed_webhook_is_taken(http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine) -> None:
    body = _event_body(fake, http, tee, engine)
    response = http.post(WEBHOOKS, content=body, headers={"Stripe-Signature": fake.sign(body)})
    assert response.status_code == 200 and response.json() == {"received": True, "result": "applied"}
    again = http.post(WEBHOOKS, content=body, headers={"Stripe-Signature": fake.sign(body)})
    assert again.json()["result"] == "duplicate"


# --------------------------------------------------------------------------- refunds and cancellations


def _paid_order(http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, key: str = "checkout-1") -> Order:
    placed = _place(http, tee, key=key)
    number = placed["order"]["id"]
    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    http.post(f"{ORDERS}/{number}/confirm-payment", headers={"X-Order-Token": placed["accessToken"]})
    return _order(engine, number)


def _history(engine: Engine, order: Order) -> list[tuple[str, str]]:
    with Session(engine) as session:
        rows = session.exec(
            select(OrderHistory).where(col(OrderHistory.order_id) == order.id).order_by(col(OrderHistory.id))
        ).all()
    return [(row.actor, row.action) for row in rows]


def test_refunding_twice_refunds_once_and_takes_the_order_out_of_the_outbox(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    order = _paid_order(http, fake, tee, engine)
    admin = _admin(http)
    answers = [http.post(f"/api/orders/{order.number}/refund", headers=admin) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json()["message"] == UNQUEUED_NOTE
    assert len(fake.created_refunds) == 1
    refund = fake.refunds[fake.created_refunds[0]]
    assert (refund["amount"], refund["payment_intent"]) == (order.total_cents, order.payment_intent_id)
    after = _order(engine, order.number)
    assert (after.payment_status, after.status) == ("refunded", "cancelled")
    assert answers[1].json()["order"]["paymentStatus"] == "refunded"
    history = _history(engine, order)
    assert ("admin", "refund_requested") in history and history.count(("admin", "refunded")) == 1
    with Session(engine) as session:
        job = session.exec(select(OutboxJob).where(col(OutboxJob.order_id) == order.id)).one()
    assert job.done_at is not None
    # Stripe's own word on the refund changes nothing more.
    fake.wait_for_event("charge.refunded")
    fake.wait_for_idle()
    assert _order(engine, order.number).payment_status == "refunded"


def test_refund_cancels_the_print_order_before_production(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _paid_order(http, fake, tee, engine)
    outbox = OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID)
    outbox.run_due(limit=1)  # sent: the provider holds it (on-hold), not yet printing
    sent = _order(engine, order.number)
    assert sent.printify_order_id
    answer = http.post(f"/api/orders/{order.number}/refund", headers=_admin(http))
    assert answer.status_code == 200 and answer.json()["message"] == PROVIDER_CANCELLED_NOTE
    assert provider.get_order(DEMO_SHOP_ID, sent.printify_order_id)["status"] == "canceled"
    after = _order(engine, order.number)
    assert (after.payment_status, after.status) == ("refunded", "cancelled")
    outbox.run_due()
    assert provider.get_order(DEMO_SHOP_ID, sent.printify_order_id)["status"] == "canceled"


def test_a_refund_during_the_production_hold_cancels_the_print_order(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _paid_order(http, fake, tee, engine)
    outbox = OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID, production_hold=timedelta(hours=1))
    outbox.run_due()  # sent; printing waits for the hour to pass
    sent = _order(engine, order.number)
    provider.advance_order(sent.printify_order_id or "")  # costed: on-hold at the provider
    outbox.run_due()
    assert provider.get_order(DEMO_SHOP_ID, sent.printify_order_id or "")["status"] == "on-hold"
    answer = http.post(f"/api/orders/{order.number}/refund", headers=_admin(http))
    assert answer.json()["message"] == PROVIDER_CANCELLED_NOTE
    assert provider.get_order(DEMO_SHOP_ID, sent.printify_order_id or "")["status"] == "canceled"


def test_refund_after_production_started_still_refunds_and_says_so(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _paid_order(http, fake, tee, engine)
    OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID).run_due(limit=1)
    printing = _order(engine, order.number)
    while provider.get_order(DEMO_SHOP_ID, printing.printify_order_id or "")["status"] != "in-production":
        provider.advance_order(printing.printify_order_id or "")
    assert provider.get_order(DEMO_SHOP_ID, printing.printify_order_id or "")["status"] == "in-production"
    answer = http.post(f"/api/orders/{order.number}/cancel", headers=_admin(http))
    assert answer.status_code == 200 and answer.json()["message"] == ALREADY_PRINTING
    assert len(fake.created_refunds) == 1
    after = _order(engine, order.number)
    assert after.payment_status == "refunded" and after.status == "processing"
    assert "already" in (after.attention_reason or "").lower() or after.attention_reason
    assert ("admin", "provider_printing") in _history(engine, order)


def test_refund_and_cancel_need_an_admin(http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine) -> None:
    order = _paid_order(http, fake, tee, engine)
    assert http.post(f"/api/orders/{order.number}/refund").status_code == 401
    assert http.post(f"/api/orders/{order.number}/cancel", headers={"x-admin-token": "forged"}).status_code == 401
    assert fake.created_refunds == [] and _order(engine, order.number).payment_status == "paid"


def test_an_unpaid_order_cannot_be_refunded_but_can_be_cancelled_with_its_intent(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    admin = _admin(http)
    refused = http.post(f"/api/orders/{number}/refund", headers=admin)
    assert refused.status_code == 409 and refused.json()["error"] == "Only a paid order can be refunded."
    cancelled = http.post(f"/api/orders/{number}/cancel", headers=admin)
    assert cancelled.status_code == 200 and cancelled.json()["order"]["status"] == "cancelled"
    intent_id = _order(engine, number).payment_intent_id or ""
    assert fake.intent(intent_id)["status"] == "canceled"
    # A cancelled order's page cannot be paid any more.
    confirm = http.post(f"{ORDERS}/{number}/confirm-payment", headers={"X-Order-Token": placed["accessToken"]})
    assert confirm.status_code == 409


# --------------------------------------------------------------------------- abandoned checkouts


def test_an_unpaid_order_expires_and_its_intent_is_cancelled(
    engine: Engine, provider: DemoPrintProvider, gateway: StripeGateway, fake: FakeStripe, clock: FakeClock
) -> None:
    app = create_api(Settings(), engine=engine, gateway=gateway, provider=provider, clock=clock)
    with ServedApi(app) as served, httpx.Client(base_url=served.url, trust_env=False, timeout=15) as http:
        tee = pick(engine)
        abandoned = _place(http, tee, key="abandoned")["order"]["id"]
        paid = _paid_order(http, fake, tee, engine, key="paid")
    factory = session_factory(engine)
    with Session(engine) as session:  # both placed a day and a minute ago
        for order in session.exec(select(Order)).all():
            order.created_at = clock.now - timedelta(hours=24, minutes=1)
            session.add(order)
        session.commit()
    expiry = UnpaidOrderExpiry(factory, timedelta(hours=24), gateway=gateway,
                               intents=IntentPayments(factory, gateway, clock=clock, emails=ORDER_EMAILS), clock=clock)
    assert expiry.run() == 1
    gone = _order(engine, abandoned)
    assert (gone.status, gone.payment_status) == ("cancelled", "pending")
    assert fake.intent(gone.payment_intent_id or "")["status"] == "canceled"
    assert fake.intent(gone.payment_intent_id or "")["cancellation_reason"] == "abandoned"
    assert ("system", "expired") in _history(engine, gone)
    assert _order(engine, paid.number).status == "processing"
    assert expiry.run() == 0


def test_an_order_paid_at_the_last_moment_is_not_expired(
    engine: Engine, provider: DemoPrintProvider, gateway: StripeGateway, fake: FakeStripe, clock: FakeClock
) -> None:
    app = create_api(Settings(), engine=engine, gateway=gateway, provider=provider, clock=clock)
    with ServedApi(app) as served, httpx.Client(base_url=served.url, trust_env=False, timeout=15) as http:
        number = _place(http, pick(engine), key="late")["order"]["id"]
    fake.auto_deliver = False  # Stripe's event is late: only the expiry's own look at the intent tells
    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    factory = session_factory(engine)
    expiry = UnpaidOrderExpiry(factory, timedelta(hours=24), gateway=gateway,
                               intents=IntentPayments(factory, gateway, clock=clock, emails=ORDER_EMAILS),
                               clock=lambda: clock.now + timedelta(days=2))
    assert expiry.run() == 0
    order = _order(engine, number)
    assert (order.status, order.payment_status) == ("processing", "paid")


def test_a_webhook_body_larger_than_any_event_is_refused(http: httpx.Client, fake: FakeStripe) -> None:
    body = b'{"id": "evt_big", "padding": "' + b"x" * (600 * 1024) + b'"}'
    response = http.post(WEBHOOKS, content=body, headers={"Stripe-Signature": fake.sign(body)})
    assert response.status_code == 413


# --------------------------------------------------------------------------- order emails


def _confirmations(engine: Engine, order: Order) -> list[MailMessage]:
    with Session(engine) as session:
        query = select(MailMessage).where(
            col(MailMessage.order_id) == order.id, col(MailMessage.kind) == "order-confirmed"
        )
        return list(session.exec(query.order_by(col(MailMessage.id))).all())


def test_a_stripe_payment_reported_by_the_browser_and_delivered_twice_queues_one_confirmation(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number, token = placed["order"]["id"], placed["accessToken"]
    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    http.post(f"{ORDERS}/{number}/confirm-payment", headers={"X-Order-Token": token})
    succeeded = fake.wait_for_event("payment_intent.succeeded")[0]
    fake.wait_for_idle()
    assert fake.deliver(succeeded["id"]) == 200
    assert fake.deliver(succeeded["id"]) == 200
    order = _order(engine, number)
    [mail] = _confirmations(engine, order)
    assert (mail.recipient, mail.subject) == ("ada@example.com", f"Order {number} confirmed")
    assert f"${order.total_cents / 100:,.2f}" in mail.text_body


def test_a_stripe_webhook_alone_queues_the_confirmation(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    placed = _place(http, tee)
    number = placed["order"]["id"]
    _pay_at_stripe(fake, _order(engine, number).payment_intent_id or "")
    fake.wait_for_event("payment_intent.succeeded")
    fake.wait_for_idle()
    order = _order(engine, number)
    assert order.payment_status == "paid"
    assert len(_confirmations(engine, order)) == 1


def test_resend_confirmation_over_the_api_queues_one_per_idempotency_key(
    http: httpx.Client, fake: FakeStripe, tee: Pick, engine: Engine
) -> None:
    order = _paid_order(http, fake, tee, engine)
    route = f"/api/orders/{order.number}/resend-confirmation"
    assert http.post(route, headers={"Idempotency-Key": "click-1"}).status_code == 401
    admin = _admin(http)
    first = http.post(route, headers={**admin, "Idempotency-Key": "click-1"})
    again = http.post(route, headers={**admin, "Idempotency-Key": "click-1"})
    other = http.post(route, headers={**admin, "Idempotency-Key": "click-2"})
    assert [a.status_code for a in (first, again, other)] == [200, 200, 200]
    assert [a.json()["queued"] for a in (first, again, other)] == [True, False, True]
    assert len(_confirmations(engine, order)) == 3
    emails = other.json()["order"]["emails"]
    assert [e["subject"] for e in emails] == [f"Order {order.number} confirmed"] * 3
    assert {e["state"] for e in emails} == {"Queued"}
    missing = http.post(route, headers=admin)
    assert missing.status_code == 422 and "error" in missing.json()
    unpaid = _place(http, tee, key="unpaid")["order"]["id"]
    refused = http.post(f"/api/orders/{unpaid}/resend-confirmation", headers={**admin, "Idempotency-Key": "c"})
    assert refused.status_code == 409
