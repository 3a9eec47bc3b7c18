"""The fake Stripe (tests/fakes/stripe_server.py) driven over HTTP by the official stripe SDK and a
Node-run Stripe.js stand-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Self

import httpx
import pytest
import stripe
from stripe._http_client import HTTPClient

from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer
from tests.fakes.stripe_server import (
    AUTHENTICATE_PATH,
    CARDS,
    CONFIRM_PATH,
    FakeStripe,
    compute_signature,
    decode_form,
    signature_header,
)
from tests.node_runtime import NODE

KAT_SECRET = "whsec_test_secret"
KAT_TIMESTAMP = 1700000000
KAT_BODY = b'{"id":"evt_test_1","object":"event","type":"payment_intent.succeeded"}'
KAT_HEADER = "t=1700000000,v1=871acfe933554b446cc41d791076dd56a10c0553cc61aafbeb881d0082b45043"
RETURN_URL = "https://shop.test/checkout/done"
PROJECT_ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------- fixtures


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with FakeStripe() as server:
        yield server


@pytest.fixture
def client(fake: FakeStripe) -> stripe.StripeClient:
    return stripe.StripeClient(fake.secret_key, base_addresses={"api": fake.api_base}, max_network_retries=2)


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's retry backoff (0.5 s and up) shortened to 10 ms: same retries, no waiting."""
    monkeypatch.setattr(HTTPClient, "INITIAL_DELAY", 0.01)
    monkeypatch.setattr(HTTPClient, "MAX_DELAY", 0.01)


@dataclass
class Received:
    body: bytes
    headers: dict[str, str]


@dataclass
class _ReceiverState:
    status: int = 200
    gate: threading.Event | None = None
    received: list[Received] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)


class _ReceiverHandler(BaseHTTPRequestHandler):
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        state: _ReceiverState = self.server.fake.state
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if state.gate is not None:
            state.gate.wait(10)
        with state.changed:
            state.received.append(Received(body, dict(self.headers.items())))
            state.changed.notify_all()
        self.send_response(state.status)
        self.send_header("Content-Length", "0")
        self.end_headers()


class WebhookReceiver(LoopbackServer):
    """A tiny webhook endpoint on loopback that keeps what it receives and answers `state.status`."""

    def __init__(self) -> None:
        self.state = _ReceiverState()

    def start(self) -> Self:
        self.serve(_ReceiverHandler, 0, "webhook-receiver")
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/stripe/webhooks"

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Received]:
        with self.state.changed:
            assert self.state.changed.wait_for(lambda: len(self.state.received) >= count, timeout), (
                f"{len(self.state.received)} of {count} webhooks received")
            return list(self.state.received)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as endpoint:
        yield endpoint


def _create(client: stripe.StripeClient, amount: int = 2500, order: str = "SF-000001", **options: Any) -> Any:
    params = {"amount": amount, "currency": "usd", "automatic_payment_methods": {"enabled": True},
              "metadata": {"order": order}, "description": f"Order {order}"}
    return client.v1.payment_intents.create(params=params, options=options or None)


def _pay(client: stripe.StripeClient, intent_id: str, payment_method: str = "pm_card_visa") -> Any:
    return client.v1.payment_intents.confirm(intent_id, params={"payment_method": payment_method,
                                                                "return_url": RETURN_URL})


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# ---------------------------------------------------------------------------------------- transport


def test_form_decoding_nests_brackets_and_builds_lists() -> None:
    params = decode_form("amount=1000&automatic_payment_methods[enabled]=true&metadata[order]=SF-000001"
                         "&expand[0]=latest_charge&expand[1]=customer&payment_method_types[]=card&metadata[note]=")
    assert params == {"amount": "1000", "automatic_payment_methods": {"enabled": "true"},
                      "metadata": {"order": "SF-000001", "note": ""}, "expand": ["latest_charge", "customer"],
                      "payment_method_types": ["card"]}


def test_raw_form_post_and_query_get_work_like_the_sdk_sends_them(fake: FakeStripe) -> None:
    body = "amount=1000&currency=usd&automatic_payment_methods[enabled]=true&metadata[order]=SF-000001"
    created = httpx.post(f"{fake.api_base}/v1/payment_intents", content=body, headers={
        **_auth(fake.secret_key), "Content-Type": "application/x-www-form-urlencoded"})
    assert created.status_code == 200, created.text
    intent = created.json()
    assert intent["metadata"] == {"order": "SF-000001"}
    assert intent["automatic_payment_methods"] == {"allow_redirects": "always", "enabled": True}
    assert intent["client_secret"].startswith(f"{intent['id']}_secret_")
    assert created.headers["Request-Id"].startswith("req_")
    fetched = httpx.get(f"{fake.api_base}/v1/payment_intents/{intent['id']}?expand[0]=latest_charge",
                        headers=_auth(fake.secret_key))
    assert fetched.json()["latest_charge"] is None and fetched.headers["Request-Id"] != created.headers["Request-Id"]
    as_json = httpx.post(f"{fake.api_base}/v1/payment_intents", json={"amount": 1000, "currency": "usd"},
                         headers=_auth(fake.secret_key))
    assert as_json.status_code == 400 and as_json.json()["error"]["type"] == "invalid_request_error"


