"""The real Printify client against the fake Printify server, over real HTTP on loopback."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from storefront.services.printify import PrintProvider
from storefront.services.printify.client import (
    USER_AGENT,
    PrintifyClient,
    ProviderOutcomeUnknown,
    RequestPacer,
    SyncPrintifyClient,
)
from storefront.services.printify.errors import (
    ProviderError,
    ProviderNotFound,
    ProviderRateLimited,
    ProviderUnauthorized,
    ProviderUnavailable,
)
from tests.fakes.printify_server import DEFAULT_SHOP, FakePrintifyServer

SHOP = DEFAULT_SHOP["id"]
TIMEOUT = 0.3
SLOW = 0.8
ADDRESS = {
    "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "5550100",
    "country": "US", "region": "NY", "address1": "1 Main St", "address2": "", "city": "New York", "zip": "10001",
}


class FakeTimeline:
    """A clock that only moves when something sleeps; every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def timeline() -> FakeTimeline:
    return FakeTimeline()


@pytest.fixture
def fake(timeline: FakeTimeline) -> Iterator[FakePrintifyServer]:
    with FakePrintifyServer(clock=timeline.clock) as server:
        yield server


def make_client(fake: FakePrintifyServer, timeline: FakeTimeline, **kwargs: object) -> SyncPrintifyClient:
    options: dict = {"base_url": fake.base_url, "clock": timeline.clock, "sleep": timeline.sleep,
                     "rng": random.Random(7), "timeout": TIMEOUT, **kwargs}
    return SyncPrintifyClient(options.pop("token", fake.token), **options)


@pytest.fixture
def client(fake: FakePrintifyServer, timeline: FakeTimeline) -> Iterator[SyncPrintifyClient]:
    with make_client(fake, timeline) as client:
        yield client


def order_body(fake: FakePrintifyServer, external_id: str = "SO-1001") -> dict:
    product = fake.add_product("Crimson Tee")
    return {
        "external_id": external_id,
        "line_items": [{"product_id": product["id"], "variant_id": product["variants"][0]["id"], "quantity": 1}],
        "shipping_method": 1,
        "send_shipping_notification": False,
        "address_to": ADDRESS,
    }


# ------------------------------------------------------------------ transport


def test_every_request_carries_the_bearer_token_a_user_agent_and_a_json_path(client, fake) -> None:
    assert client.list_shops() == [DEFAULT_SHOP]
    client.upload_image("letters.png", url="https://example.com/letters.png")
    for request in fake.requests:
        assert request.headers["Authorization"] == f"Bearer {fake.token}"
        assert request.headers["User-Agent"] == USER_AGENT
        assert request.path.startswith("/v1/") and request.path.endswith(".json")
    assert fake.requests[-1].headers["Content-Type"] == "application/json;charset=utf-8"


def test_the_sync_facade_is_a_print_provider(client) -> None:
    assert isinstance(client, PrintProvider)


def test_the_async_client_answers_the_same_dicts(fake, timeline) -> None:
    fake.add_product("Async Tee")

    async def read() -> tuple[list, dict]:
        async with PrintifyClient(fake.token, base_url=fake.base_url, clock=timeline.clock,
                                  sleep=timeline.sleep) as client:
            return await client.list_shops(), await client.list_products(SHOP)

    shops, page = asyncio.run(read())
    assert shops == [DEFAULT_SHOP]
    assert [p["title"] for p in page["data"]] == ["Async Tee"]


# ------------------------------------------------------------------ pagination


def test_all_products_reads_every_page_at_most_50_a_page(client, fake) -> None:
    seeded = [fake.add_product(f"Tee {i}")["id"] for i in range(120)]
    products = client.all_products(SHOP)
    assert [p["id"] for p in products] == list(reversed(seeded))
    pages = fake.requests_to("GET", "/products.json")
    assert [(r.query["page"], r.query["limit"]) for r in pages] == [("1", "50"), ("2", "50"), ("3", "50")]


