"""/metrics (api/metrics.py): Prometheus' text format, the order just placed and paid among the
figures, answered only to METRICS_ALLOWED_NETWORKS or with METRICS_TOKEN; calls to the print
provider counted with their latency and errors; LOG_FORMAT=json lines, still masked."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.api.metrics import METRICS_REFUSED
from storefront.config import Settings
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.json_logs import JsonLines
from storefront.services.platform.log_redaction import REDACTED, install
from tests.fakes.printify_server import FakePrintifyServer
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo
from tests.unit.printify.test_printify_client import SHOP, FakeTimeline, make_client

ORDERS = "/api/printify/orders"
TOKEN = "scrape-token-0123456789"


def _api(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    provider = seed_demo(engine, tmp_path)
    return create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider)


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_show_the_order_just_placed_and_paid(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = TestClient(_api(engine, tmp_path, monkeypatch), client=("127.0.0.1", 50000))
    placed = client.post(ORDERS, json=order_payload((pick(engine), 1)), headers={"Idempotency-Key": "k1"}).json()
    client.post(ORDERS, json=order_payload((pick(engine), 2)), headers={"Idempotency-Key": "k2"})
    paid = client.post(
        f"{ORDERS}/{placed['order']['id']}/process-payment",
        json={
            "paymentId": "pay_1700000000000_abc123",
            "shopId": "store",
            "paymentMethod": "card",
            "cardData": GOOD_CARD,
        },
        headers={"X-Order-Token": placed["accessToken"]},
    )
    assert paid.status_code == 200
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    samples = _samples(response.text)
    orders = {labels: value for (name, labels), value in samples.items() if name == "storefront_orders"}
    assert sum(orders.values()) == 2
    assert orders[(("gateway", "test"), ("payment_status", "paid"), ("status", "processing"))] == 1
    assert orders[(("gateway", "test"), ("payment_status", "pending"), ("status", "pending"))] == 1
    assert samples[("storefront_payment_attempts", (("status", "approved"),))] == 1
    assert samples[("storefront_outbox_waiting_jobs", (("kind", "send_order"),))] == 1
    assert samples[("storefront_mail_messages", (("state", "waiting"),))] >= 1
    assert ("storefront_websocket_connections", ()) in samples


def test_metrics_are_refused_to_other_addresses_without_the_token(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = TestClient(_api(engine, tmp_path, monkeypatch), client=("203.0.113.9", 50000))
    refused = client.get("/metrics")
    assert (refused.status_code, refused.json()) == (403, {"error": METRICS_REFUSED, "details": None})
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_metrics_answer_a_listed_network(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS_ALLOWED_NETWORKS", "10.1.0.0/16")
    api = _api(engine, tmp_path, monkeypatch)
    assert TestClient(api, client=("10.1.4.2", 5)).get("/metrics").status_code == 200
    assert TestClient(api, client=("127.0.0.1", 5)).get("/metrics").status_code == 403


def _count(service: str, outcome: str) -> float:
    return (
        REGISTRY.get_sample_value("storefront_external_call_seconds_count", {"service": service, "outcome": outcome})
        or 0.0
    )


def test_calls_to_the_print_provider_are_timed_and_their_errors_counted() -> None:
    timeline = FakeTimeline()
    ok, errors = _count("printify", "ok"), _count("printify", "error")
    failures = REGISTRY.get_sample_value("storefront_external_call_errors_total", {"service": "printify"}) or 0.0
    with FakePrintifyServer(clock=timeline.clock) as fake, make_client(fake, timeline) as client:
        fake.fail_with(503, times=2, method="GET")
        fake.add_product("Tee")
        client.all_products(SHOP)
    assert (_count("printify", "ok") - ok, _count("printify", "error") - errors) == (1, 2)
    assert REGISTRY.get_sample_value("storefront_external_call_errors_total", {"service": "printify"}) - failures == 2


def test_json_log_lines_are_masked_like_text_lines() -> None:
    install()
    record = logging.getLogger("storefront.test").makeRecord(
        "storefront.test", logging.WARNING, __file__, 1, "payment failed for card=%s", ("4242424242424242",), None
    )
    line = json.loads(JsonLines().format(record))
    assert line["level"] == "WARNING" and line["logger"] == "storefront.test"
    assert line["message"] == f"payment failed for card='{REDACTED}'"
    assert "4242" not in JsonLines().format(record)


MULTIPROCESS_SCRAPE = """
import sys
from storefront.db import make_engine
from storefront.services.operations.metrics import StoreCollector, render_metrics
from storefront.services.platform.metrics import TRYONS
TRYONS.labels("ok").inc()
sys.stdout.write(render_metrics(StoreCollector(make_engine(sys.argv[1]))).decode())
"""


def test_with_a_multiprocess_folder_the_counts_of_every_worker_are_summed(
    tmp_path: Path, sqlite_template: Path
) -> None:
    """PROMETHEUS_MULTIPROC_DIR (read by the client library as a process starts): two workers'
    try-ons, each counted in its own process, are one figure in either worker's answer."""
    shutil.copyfile(sqlite_template, tmp_path / "store.db")
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    answers = [
        subprocess.run([sys.executable, "-c", MULTIPROCESS_SCRAPE, f"sqlite:///{tmp_path / 'store.db'}"],
                       env=env, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert _samples(answers[1])[("storefront_tryons_total", (("outcome", "ok"),))] == 2
    assert _samples(answers[1])[("storefront_outbox_retries", ())] == 0  # and the store's figures beside them
