"""'Require two-factor sign-in for everyone' holds on the server: while it is due for a person, every
admin route but setting it up (status, enrol, confirm), changing the password, the session and
signing out answers 403, and enrolling lifts it at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pyotp
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.admin.auth import AdminAuth
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.errors import ForbiddenError
from storefront.services.staff import roles
from storefront.services.staff.two_factor import SET_UP_FIRST
from storefront.wiring import session_factory
from tests.api.staff import PASSWORD, USERNAME, as_owner, owner_headers
from tests.ordering import FakeClock, seed_demo

SAM_PASSWORD = "sam's own long passphrase"
POLICY = "/api/admin/two-factor/policy"
ORDERS = "/api/orders"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(engine: Engine, tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    provider = seed_demo(engine, tmp_path)
    return TestClient(
        create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock)
    )


def _staff_member(client: TestClient, owner: dict[str, str]) -> dict[str, str]:
    """Sam, a staff member with a password and no two-factor sign-in, signed in."""
    invited = client.post(
        "/api/admin/staff", json={"email": "sam@example.com", "username": "sam", "role": "staff"}, headers=owner
    )
    assert invited.status_code == 201, invited.text
    token = parse_qs(urlparse(invited.json()["link"]).query)["token"][0]
    assert client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).status_code == 200
    signed_in = client.post("/api/admin/login", json={"username": "sam", "password": SAM_PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    return {"x-admin-token": signed_in.json()["token"]}


def _enrol(client: TestClient, headers: dict[str, str], clock: FakeClock) -> list[str]:
    """Set up two-factor sign-in for the person of `headers`; their recovery codes."""
    enrolment = client.post("/api/admin/two-factor/enrol", headers=headers)
    assert enrolment.status_code == 200, enrolment.text
    code = pyotp.TOTP(enrolment.json()["secret"]).at(clock())
    confirmed = client.post("/api/admin/two-factor/confirm", json={"code": code}, headers=headers)
    assert confirmed.status_code == 200, confirmed.text
    return list(confirmed.json()["recoveryCodes"])


def _held(response) -> bool:  # type: ignore[no-untyped-def]
    return bool(response.status_code == 403 and response.json()["error"] == SET_UP_FIRST)


def test_while_required_a_staff_member_without_it_can_only_set_it_up(client: TestClient, clock: FakeClock) -> None:
    owner = owner_headers(client)
    sam = _staff_member(client, owner)
    assert client.get(ORDERS, headers=sam).status_code == 200
    assert client.post(POLICY, json={"required": True}, headers=owner).status_code == 200

    refused = client.get(ORDERS, headers=sam)
    assert _held(refused) and refused.json()["details"] == {"twoFactorDue": True}
    assert _held(client.put("/api/products/p1/update", json={"title": "x"}, headers=sam))
    assert _held(client.get("/api/events/admin/all", headers=sam))
    status = client.get("/api/admin/two-factor", headers=sam)
    assert status.status_code == 200 and status.json()["due"] is True
    session = client.get("/api/admin/session", headers=sam)
    assert session.status_code == 200 and session.json()["twoFactorDue"] is True

    _enrol(client, sam, clock)
    # The same session, at once.
    assert client.get(ORDERS, headers=sam).status_code == 200
    assert client.get("/api/admin/session", headers=sam).json()["twoFactorDue"] is False


def test_while_it_is_due_the_password_can_be_changed_and_the_session_ended(client: TestClient) -> None:
    owner = owner_headers(client)
    sam = _staff_member(client, owner)
    assert client.post(POLICY, json={"required": True}, headers=owner).status_code == 200
    changed = client.post(
        "/api/admin/password", json={"current": SAM_PASSWORD, "new": "a brand new passphrase"}, headers=sam
    )
    assert changed.status_code == 200, changed.text
    assert client.post("/api/admin/logout", headers=sam).status_code == 200
    assert client.get("/api/admin/two-factor", headers=sam).status_code == 401


def test_the_owner_who_requires_it_without_it_is_held_too_until_enrolled(client: TestClient, clock: FakeClock) -> None:
    owner = owner_headers(client)
    sam = _staff_member(client, owner)
    assert client.post(POLICY, json={"required": True}, headers=owner).status_code == 200
    assert _held(client.get("/api/admin/staff", headers=owner))
    assert _held(client.post(POLICY, json={"required": False}, headers=owner))

    _enrol(client, owner, clock)
    assert client.get("/api/admin/staff", headers=owner).status_code == 200
    assert _held(client.get(ORDERS, headers=sam))
    # Policy off: everyone works again.
    assert client.post(POLICY, json={"required": False}, headers=owner).status_code == 200
    assert client.get(ORDERS, headers=sam).status_code == 200
    assert client.get("/api/admin/two-factor", headers=sam).json()["due"] is False


def test_a_staff_member_cannot_change_the_policy(client: TestClient) -> None:
    owner = owner_headers(client)
    sam = _staff_member(client, owner)
    for required in (True, False):
        refused = client.post(POLICY, json={"required": required}, headers=sam)
        assert refused.status_code == 403 and refused.json()["error"] == roles.NOT_ALLOWED
    assert client.get("/api/admin/two-factor", headers=owner).json()["required"] is False
    assert client.get(ORDERS, headers=sam).status_code == 200


def test_in_production_the_owner_without_it_is_held_until_enrolled(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_owner(monkeypatch)
    production = Settings().model_copy(update={"store_env": "production"})
    auth = AdminAuth(session_factory(engine), production)
    token = asyncio.run(auth.login(USERNAME, PASSWORD, "testclient"))
    signed_in = auth.verify(token)
    assert signed_in.two_factor_due is True
    assert auth.authorize(signed_in, roles.SIGNED_IN) is signed_in
    with pytest.raises(ForbiddenError, match=SET_UP_FIRST):
        auth.authorize(signed_in, roles.ORDERS)
    development = AdminAuth(session_factory(engine), Settings())
    assert development.verify(token).two_factor_due is False