def test_one_page_is_a_laravel_envelope(client, fake) -> None:
    for i in range(12):
        fake.add_product(f"Tee {i}")
    page = client.list_products(SHOP, page=2, limit=5)
    assert (page["current_page"], page["per_page"], page["last_page"], page["total"]) == (2, 5, 3, 12)
    assert page["next_page_url"] == "/?page=3" and page["prev_page_url"] == "/?page=1"
    assert len(page["data"]) == 5


def test_a_limit_over_50_is_refused_with_printifys_validation_body(client) -> None:
    with pytest.raises(ProviderError) as caught:
        client.list_products(SHOP, limit=51)
    assert caught.value.status == 400 and caught.value.code == 8150
    assert caught.value.details["errors"]["reason"] == "limit: The limit may not be greater than 50."


# ------------------------------------------------------------------ pacing


def test_a_burst_of_700_calls_is_spread_over_time_not_refused(timeline) -> None:
    with FakePrintifyServer(clock=timeline.clock, rate_limit=True) as fake, make_client(fake, timeline) as client:
        for _ in range(700):
            client.list_shops()
        statuses = {r.status for r in fake.requests}
        starts = sorted(r.at for r in fake.requests)
    assert len(starts) == 700 and statuses == {200}
    # The 601st call waited for the window; none was refused. (A kept-alive connection the loaded
    # machine drops is retried after a sub-second backoff: that is not pacing.)
    # The pacing wait lasts until the window is over: 60 s after the first call, counting any
    # backoff slept before it (the timeline moves only when the client sleeps).
    paced = [i for i, s in enumerate(timeline.sleeps) if s >= 1.0]
    assert len(paced) == 1
    assert sum(timeline.sleeps[: paced[0] + 1]) == pytest.approx(60.0)
    assert starts.count(0.0) == 600 and starts[-1] == 60.0
    assert max(sum(1 for t in starts if s - 60 < t <= s) for s in set(starts)) <= 600


def test_the_fake_refuses_the_601st_call_of_a_minute_like_printify(timeline) -> None:
    fake = FakePrintifyServer(clock=timeline.clock, rate_limit=True)
    assert all(fake.check_limits("GET", "/v1/shops.json") for _ in range(600))
    assert not fake.check_limits("GET", "/v1/shops.json")
    timeline.now = 60.0
    assert fake.check_limits("GET", "/v1/shops.json")


def test_publishes_are_paced_to_their_own_window(fake, timeline) -> None:
    products = [fake.add_product(f"Tee {i}")["id"] for i in range(4)]
    pacer = RequestPacer(publish=(3, 1800.0))
    with make_client(fake, timeline, pacer=pacer) as client:
        for product_id in products:
            assert client.publish_product(SHOP, product_id) == {}
    assert timeline.sleeps == [1800.0]
    assert [r.at for r in fake.requests_to("POST", "/publish.json")] == [0.0, 0.0, 0.0, 1800.0]


def test_catalogue_calls_are_paced_to_100_a_minute(client, timeline) -> None:
    for _ in range(101):
        client.list_blueprints()
    assert timeline.sleeps == [60.0]


# ------------------------------------------------------------------ retries


def test_a_429_without_retry_after_backs_off_with_jitter_then_succeeds(client, fake, timeline) -> None:
    fake.fail_with(429, times=2, path="/shops.json")
    assert client.list_shops() == [DEFAULT_SHOP]
    assert [r.status for r in fake.requests] == [429, 429, 200]
    assert "Retry-After" not in fake.requests[0].headers
    first, second = timeline.sleeps
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0 and first != 0.25


def test_a_429_with_retry_after_waits_exactly_that_long(client, fake, timeline) -> None:
    fake.fail_with(429, retry_after="7", times=1)
    assert client.list_shops() == [DEFAULT_SHOP]
    assert timeline.sleeps == [7.0]


