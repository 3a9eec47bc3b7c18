"""Two-factor sign-in over HTTP: enrolment with a QR code, then signing in with a code or a
recovery code, each of which works once."""

from __future__ import annotations

from pathlib import Path

import pyotp
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import StaffAccount
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.staff.two_factor import CODE_REQUIRED, INVALID_CODE
from tests.api.staff import PASSWORD, USERNAME, as_owner, owner_headers
from tests.ordering import FakeClock, seed_demo

LOGIN = "/api/admin/login"


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


def _enrol(client: TestClient, clock: FakeClock) -> tuple[pyotp.TOTP, list[str]]:
    owner = owner_headers(client)
    enrolment = client.post("/api/admin/two-factor/enrol", headers=owner)
    assert enrolment.status_code == 200, enrolment.text
    body = enrolment.json()
    assert body["uri"].startswith("otpauth://totp/") and f"secret={body['secret']}" in body["uri"]
    assert body["qr"].startswith("data:image/svg+xml")
    totp = pyotp.TOTP(body["secret"])
    wrong = client.post("/api/admin/two-factor/confirm", json={"code": "000000"}, headers=owner)
    assert wrong.status_code == 422 and wrong.json()["error"] == INVALID_CODE
    confirmed = client.post("/api/admin/two-factor/confirm", json={"code": totp.at(clock())}, headers=owner)
    assert confirmed.status_code == 200, confirmed.text
    codes = confirmed.json()["recoveryCodes"]
    assert len(codes) == len(set(codes)) == 10
    return totp, codes


def _login(client: TestClient, code: str | None = None):  # type: ignore[no-untyped-def]
    body = {"username": USERNAME, "password": PASSWORD, **({"code": code} if code is not None else {})}
    return client.post(LOGIN, json=body)


def test_after_enrolment_the_password_alone_asks_for_a_code(client: TestClient, clock: FakeClock) -> None:
    _enrol(client, clock)
    clock.advance(30)
    asked = _login(client)
    assert asked.status_code == 401
    assert asked.json()["details"] == {"code": CODE_REQUIRED}


def test_a_code_signs_in_once(client: TestClient, clock: FakeClock) -> None:
    totp, _codes = _enrol(client, clock)
    clock.advance(30)
    code = totp.at(clock())
    assert _login(client, code).status_code == 200
    again = _login(client, code)
    assert again.status_code == 401 and again.json()["details"] == {"code": INVALID_CODE}
    clock.advance(30)
    assert _login(client, totp.at(clock())).status_code == 200


def test_the_enrolment_code_cannot_sign_in_again(client: TestClient, clock: FakeClock) -> None:
    totp, _codes = _enrol(client, clock)
    assert _login(client, totp.at(clock())).status_code == 401


def test_a_recovery_code_signs_in_once(client: TestClient, clock: FakeClock, engine: Engine) -> None:
    _totp, codes = _enrol(client, clock)
    assert _login(client, codes[3]).status_code == 200
    assert _login(client, codes[3]).status_code == 401
    with Session(engine) as session:
        owner = session.exec(select(StaffAccount).where(col(StaffAccount.username) == USERNAME)).one()
    assert codes[3] not in owner.recovery_codes_json
    assert client.get("/api/admin/two-factor", headers=owner_headers_with(client, codes[4])).json()[
        "recoveryCodesLeft"
    ] == 8


def test_a_wrong_password_with_a_right_code_is_refused(client: TestClient, clock: FakeClock) -> None:
    totp, _codes = _enrol(client, clock)
    clock.advance(30)
    refused = client.post(LOGIN, json={"username": USERNAME, "password": "nope", "code": totp.at(clock())})
    assert refused.status_code == 401 and refused.json()["message"] == "Invalid username or password"


def owner_headers_with(client: TestClient, code: str) -> dict[str, str]:
    response = _login(client, code)
    assert response.status_code == 200, response.text
    return {"x-admin-token": response.json()["token"]}


def test_in_production_the_owner_is_asked_to_enrol_until_it_is_on(client: TestClient, engine: Engine) -> None:
    from storefront.services.staff.two_factor import TwoFactor
    from storefront.wiring import session_factory

    owner_headers(client)  # the owner's account is made at the first sign-in
    assert client.get("/api/admin/two-factor", headers=owner_headers(client)).json()["due"] is False
    production = TwoFactor(session_factory(engine), production=True)
    assert production.status(USERNAME)["due"] is True


def test_the_owner_can_require_it_for_everyone(client: TestClient, clock: FakeClock) -> None:
    owner = owner_headers(client)
    assert client.post("/api/admin/two-factor/policy", json={"required": True}, headers=owner).status_code == 200
    assert client.get("/api/admin/two-factor", headers=owner).json()["due"] is True
    _enrol(client, clock)
    clock.advance(30)
    assert client.get("/api/admin/two-factor", headers=owner).json() == {
        "enabled": True, "recoveryCodesLeft": 10, "required": True, "due": False,
    }