def test_api_keys_are_required_and_checked(fake: FakeStripe) -> None:
    missing = httpx.get(f"{fake.api_base}/v1/payment_intents")
    assert missing.status_code == 401
    assert missing.json()["error"]["type"] == "invalid_request_error" and missing.headers["Request-Id"]
    basic = httpx.get(f"{fake.api_base}/v1/payment_intents", auth=(fake.secret_key, ""))
    assert basic.status_code == 200 and basic.json()["object"] == "list"
    with pytest.raises(stripe.AuthenticationError):
        stripe.StripeClient("sk_test_wrong", base_addresses={"api": fake.api_base}).v1.payment_intents.list()
    publishable = stripe.StripeClient(fake.publishable_key, base_addresses={"api": fake.api_base})
    with pytest.raises(stripe.AuthenticationError, match="publishable API key"):
        publishable.v1.payment_intents.create(params={"amount": 1000, "currency": "usd"})


def test_the_publishable_key_reads_an_intent_only_with_its_client_secret(fake: FakeStripe,
                                                                         client: stripe.StripeClient) -> None:
    intent = _create(client)
    url = f"{fake.api_base}/v1/payment_intents/{intent.id}"
    reduced = httpx.get(url, params={"key": fake.publishable_key, "client_secret": intent.client_secret})
    assert reduced.status_code == 200
    assert reduced.json()["status"] == "requires_payment_method" and "metadata" not in reduced.json()
    assert reduced.headers["Access-Control-Allow-Origin"] == "*"
    wrong = httpx.get(url, params={"key": fake.publishable_key, "client_secret": f"{intent.id}_secret_nope"})
    assert wrong.status_code == 400 and wrong.json()["error"]["param"] == "client_secret"
    without = httpx.get(url, params={"key": fake.publishable_key})
    assert without.status_code == 400


def test_unknown_urls_and_objects_are_404(fake: FakeStripe, client: stripe.StripeClient) -> None:
    unknown = httpx.get(f"{fake.api_base}/v1/nothing_here", headers=_auth(fake.secret_key))
    assert unknown.status_code == 404
    assert unknown.json()["error"]["type"] == "invalid_request_error" and unknown.headers["Request-Id"]
    assert httpx.get(f"{fake.api_base}/elsewhere").status_code == 404
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.payment_intents.retrieve("pi_missing")
    assert missing.value.http_status == 404 and missing.value.code == "resource_missing"


# ---------------------------------------------------------------------------------------- PaymentIntents


def test_create_confirm_and_retrieve_with_the_charge_expanded(fake: FakeStripe, client: stripe.StripeClient) -> None:
    intent = _create(client, 2500)
    assert (intent.status, intent.amount, intent.currency, intent.latest_charge) == (
        "requires_payment_method", 2500, "usd", None)
    assert intent.metadata["order"] == "SF-000001" and intent.livemode is False
    paid = _pay(client, intent.id)
    assert paid.status == "succeeded" and paid.amount_received == 2500 and paid.latest_charge.startswith("ch_")
    fetched = client.v1.payment_intents.retrieve(intent.id, params={"expand": ["latest_charge"]})
    charge = fetched.latest_charge
    assert charge.object == "charge" and charge.id == paid.latest_charge
    assert (charge.amount, charge.amount_captured, charge.amount_refunded, charge.refunded, charge.status) == (
        2500, 2500, 0, False, "succeeded")
    assert charge.payment_intent == intent.id
    details = charge.payment_method_details.to_dict()
    assert details["type"] == "card" and details["card"]["brand"] == "visa" and details["card"]["last4"] == "4242"
    assert fake.created_intents == [intent.id]


def test_amount_must_be_a_positive_integer(client: stripe.StripeClient) -> None:
    for amount in (0, -5, "ten"):
        with pytest.raises(stripe.InvalidRequestError) as refused:
            client.v1.payment_intents.create(params={"amount": amount, "currency": "usd"})
        assert refused.value.param == "amount"
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.payment_intents.create(params={"currency": "usd"})
    assert missing.value.code == "parameter_missing"
    with pytest.raises(stripe.InvalidRequestError) as unknown:
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd", "colour": "red"})
    assert unknown.value.code == "parameter_unknown"