def test_a_429_that_never_ends_raises_rate_limited_with_the_body(client, fake) -> None:
    fake.fail_with(429, retry_after="3", times=None)
    with pytest.raises(ProviderRateLimited) as caught:
        client.list_shops()
    assert caught.value.retry_after == 3.0
    assert caught.value.details == {"status": "error", "code": 429, "message": "Too Many Attempts."}
    assert len(fake.requests) == 5


def test_a_5xx_on_a_read_is_retried_with_backoff(client, fake, timeline) -> None:
    fake.fail_with(503, times=2, method="GET")
    fake.add_product("Tee")
    assert len(client.all_products(SHOP)) == 1
    assert [r.status for r in fake.requests] == [503, 503, 200]
    assert len(timeline.sleeps) == 2


def test_a_5xx_that_never_ends_is_provider_unavailable_with_the_body(client, fake) -> None:
    fake.fail_with(500, times=None, body={"error": "boom", "request_id": "r-1"})
    with pytest.raises(ProviderUnavailable) as caught:
        client.get_product(SHOP, "0" * 24)
    assert caught.value.status == 500 and caught.value.details == {"error": "boom", "request_id": "r-1"}
    assert len(fake.requests) == 5


def test_a_timeout_on_a_read_is_retried(client, fake) -> None:
    fake.answer_slowly(SLOW, path="/shops.json")
    assert client.list_shops() == [DEFAULT_SHOP]
    assert len(fake.requests_to("GET", "/shops.json")) == 2


def test_an_unreachable_provider_is_unavailable_after_retries(fake, timeline) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with make_client(fake, timeline, base_url=f"http://127.0.0.1:{port}/v1/") as client, \
            pytest.raises(ProviderUnavailable):
        client.list_shops()
    assert len(timeline.sleeps) == 4


# ------------------------------------------------------------------ orders that must not double


def test_a_timeout_on_create_order_is_not_blindly_retried(client, fake) -> None:
    body = order_body(fake)
    fake.answer_slowly(SLOW, method="POST", path="/orders.json")
    with pytest.raises(ProviderOutcomeUnknown):
        client.create_order(SHOP, body)
    assert len(fake.requests_to("POST", "/orders.json")) == 1
    assert len(fake.all_orders()) == 1  # Printify took it; only the answer was lost


def test_a_5xx_on_create_order_is_not_retried_and_keeps_the_body(client, fake) -> None:
    body = order_body(fake)
    fake.fail_with(500, method="POST", path="/orders.json", body={"error": "Internal", "request_id": "x"})
    with pytest.raises(ProviderOutcomeUnknown) as caught:
        client.create_order(SHOP, body)
    assert caught.value.status == 500 and caught.value.details == {"error": "Internal", "request_id": "x"}
    assert len(fake.requests_to("POST", "/orders.json")) == 1


def test_a_429_on_create_order_is_retried_and_makes_one_order(client, fake) -> None:
    body = order_body(fake)
    fake.fail_with(429, method="POST", path="/orders.json")
    created = client.create_order(SHOP, body)
    assert [o["id"] for o in fake.all_orders()] == [created["id"]]


def test_a_guarded_create_order_finds_the_order_a_timeout_hid(client, fake) -> None:
    body = order_body(fake, external_id="SO-2002")
    fake.answer_slowly(SLOW, method="POST", path="/orders.json")
    created = client.create_order(SHOP, body, idempotent=True)
    orders = fake.all_orders()
    assert [o["id"] for o in orders] == [created["id"]]
    assert orders[0]["metadata"]["shop_order_id"] == "SO-2002"
    assert len(fake.requests_to("POST", "/orders.json")) == 1


def test_a_guarded_create_order_resends_when_the_order_is_not_there(client, fake) -> None:
    body = order_body(fake, external_id="SO-3003")
    fake.fail_with(502, method="POST", path="/orders.json")  # refused before anything was stored
    created = client.create_order(SHOP, body, idempotent=True)
    assert [o["id"] for o in fake.all_orders()] == [created["id"]]
    assert len(fake.requests_to("POST", "/orders.json")) == 2


