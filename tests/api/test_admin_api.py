"""Admin sign-in over HTTP, and every admin route refusing anything but a live session."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select, update

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import AdminSession, utcnow
from storefront.services.admin.auth import FAILED_LOGINS_PER_MINUTE, MAX_DELAY_SECONDS, AdminAuth
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import FakeClock, RecordedSleeps, order_payload, pick, seed_demo

PASSWORD = "correct horse battery"
#: Routes anyone may call; every other route of the app is an admin route.
PUBLIC_ROUTES = {
    ("POST", "/api/admin/login"),
    # Opened only by the token of an emailed single-use link.
    ("POST", "/api/staff/set-password"),
    # Answers the same whether an account matches; limited per address.
    ("POST", "/api/staff/reset-password"),
    ("GET", "/api/events"),
    ("POST", "/api/printify/orders"),
    ("POST", "/api/printify/orders/{order_id}/process-payment"),
    # Opened by the order's token; pays only what Stripe says was paid.
    ("POST", "/api/printify/orders/{order_id}/confirm-payment"),
    ("GET", "/api/orders/{order_id}/status"),
    ("POST", "/api/orders/lookup"),
    ("GET", "/api/orders/{order_id}"),
    ("POST", "/api/payments/validate-card"),
    ("GET", "/api/printify/shops"),
    ("GET", "/api/printify/status"),
    ("POST", "/api/printify/refresh-config"),
    # Public, but only deliveries signed with PRINTIFY_WEBHOOK_SECRET are applied.
    ("POST", "/api/printify/webhooks"),
    # Public, but only events signed with STRIPE_WEBHOOK_SECRET are applied.
    ("POST", "/api/stripe/webhooks"),
    ("GET", "/api/products/category/{category}"),
    ("GET", "/api/shopify/test"),
    ("GET", "/api/shopify/products"),
    ("GET", "/api/shopify/products/{product_id}"),
    ("GET", "/api/shopify/collections"),
    # The try-on page is for anonymous shoppers; its API is limited per address instead.
    ("POST", "/api/try-on"),
    # A mail program's one-click unsubscribe; only links signed for the address are applied.
    ("POST", "/api/newsletter/unsubscribe"),
}


@pytest.fixture
def client(engine: Engine, tmp_path: Path, sleeps: RecordedSleeps, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    provider = seed_demo(engine, tmp_path)
    # A pinned clock: the login throttle counts per minute, and a real minute may turn mid-test.
    app = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=FakeClock())
    services = app.state.services
    # The sign-in slowdown is recorded rather than waited out.
    services.auth = AdminAuth(services.session_factory, services.settings, services.clock, sleep=sleeps)
    return TestClient(app)


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


def _from(client: TestClient, address: str) -> TestClient:
    """A client of the same app calling from another address."""
    return TestClient(client.app, client=(address, 50000))


def _login(client: TestClient) -> str:
    response = client.post("/api/admin/login", json={"username": "owner", "password": PASSWORD})
    assert response.status_code == 200, response.text
    return response.json()["token"]


def _admin_routes(client: TestClient) -> list[tuple[str, str]]:
    """Every API route of the app (from its OpenAPI document, which lists them all) but the public ones."""
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    routes = [(method.upper(), path) for path, methods in paths.items() for method in methods]
    return [route for route in routes if route not in PUBLIC_ROUTES]


def _call(client: TestClient, method: str, path: str, token: str | None):  # type: ignore[no-untyped-def]
    url = re.sub(r"\{[^}]+\}", "1", path)
    headers = {"x-admin-token": token} if token is not None else {}
    return client.request(method, url, headers=headers, json={})


def test_there_are_admin_routes_to_check(client: TestClient) -> None:
    assert ("POST", "/api/admin/logout") in _admin_routes(client)


def test_every_admin_route_refuses_a_missing_or_wrong_token(client: TestClient) -> None:
    for method, path in _admin_routes(client):
        for token in (None, "", "not-a-token"):
            response = _call(client, method, path, token)
            assert response.status_code == 401, (method, path, token, response.text)


def test_every_admin_route_refuses_an_expired_token(client: TestClient, engine: Engine) -> None:
    token = _login(client)
    with Session(engine) as session:
        session.execute(update(AdminSession).values(expires_at=utcnow() - timedelta(seconds=1)))
        session.commit()
    for method, path in _admin_routes(client):
        assert _call(client, method, path, token).status_code == 401, (method, path)


def test_every_admin_route_refuses_a_revoked_token(client: TestClient) -> None:
    token = _login(client)
    assert client.post("/api/admin/logout", headers={"x-admin-token": token}).status_code == 200
    for method, path in _admin_routes(client):
        assert _call(client, method, path, token).status_code == 401, (method, path)


def test_a_live_session_opens_the_admin_routes(client: TestClient) -> None:
    token = _login(client)
    assert client.get("/api/admin/session", headers={"x-admin-token": token}).json()["username"] == "owner"


def test_a_wrong_password_answers_401_with_a_message(client: TestClient) -> None:
    response = client.post("/api/admin/login", json={"username": "owner", "password": "nope"})
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid username or password"


def test_missing_fields_answer_with_the_spec_messages(client: TestClient) -> None:
    response = client.post("/api/admin/login", json={})
    assert response.status_code == 422
    assert response.json()["details"] == {"username": "Username is required", "password": "Password is required"}


def test_failed_logins_from_an_address_are_throttled_with_429(client: TestClient) -> None:
    for _ in range(FAILED_LOGINS_PER_MINUTE):
        assert client.post("/api/admin/login", json={"username": "owner", "password": "nope"}).status_code == 401
    refused = client.post("/api/admin/login", json={"username": "owner", "password": PASSWORD})
    assert refused.status_code == 429
    assert refused.json()["message"] == "Too many failed sign-in attempts. Please wait a minute and try again."
    assert int(refused.headers["Retry-After"]) >= 1
    assert (
        _from(client, "10.9.9.9").post("/api/admin/login", json={"username": "owner", "password": PASSWORD}).status_code
        == 200
    )


def test_the_right_password_signs_in_after_20_wrong_ones_from_other_addresses(
    client: TestClient, sleeps: RecordedSleeps
) -> None:
    for n in range(20):
        wrong = _from(client, f"10.0.0.{n}").post("/api/admin/login", json={"username": "owner", "password": "nope"})
        assert wrong.status_code == 401
    signed_in = _from(client, "10.0.1.1").post("/api/admin/login", json={"username": "owner", "password": PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    assert client.get("/api/admin/session", headers={"x-admin-token": signed_in.json()["token"]}).status_code == 200
    assert sleeps.delays[-1] == MAX_DELAY_SECONDS  # slowed down, not refused


def test_parallel_wrong_guesses_get_at_most_the_limit_checked(client: TestClient) -> None:
    with client, ThreadPoolExecutor(max_workers=40) as pool:
        statuses = list(
            pool.map(
                lambda _: client.post("/api/admin/login", json={"username": "owner", "password": "nope"}).status_code,
                range(40),
            )
        )
    assert statuses.count(401) == FAILED_LOGINS_PER_MINUTE
    assert statuses.count(429) == 40 - FAILED_LOGINS_PER_MINUTE


def test_an_admin_session_opens_any_orders_status(client: TestClient, engine: Engine) -> None:
    created = client.post("/api/printify/orders", json=order_payload((pick(engine), 1)))
    number = created.json()["order"]["id"]
    assert client.get(f"/api/orders/{number}/status").status_code == 404
    token = _login(client)
    response = client.get(f"/api/orders/{number}/status", headers={"x-admin-token": token})
    assert (response.status_code, response.json()["id"]) == (200, number)
    assert client.get(f"/api/orders/{number}/status", headers={"x-admin-token": "wrong"}).status_code == 401


def test_the_session_table_holds_no_token(client: TestClient, engine: Engine) -> None:
    token = _login(client)
    with Session(engine) as session:
        assert all(token not in row.token_hash for row in session.exec(select(AdminSession)).all())


def test_the_docs_live_under_api_only(client: TestClient) -> None:
    assert client.get("/api/docs").status_code == 200
    assert client.get("/redoc").status_code == 404
    assert client.get("/docs/oauth2-redirect").status_code == 404