def test_a_server_side_confirm_needs_a_return_url_unless_redirects_are_off(client: stripe.StripeClient) -> None:
    intent = _create(client)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
    assert refused.value.param == "return_url"
    no_redirects = client.v1.payment_intents.create(params={
        "amount": 1000, "currency": "usd",
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    assert client.v1.payment_intents.confirm(no_redirects.id, params={"payment_method": "pm_card_visa"}).status == (
        "succeeded")


@pytest.mark.parametrize(("payment_method", "decline_code", "message"), [
    ("pm_card_visa_chargeDeclined", "generic_decline", "Your card was declined."),
    ("pm_card_visa_chargeDeclinedInsufficientFunds", "insufficient_funds", "Your card has insufficient funds."),
])
def test_a_decline_is_a_402_card_error_and_the_intent_waits_for_another_card(
        fake: FakeStripe, client: stripe.StripeClient, payment_method: str, decline_code: str, message: str) -> None:
    intent = _create(client)
    with pytest.raises(stripe.CardError) as declined:
        _pay(client, intent.id, payment_method)
    error = declined.value
    assert error.http_status == 402 and error.user_message == message
    assert error.code == "card_declined" and error.error.decline_code == decline_code
    assert error.request_id and error.request_id.startswith("req_")
    embedded = error.json_body["error"]["payment_intent"]
    assert embedded["id"] == intent.id and embedded["status"] == "requires_payment_method"
    assert embedded["last_payment_error"]["decline_code"] == decline_code
    after = client.v1.payment_intents.retrieve(intent.id)
    assert after.status == "requires_payment_method" and after.last_payment_error.message == message
    assert _pay(client, intent.id).status == "succeeded"
    assert fake.intent(intent.id)["last_payment_error"] is None
    assert [e["type"] for e in fake.events_of()] == [
        "payment_intent.created", "charge.failed", "payment_intent.payment_failed",
        "charge.succeeded", "payment_intent.succeeded"]


def test_update_changes_amount_and_metadata_until_the_intent_succeeds(client: stripe.StripeClient) -> None:
    intent = _create(client, 2500)
    updated = client.v1.payment_intents.update(intent.id, params={"amount": 3100, "metadata": {"cart": "7"}})
    assert updated.amount == 3100 and updated.metadata.to_dict() == {"order": "SF-000001", "cart": "7"}
    unset = client.v1.payment_intents.update(intent.id, params={"metadata": {"cart": ""}})
    assert unset.metadata.to_dict() == {"order": "SF-000001"}
    _pay(client, intent.id)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.update(intent.id, params={"amount": 100})
    assert refused.value.code == "payment_intent_unexpected_state"
    labelled = client.v1.payment_intents.update(intent.id, params={"metadata": {"shipped": "no"}})
    assert labelled.metadata["shipped"] == "no" and labelled.amount == 3100


def test_cancel_with_a_reason_and_never_after_success(fake: FakeStripe, client: stripe.StripeClient) -> None:
    intent = _create(client)
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payment_intents.cancel(intent.id, params={"cancellation_reason": "bored"})
    canceled = client.v1.payment_intents.cancel(intent.id, params={"cancellation_reason": "abandoned"})
    assert (canceled.status, canceled.cancellation_reason) == ("canceled", "abandoned") and canceled.canceled_at
    assert fake.events_of("payment_intent.canceled")[0]["data"]["object"]["id"] == intent.id
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.payment_intents.update(intent.id, params={"amount": 3000})
    assert refused.value.code == "payment_intent_unexpected_state"
    paid = _create(client, order="SF-000002")
    _pay(client, paid.id)
    with pytest.raises(stripe.InvalidRequestError) as too_late:
        client.v1.payment_intents.cancel(paid.id, params={"cancellation_reason": "requested_by_customer"})
    assert too_late.value.http_status == 400 and too_late.value.code == "payment_intent_unexpected_state"


def test_manual_capture_and_three_d_secure_through_the_api(fake: FakeStripe, client: stripe.StripeClient) -> None:
    held = client.v1.payment_intents.create(params={"amount": 2000, "currency": "usd", "capture_method": "manual",
                                                    "payment_method_types": ["card"]})
    assert client.v1.payment_intents.confirm(held.id, params={"payment_method": "pm_card_visa"}).status == (
        "requires_capture")
    captured = client.v1.payment_intents.capture(held.id)
    assert captured.status == "succeeded" and captured.amount_received == 2000
    challenged = _create(client, order="SF-000003")
    needs_action = _pay(client, challenged.id, "pm_card_authenticationRequired")
    assert needs_action.status == "requires_action" and needs_action.next_action.type == "use_stripe_sdk"
    done = httpx.post(f"{fake.api_base}{AUTHENTICATE_PATH}", headers=_auth(fake.secret_key),
                      data={"payment_intent": challenged.id, "outcome": "complete"})
    assert done.status_code == 200 and done.json()["status"] == "succeeded"


def test_lists_page_newest_first(client: stripe.StripeClient) -> None:
    ids = [_create(client, order=f"SF-00000{i}").id for i in range(3)]
    first = client.v1.payment_intents.list(params={"limit": 2})
    assert [pi.id for pi in first.data] == ids[::-1][:2] and first.has_more is True
    second = client.v1.payment_intents.list(params={"limit": 2, "starting_after": first.data[-1].id})
    assert [pi.id for pi in second.data] == ids[:1] and second.has_more is False
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payment_intents.list(params={"limit": 101})


# ---------------------------------------------------------------------------------------- refunds


def test_partial_then_full_refunds_and_the_over_refund_errors(fake: FakeStripe, client: stripe.StripeClient) -> None:
    intent = _create(client, 5000)
    paid = _pay(client, intent.id)
    first = client.v1.refunds.create(params={"payment_intent": intent.id, "amount": 2000,
                                             "reason": "requested_by_customer", "metadata": {"order": "SF-000001"}})
    assert (first.object, first.status, first.amount, first.charge) == ("refund", "succeeded", 2000, paid.latest_charge)
    charge = client.v1.charges.retrieve(paid.latest_charge)
    assert (charge.amount_refunded, charge.refunded) == (2000, False)
    with pytest.raises(stripe.InvalidRequestError) as too_much:
        client.v1.refunds.create(params={"payment_intent": intent.id, "amount": 3001})
    assert too_much.value.param == "amount"
    rest = client.v1.refunds.create(params={"charge": paid.latest_charge})
    assert rest.amount == 3000
    charge = client.v1.charges.retrieve(paid.latest_charge)
    assert (charge.amount_refunded, charge.refunded) == (5000, True)
    with pytest.raises(stripe.InvalidRequestError) as again:
        client.v1.refunds.create(params={"payment_intent": intent.id})
    assert again.value.code == "charge_already_refunded"
    assert client.v1.refunds.retrieve(first.id).metadata["order"] == "SF-000001"
    refunded = fake.events_of("charge.refunded")
    assert [e["data"]["object"]["amount_refunded"] for e in refunded] == [2000, 5000]
    assert [e["data"]["previous_attributes"]["amount_refunded"] for e in refunded] == [0, 2000]
    assert len(fake.events_of("refund.created")) == 2 and fake.created_refunds == [first.id, rest.id]


def test_an_unpaid_intent_cannot_be_refunded(client: stripe.StripeClient) -> None:
    intent = _create(client)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.refunds.create(params={"payment_intent": intent.id})
    assert refused.value.http_status == 400


def test_a_refund_fail_card_refund_fails_after_the_answer(fake: FakeStripe, client: stripe.StripeClient) -> None:
    intent = _create(client)
    _pay(client, intent.id, "pm_card_refundFail")
    refund = client.v1.refunds.create(params={"payment_intent": intent.id})
    assert refund.status == "succeeded"
    failed = fake.wait_for_event("refund.failed")[0]["data"]["object"]
    assert failed["id"] == refund.id and failed["failure_reason"] == "expired_or_canceled_card"
    assert client.v1.refunds.retrieve(refund.id).status == "failed"


# ---------------------------------------------------------------------------------------- idempotency


def test_the_same_key_and_params_replay_the_first_answer(fake: FakeStripe, client: stripe.StripeClient) -> None:
    first = _create(client, idempotency_key="order-SF-000001-pi-1")
    again = _create(client, idempotency_key="order-SF-000001-pi-1")
    assert again.id == first.id and fake.created_intents == [first.id]
    assert fake.executions["create_intent"] == 1
    assert [r.replayed for r in fake.requests_to("POST", "/v1/payment_intents")] == [False, True]
    raw = httpx.post(f"{fake.api_base}/v1/payment_intents", headers={
        **_auth(fake.secret_key), "Idempotency-Key": "raw-key"}, data={"amount": "1000", "currency": "usd"})
    replay = httpx.post(f"{fake.api_base}/v1/payment_intents", headers={
        **_auth(fake.secret_key), "Idempotency-Key": "raw-key"}, data={"amount": "1000", "currency": "usd"})
    assert replay.json() == raw.json() and replay.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in raw.headers


def test_the_same_key_with_other_params_is_an_idempotency_error(fake: FakeStripe, client: stripe.StripeClient) -> None:
    _create(client, 2500, idempotency_key="order-SF-000001-pi-1")
    with pytest.raises(stripe.IdempotencyError) as reused:
        _create(client, 2600, idempotency_key="order-SF-000001-pi-1")
    assert reused.value.http_status == 400 and reused.value.error.type == "idempotency_error"
    assert len(fake.created_intents) == 1


def test_a_stored_decline_is_replayed_and_a_failed_validation_is_not_stored(
        fake: FakeStripe, client: stripe.StripeClient) -> None:
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payment_intents.create(params={"amount": 0, "currency": "usd"}, options={"idempotency_key": "k"})
    assert _create(client, idempotency_key="k").status == "requires_payment_method"
    intent = _create(client, order="SF-000002")
    for _ in range(2):
        with pytest.raises(stripe.CardError):
            client.v1.payment_intents.confirm(intent.id, params={
                "payment_method": "pm_card_visa_chargeDeclined", "return_url": RETURN_URL},
                options={"idempotency_key": "confirm-1"})
    assert fake.executions["confirm_intent"] == 1
    assert len(fake.events_of("payment_intent.payment_failed")) == 1


def test_keys_expire_after_a_day_on_the_fake_clock(fake: FakeStripe, client: stripe.StripeClient) -> None:
    now = [1_700_000_000.0]
    fake.clock = lambda: now[0]
    first = _create(client, idempotency_key="daily")
    assert first.created == 1_700_000_000
    now[0] += 25 * 3600
    second = _create(client, idempotency_key="daily")
    assert second.id != first.id and second.created == 1_700_090_000


# ---------------------------------------------------------------------------------------- faults


def test_a_500_is_retried_by_the_sdk_with_the_same_key(fake: FakeStripe, client: stripe.StripeClient,
                                                       fast_retries: None) -> None:
    fake.fail_next(500, path_part="/v1/payment_intents")
    intent = _create(client)
    attempts = fake.requests_to("POST", "/v1/payment_intents")
    assert [r.status for r in attempts] == [500, 200]
    assert attempts[0].idempotency_key == attempts[1].idempotency_key
    assert fake.created_intents == [intent.id]


def test_stripe_should_retry_false_stops_the_sdk(fake: FakeStripe, client: stripe.StripeClient) -> None:
    fake.fail_next(500, should_retry=False)
    with pytest.raises(stripe.APIError):
        _create(client)
    assert len(fake.requests) == 1 and fake.created_intents == []


def test_a_429_is_a_rate_limit_error_and_not_retried(fake: FakeStripe, client: stripe.StripeClient) -> None:
    fake.fail_next(429, path_part="/v1/refunds")
    intent = _create(client)
    _pay(client, intent.id)
    with pytest.raises(stripe.RateLimitError) as limited:
        client.v1.refunds.create(params={"payment_intent": intent.id})
    assert limited.value.http_status == 429 and limited.value.error.code == "rate_limit"
    assert len(fake.requests_to("POST", "/v1/refunds")) == 1 and fake.refunds == {}


def test_a_409_is_retried(fake: FakeStripe, client: stripe.StripeClient, fast_retries: None) -> None:
    fake.fail_next(409, times=2)
    assert _create(client).status == "requires_payment_method"
    assert [r.status for r in fake.requests_to("POST", "/v1/payment_intents")] == [409, 409, 200]


def test_a_lost_answer_retried_with_the_same_key_gives_one_intent(fake: FakeStripe, client: stripe.StripeClient,
                                                                  fast_retries: None) -> None:
    fake.drop_next_response("/v1/payment_intents")
    intent = _create(client, idempotency_key="order-SF-000001-pi-1")
    attempts = fake.requests_to("POST", "/v1/payment_intents")
    assert [(r.dropped, r.replayed) for r in attempts] == [(True, False), (False, True)]
    assert fake.created_intents == [intent.id] and fake.executions["create_intent"] == 1
    no_retries = stripe.StripeClient(fake.secret_key, base_addresses={"api": fake.api_base})
    fake.drop_next_response("/v1/payment_intents")
    with pytest.raises(stripe.APIConnectionError):
        _create(no_retries, order="SF-000002")
    assert len(fake.created_intents) == 2


def test_a_concurrent_request_with_the_same_key_gets_409(fake: FakeStripe) -> None:
    no_retries = stripe.StripeClient(fake.secret_key, base_addresses={"api": fake.api_base})
    held = fake.hold_next("/v1/payment_intents")
    results: list[Any] = []
    first = threading.Thread(target=lambda: results.append(_create(no_retries, idempotency_key="double-click")))
    first.start()
    try:
        assert held.reached.wait(5)
        with pytest.raises(stripe.APIError) as clash:
            _create(no_retries, idempotency_key="double-click")
        assert clash.value.http_status == 409 and clash.value.error.code == "idempotency_key_in_use"
    finally:
        held.release()
        first.join(5)
    assert len(results) == 1 and fake.created_intents == [results[0].id]


# ---------------------------------------------------------------------------------------- events and webhooks


def test_events_are_stored_with_the_causing_request(fake: FakeStripe, client: stripe.StripeClient) -> None:
    intent = _create(client, idempotency_key="order-SF-000001-pi-1")
    _pay(client, intent.id)
    listed = client.v1.events.list(params={"limit": 10})
    assert [e.type for e in listed.data] == ["payment_intent.succeeded", "charge.succeeded", "payment_intent.created"]
    created = client.v1.events.retrieve(listed.data[-1].id)
    assert created.object == "event" and created.api_version == fake.api_version and created.livemode is False
    assert created.request.idempotency_key == "order-SF-000001-pi-1" and created.request.id.startswith("req_")
    assert created.data.object.id == intent.id and created.data.object.status == "requires_payment_method"
    only = client.v1.events.list(params={"type": "charge.*"})
    assert [e.type for e in only.data] == ["charge.succeeded"]


def test_webhooks_are_signed_and_verify_with_the_sdk(fake: FakeStripe, client: stripe.StripeClient,
                                                     receiver: WebhookReceiver) -> None:
    fake.webhook_url = receiver.url
    intent = _create(client)
    _pay(client, intent.id)
    deliveries = fake.wait_for_deliveries(3)
    assert all(d.status == 200 and d.automatic for d in deliveries)
    received = receiver.wait_for(3)
    types = []
    for hook in received:
        header = hook.headers["Stripe-Signature"]
        assert ",v1=" in header and ",v0=" in header
        event = stripe.Webhook.construct_event(hook.body, header, "whsec_fake")
        types.append(event.type)
        assert hook.headers["Content-Type"].startswith("application/json")
        assert hook.body.startswith(b"{\n")  # pretty-printed like Stripe's: only the raw bytes verify
    assert types == ["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(received[0].body, received[0].headers["Stripe-Signature"], "whsec_other")
    assert fake.events_of("payment_intent.succeeded")[0]["pending_webhooks"] == 1


def test_the_api_answers_before_the_webhook_is_sent(fake: FakeStripe, client: stripe.StripeClient,
                                                    receiver: WebhookReceiver) -> None:
    receiver.state.gate = threading.Event()
    fake.webhook_url = receiver.url
    try:
        intent = _create(client)  # answers while the endpoint still holds the webhook
        assert fake.deliveries == []
    finally:
        receiver.state.gate.set()
    assert fake.wait_for_deliveries(1)[0].event_id == fake.events_of()[0]["id"]
    assert intent.id == fake.events_of()[0]["data"]["object"]["id"]


def test_deliver_by_hand_duplicates_and_out_of_order(fake: FakeStripe, client: stripe.StripeClient,
                                                     receiver: WebhookReceiver) -> None:
    fake.auto_deliver = False
    fake.webhook_url = receiver.url
    intent = _create(client)
    _pay(client, intent.id)
    fake.wait_for_idle()
    assert fake.deliveries == []
    succeeded, created = fake.events_of("payment_intent.succeeded")[0], fake.events_of("payment_intent.created")[0]
    assert fake.deliver(succeeded["id"]) == 200
    assert fake.deliver(created["id"]) == 200
    assert fake.deliver(succeeded["id"]) == 200
    bodies = [json.loads(r.body)["id"] for r in receiver.wait_for(3)]
    assert bodies == [succeeded["id"], created["id"], succeeded["id"]]
    assert [(d.event_id, d.status, d.automatic) for d in fake.deliveries] == [
        (succeeded["id"], 200, False), (created["id"], 200, False), (succeeded["id"], 200, False)]
    stale = fake.sign(b"{}", timestamp=1)
    assert fake.deliver(created["id"], signature=stale) == 200
    assert receiver.wait_for(4)[-1].headers["Stripe-Signature"] == stale


def test_a_failing_endpoint_is_retried_and_recorded(fake: FakeStripe, client: stripe.StripeClient,
                                                    receiver: WebhookReceiver) -> None:
    receiver.state.status = 500
    fake.webhook_retries = 2
    fake.webhook_retry_delay = 0.01
    fake.webhook_url = receiver.url
    _create(client)
    fake.wait_for_idle()
    assert [(d.status, d.attempt) for d in fake.deliveries] == [(500, 1), (500, 2), (500, 3)]
    failed = client.v1.events.list(params={"delivery_success": False})
    assert [e.type for e in failed.data] == ["payment_intent.created"]


def test_the_signer_matches_the_known_answer_vector(fake: FakeStripe) -> None:
    assert signature_header(KAT_BODY, KAT_SECRET, KAT_TIMESTAMP) == KAT_HEADER
    assert compute_signature(KAT_BODY, KAT_SECRET, KAT_TIMESTAMP) == KAT_HEADER.split("v1=")[1]
    header = fake.sign(KAT_BODY, KAT_TIMESTAMP, secret=KAT_SECRET)
    assert header.startswith(KAT_HEADER + ",v0=")
    assert stripe.WebhookSignature.verify_header(KAT_BODY.decode(), header, KAT_SECRET, tolerance=None)
    fresh = fake.sign(KAT_BODY)
    assert stripe.Webhook.construct_event(KAT_BODY, fresh, "whsec_fake").id == "evt_test_1"


# ---------------------------------------------------------------------------------------- Stripe.js stand-in


def test_the_stand_in_script_and_controls_allow_other_origins(fake: FakeStripe) -> None:
    script = httpx.get(fake.js_url)
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("application/javascript")
    assert script.headers["Access-Control-Allow-Origin"] == "*"
    assert "window.Stripe" in script.text and f'"{fake.api_base}"' in script.text
    preflight = httpx.options(f"{fake.api_base}{CONFIRM_PATH}", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]


def test_the_confirm_control_pays_with_a_typed_card_and_never_logs_it(fake: FakeStripe,
                                                                      client: stripe.StripeClient) -> None:
    intent = _create(client)
    form = {"key": fake.publishable_key, "client_secret": intent.client_secret, "number": "4000000000009995",
            "exp_month": "12", "exp_year": "2034", "cvc": "123"}
    declined = httpx.post(f"{fake.api_base}{CONFIRM_PATH}", data=form)
    assert declined.status_code == 402
    error = declined.json()["error"]
    assert (error["type"], error["code"], error["decline_code"]) == (
        "card_error",
        "card_declined",
        "insufficient_funds",
    )
    assert error["payment_intent"]["status"] == "requires_payment_method" and "metadata" not in error["payment_intent"]
    paid = httpx.post(f"{fake.api_base}{CONFIRM_PATH}", data={**form, "number": "4242 4242 4242 4242"})
    assert paid.status_code == 200 and paid.json()["status"] == "succeeded"
    assert paid.headers["Access-Control-Allow-Origin"] == "*"
    charge = client.v1.charges.retrieve(client.v1.payment_intents.retrieve(intent.id).latest_charge)
    assert charge.payment_method_details.card.last4 == "4242"
    logged = repr(fake.requests)
    assert "4242" not in logged and "9995" not in logged and "123'" not in logged
    assert fake.requests_to("POST", CONFIRM_PATH)[0].params["number"] == "[redacted]"
    forged = httpx.post(f"{fake.api_base}{CONFIRM_PATH}", data={**form, "client_secret": f"{intent.id}_secret_x"})
    assert forged.status_code == 400


# A DOM just big enough for the stand-in: elements, text, attributes, events and simple selectors.
NODE_HARNESS = r"""
class El {
  constructor(tag) {
    this.tagName = tag.toUpperCase(); this.attributes = {}; this.childNodes = []; this.parentNode = null;
    this.listeners = {}; this.value = ""; this._text = "";
  }
  setAttribute(n, v) { this.attributes[n] = String(v); }
  getAttribute(n) { return n in this.attributes ? this.attributes[n] : null; }
  removeAttribute(n) { delete this.attributes[n]; }
  appendChild(c) {
    if (c.parentNode) c.parentNode.removeChild(c);
    c.parentNode = this; this.childNodes.push(c); return c;
  }
  removeChild(c) { this.childNodes = this.childNodes.filter(x => x !== c); c.parentNode = null; return c; }
  get firstChild() { return this.childNodes[0] || null; }
  get textContent() { return this._text + this.childNodes.map(c => c.textContent).join(""); }
  set textContent(v) { this.childNodes = []; this._text = String(v); }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  dispatch(t) { (this.listeners[t] || []).forEach(f => f({type: t, target: this})); }
  matches(s) { let m = s.match(/^#(.+)$/); if (m) return this.attributes.id === m[1];
               m = s.match(/^\[([\w-]+)="(.*)"\]$/); return !!m && this.attributes[m[1]] === m[2]; }
  querySelector(s) { for (const c of this.childNodes) { if (c.matches(s)) return c; const f = c.querySelector(s);
                     if (f) return f; } return null; }
}
const body = new El("body");
const host = body.appendChild(new El("div"));
host.setAttribute("id", "payment-element");
globalThis.window = globalThis;
globalThis.document = {body, createElement: t => new El(t), querySelector: s => body.querySelector(s),
                       createTextNode: s => { const t = new El("#text"); t._text = String(s); return t; }};
window.location = {href: "http://shop.test/checkout", assign(url) { window.assigned = url; }};
const q = id => document.querySelector(`[data-testid="${id}"]`);
const type = (id, value) => { q(id).value = value; q(id).dispatch("input"); };
const tick = () => new Promise(resolve => setTimeout(resolve, 1));

(async () => {
  const env = JSON.parse(process.env.SCENARIO);
  (0, eval)(await (await fetch(env.jsUrl)).text());
  let secretKeyRefused = false;
  try { Stripe("sk_test_fake"); } catch (e) { secretKeyRefused = e.name === "IntegrationError"; }
  const stripe = Stripe(env.publishableKey);
  const elements = stripe.elements({clientSecret: env.clientSecret, appearance: {theme: "stripe"}});
  const element = elements.create("payment", {layout: "tabs"});
  const seen = [];
  element.on("ready", () => seen.push("ready"));
  element.on("change", e => seen.push(`change:${e.complete}`));
  element.mount("#payment-element");
  await tick();
  type("stripe-card-number", env.number);
  type("stripe-card-expiry", env.expiry);
  type("stripe-card-cvc", env.cvc);
  const submitted = await elements.submit();
  let confirmed = null;
  if (!submitted.error) {
    const pending = stripe.confirmPayment({elements, confirmParams: {return_url: "http://shop.test/done"},
                                           redirect: "if_required"});
    if (env.authenticate) {
      const deadline = Date.now() + 5000;
      while (!q(`stripe-3ds-${env.authenticate}`) && Date.now() < deadline) await tick();
      q(`stripe-3ds-${env.authenticate}`).dispatch("click");
    }
    confirmed = await pending;
  }
  const retrieved = await stripe.retrievePaymentIntent(env.clientSecret);
  const updates = await elements.fetchUpdates();
  const label = q("stripe-payment-element").textContent;
  const form = q("stripe-card-number").getAttribute("form");
  const shown = q("stripe-card-error").textContent;
  element.destroy();
  console.log(JSON.stringify({secretKeyRefused, seen, submitted, confirmed, retrieved, updates, label, form, shown,
                              unmounted: q("stripe-payment-element") === null}));
})().catch(error => { console.log(JSON.stringify({thrown: String(error && error.stack || error)})); });
"""


def _run_stand_in(fake: FakeStripe, client_secret: str, number: str, *, expiry: str = "12 / 34", cvc: str = "123",
                  authenticate: str | None = None, tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "stand_in.js"
    script.write_text(NODE_HARNESS)
    scenario = {"jsUrl": fake.js_url, "publishableKey": fake.publishable_key, "clientSecret": client_secret,
                "number": number, "expiry": expiry, "cvc": cvc, "authenticate": authenticate}
    assert NODE is not None
    done = subprocess.run([str(NODE), str(script)], check=False, env={**os.environ, "SCENARIO": json.dumps(scenario)},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "thrown" not in result, result.get("thrown")
    return result


needs_node = pytest.mark.skipif(NODE is None, reason="the Stripe.js stand-in tests run it in Node")


@needs_node
def test_the_stand_in_mounts_the_card_form_and_pays(fake: FakeStripe, client: stripe.StripeClient,
                                                     tmp_path: Path) -> None:
    intent = _create(client)
    result = _run_stand_in(fake, intent.client_secret, "4242 4242 4242 4242", tmp_path=tmp_path)
    assert result["secretKeyRefused"] is True
    assert result["seen"][0] == "ready" and result["seen"][-1] == "change:true"
    assert "Test card (fake Stripe)" in result["label"] and result["form"] == "fake-stripe-detached-form"
    assert result["submitted"] == {"selectedPaymentMethod": "card"}
    paid = result["confirmed"]["paymentIntent"]
    assert (paid["id"], paid["status"], paid["amount"], paid["currency"]) == (intent.id, "succeeded", 2500, "usd")
    assert result["retrieved"]["paymentIntent"]["status"] == "succeeded"
    assert "metadata" not in result["retrieved"]["paymentIntent"] and result["updates"] == {}
    assert result["unmounted"] is True
    assert client.v1.payment_intents.retrieve(intent.id).status == "succeeded"
    assert "4242" not in repr(fake.requests)


@needs_node
def test_the_stand_in_resolves_a_decline_as_an_error(fake: FakeStripe, client: stripe.StripeClient,
                                                      tmp_path: Path) -> None:
    intent = _create(client)
    result = _run_stand_in(fake, intent.client_secret, "4000000000000002", tmp_path=tmp_path)
    error = result["confirmed"]["error"]
    assert (error["type"], error["code"], error["decline_code"], error["message"]) == (
        "card_error", "card_declined", "generic_decline", "Your card was declined.")
    assert error["payment_intent"]["id"] == intent.id
    assert error["payment_intent"]["status"] == "requires_payment_method"
    assert fake.events_of("payment_intent.payment_failed")


@needs_node
def test_the_stand_in_validates_before_sending(fake: FakeStripe, client: stripe.StripeClient, tmp_path: Path) -> None:
    intent = _create(client)
    result = _run_stand_in(fake, intent.client_secret, "", tmp_path=tmp_path)
    assert result["submitted"]["error"]["type"] == "validation_error"
    assert result["submitted"]["error"]["code"] == "incomplete_number"
    assert result["shown"] == "Your card number is incomplete." and result["confirmed"] is None
    assert fake.requests_to("POST", CONFIRM_PATH) == []
    luhn = _run_stand_in(fake, intent.client_secret, "4242424242424241", tmp_path=tmp_path)
    assert luhn["submitted"]["error"]["code"] == "invalid_number"


@needs_node
@pytest.mark.parametrize(("choice", "status"), [("complete", "succeeded"), ("fail", "requires_payment_method")])
def test_the_stand_in_shows_a_three_d_secure_challenge(fake: FakeStripe, client: stripe.StripeClient, tmp_path: Path,
                                                       choice: str, status: str) -> None:
    intent = _create(client)
    result = _run_stand_in(fake, intent.client_secret, "4000002760003184", authenticate=choice, tmp_path=tmp_path)
    if choice == "complete":
        assert result["confirmed"]["paymentIntent"]["status"] == "succeeded"
    else:
        assert result["confirmed"]["error"]["code"] == "payment_intent_authentication_failure"
    assert client.v1.payment_intents.retrieve(intent.id).status == status


def test_every_test_card_number_passes_the_luhn_check() -> None:
    def luhn(number: str) -> bool:
        digits = [int(d) for d in reversed(number)]
        return sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits)) % 10 == 0

    assert all(luhn(card.number) for card in CARDS)


# ---------------------------------------------------------------------------------------- CLI


def test_the_cli_prints_the_store_settings() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.stripe_server", "--port", "0",
         "--webhook-url", "http://127.0.0.1:3000/api/stripe/webhooks"],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(30, process.kill)
    killer.start()
    try:
        lines: list[str] = []
        assert process.stdout is not None
        while not any("make run" in line for line in lines):
            line = process.stdout.readline()
            assert line, f"the CLI ended early: {lines} {process.stderr.read() if process.stderr else ''}"
            lines.append(line)
        settings = next(line for line in lines if "make run" in line).split()
        values = dict(item.split("=", 1) for item in settings if "=" in item)
        assert values["STRIPE_SECRET_KEY"] == "sk_test_fake" and values["STRIPE_PUBLISHABLE_KEY"] == "pk_test_fake"
        assert values["STRIPE_WEBHOOK_SECRET"] == "whsec_fake"
        assert values["STRIPE_JS_URL"] == values["STRIPE_API_BASE"] + "/v3/stripe.js"
        assert httpx.get(values["STRIPE_JS_URL"]).status_code == 200
        listed = httpx.get(values["STRIPE_API_BASE"] + "/v1/events", headers=_auth("sk_test_fake"))
        assert listed.json()["object"] == "list"
    finally:
        killer.cancel()
        process.terminate()
        process.wait(10)