# ------------------------------------------------------------------ uploads that must not double


def test_an_upload_refused_with_a_5xx_is_resent_and_makes_one_upload(client, fake) -> None:
    fake.fail_with(502, method="POST", path="/uploads/images.json")  # refused before anything was stored
    upload = client.upload_image("design-abc.png", contents="aGVsbG8=")
    assert list(fake.uploads) == [upload["id"]]
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 2


def test_an_upload_whose_answer_was_a_5xx_is_found_not_sent_again(client, fake) -> None:
    fake.fail_after_processing(502, method="POST", path="/uploads/images.json")
    upload = client.upload_image("design-def.png", contents="aGVsbG8=")
    assert list(fake.uploads) == [upload["id"]] and upload["file_name"] == "design-def.png"
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 1


def test_an_upload_whose_answer_was_lost_is_found_not_sent_again(client, fake) -> None:
    fake.answer_slowly(SLOW, method="POST", path="/uploads/images.json")
    upload = client.upload_image("design-ghi.png", contents="aGVsbG8=")
    assert list(fake.uploads) == [upload["id"]]
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 1


def test_an_upload_is_not_resent_blind_when_the_lookup_fails(client, fake) -> None:
    fake.fail_after_processing(502, method="POST", path="/uploads/images.json")
    fake.fail_with(401, method="GET", path="/uploads.json")
    with pytest.raises(ProviderOutcomeUnknown):
        client.upload_image("design-jkl.png", contents="aGVsbG8=")
    assert len(fake.requests_to("POST", "/uploads/images.json")) == 1


def test_a_create_without_print_areas_is_refused_like_printify(client) -> None:
    variants = client.catalog_variants(384, 29)["variants"][:1]
    with pytest.raises(ProviderError) as caught:
        client.create_product(SHOP, {"title": "Blank", "description": "", "blueprint_id": 384,
                                     "print_provider_id": 29, "variants": [{"id": variants[0]["id"], "price": 2000}]})
    assert caught.value.details["errors"]["reason"] == "print_areas: The print areas field is required."


def test_orders_move_from_on_hold_to_production_and_cancel_only_from_on_hold(client, fake) -> None:
    created = client.create_order(SHOP, order_body(fake))
    assert set(created) == {"id"}
    order = client.get_order(SHOP, created["id"])
    assert order["status"] == "on-hold" and order["metadata"]["shop_order_id"] == "SO-1001"
    assert client.list_orders(SHOP)["data"][0]["id"] == created["id"]
    assert client.find_order_by_external_id(SHOP, "SO-1001")["id"] == created["id"]
    assert client.find_order_by_external_id(SHOP, "SO-missing") is None
    assert client.send_to_production(SHOP, created["id"])["status"] == "sending-to-production"
    with pytest.raises(ProviderError) as caught:
        client.cancel_order(SHOP, created["id"])
    assert caught.value.code == 8502 and caught.value.details["message"] == "Operation failed."


def test_send_to_production_while_costing_is_operation_failed(fake, timeline) -> None:
    fake.costing_seconds = 30.0
    with make_client(fake, timeline) as client:
        created = client.create_order(SHOP, order_body(fake))
        with pytest.raises(ProviderError) as caught:
            client.send_to_production(SHOP, created["id"])
        assert caught.value.status == 400 and caught.value.code == 8502
        timeline.now += 30.0  # costing done: the order is on hold and may go
        assert client.send_to_production(SHOP, created["id"])["status"] == "sending-to-production"


def test_shipping_cost_is_quoted_in_cents(client, fake) -> None:
    body = order_body(fake)
    quote = client.shipping_cost(SHOP, {"line_items": body["line_items"], "address_to": ADDRESS})
    assert set(quote) == {"standard", "express", "priority", "printify_express", "economy"}
    assert all(isinstance(cents, int) for cents in quote.values())


# ------------------------------------------------------------------ typed errors


def test_malformed_json_is_provider_unavailable(client, fake) -> None:
    fake.answer_malformed(path="/shops.json")
    with pytest.raises(ProviderUnavailable) as caught:
        client.list_shops()
    assert caught.value.details == {"body": '{"data": [{"id": "truncated"'}
    assert len(fake.requests) == 1


def test_a_wrong_token_is_unauthorized_with_the_body_and_not_retried(fake, timeline) -> None:
    with make_client(fake, timeline, token="wrong") as client, pytest.raises(ProviderUnauthorized) as caught:
        client.list_shops()
    assert caught.value.status == 401 and caught.value.details == {"message": "Unauthenticated."}
    assert len(fake.requests) == 1 and timeline.sleeps == []


def test_an_unknown_product_is_not_found_with_the_body(client) -> None:
    with pytest.raises(ProviderNotFound) as caught:
        client.get_product(SHOP, "f" * 24)
    assert caught.value.details == {"error": "Not found"}


def test_products_are_created_published_and_deleted(client) -> None:
    variants = client.catalog_variants(384, 29)["variants"][:2]
    product = client.create_product(SHOP, {
        "title": "New Tee", "description": "<p>Soft</p>", "blueprint_id": 384, "print_provider_id": 29,
        "variants": [{"id": v["id"], "price": 2599, "is_enabled": True} for v in variants],
        "print_areas": [{"variant_ids": [v["id"] for v in variants], "placeholders": [{"position": "front", "images": [
            {"id": client.upload_image("art.png", contents="aGVsbG8=")["id"], "x": 0.5, "y": 0.5, "scale": 1,
             "angle": 0}]}]}],
    })
    assert [v["price"] for v in product["variants"]] == [2599, 2599] and product["visible"] is False
    assert client.update_product(SHOP, product["id"], {"title": "Newer Tee"})["title"] == "Newer Tee"
    client.publish_product(SHOP, product["id"])
    with pytest.raises(ProviderError) as caught:
        client.update_product(SHOP, product["id"], {"title": "Locked"})
    assert caught.value.code == 8252 and caught.value.details["errors"]["reason"] == "Product is disabled for editing"
    client.publishing_succeeded(SHOP, product["id"], {"id": "tee-1", "handle": "https://shop.test/tee-1"})
    assert client.get_product(SHOP, product["id"])["external"] == {"id": "tee-1", "handle": "https://shop.test/tee-1"}
    client.unpublish_product(SHOP, product["id"])
    assert client.delete_product(SHOP, product["id"]) == {}
    with pytest.raises(ProviderNotFound):
        client.get_product(SHOP, product["id"])


def test_the_catalogue_and_uploads_are_read(client) -> None:
    assert 384 in {b["id"] for b in client.list_blueprints()}
    assert client.get_blueprint(384)["title"] == "Unisex Premium T-Shirt"
    assert 29 in {p["id"] for p in client.blueprint_print_providers(384)}
    upload = client.upload_image("art.png", contents="aGVsbG8=")
    assert upload["file_name"] == "art.png" and upload["mime_type"] == "image/png"


# ------------------------------------------------------------------ webhooks


def test_the_fake_delivers_webhooks_signed_over_the_raw_body(fake) -> None:
    received: list[tuple[bytes, str]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((self.rfile.read(int(self.headers["Content-Length"])),
                             self.headers.get("X-Pfy-Signature", "")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    receiver = HTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{receiver.server_address[1]}/api/printify/webhooks"
        response = fake.deliver_webhook(url, "order:updated", "abc", {"shop_id": SHOP, "status": "fulfilled"},
                                        secret="s3cret")
    finally:
        receiver.shutdown()
        receiver.server_close()
    assert response.status_code == 200
    body, signature = received[0]
    assert signature == "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    event = json.loads(body)
    assert event["type"] == "order:updated"
    assert event["resource"] == {"id": "abc", "type": "order", "data": {"shop_id": SHOP, "status": "fulfilled"}}
