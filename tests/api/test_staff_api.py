"""Staff accounts over HTTP: the owner from the settings, invitations, roles, disabling, passwords."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.api.app import create_api
from storefront.config import DEFAULT_ADMIN_PASSWORD, Settings
from storefront.models import ActivityEntry, MailMessage, StaffAccount
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.staff import roles
from storefront.services.staff.accounts import LINK_INVALID
from storefront.services.staff.passwords import PASSWORD_TOO_COMMON, PASSWORD_TOO_SHORT
from tests.api.staff import PASSWORD, as_owner, owner_headers
from tests.ordering import FakeClock, seed_demo

SAM_PASSWORD = "sam's own long passphrase"


@pytest.fixture
def client(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    provider = seed_demo(engine, tmp_path)
    app = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=FakeClock())
    return TestClient(app)


def _invite(client: TestClient, owner: dict[str, str], username: str = "sam", role: str = "staff") -> str:
    response = client.post(
        "/api/admin/staff", json={"email": f"{username}@example.com", "username": username, "role": role},
        headers=owner,
    )
    assert response.status_code == 201, response.text
    assert response.json()["account"]["status"] == "invited"
    return str(parse_qs(urlparse(response.json()["link"]).query)["token"][0])


def _sign_in(client: TestClient, name: str, password: str) -> dict[str, str]:
    response = client.post("/api/admin/login", json={"username": name, "password": password})
    assert response.status_code == 200, response.text
    return {"x-admin-token": response.json()["token"]}


def _staff_member(client: TestClient, role: str = "staff", username: str = "sam") -> dict[str, str]:
    token = _invite(client, owner_headers(client), username, role)
    assert client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).status_code == 200
    return _sign_in(client, username, SAM_PASSWORD)


def test_the_owner_from_the_settings_is_stored_with_an_argon2id_hash(client: TestClient, engine: Engine) -> None:
    owner_headers(client)
    with Session(engine) as session:
        owner = session.exec(select(StaffAccount).where(col(StaffAccount.role) == roles.OWNER)).one()
    assert owner.username == "owner"
    assert owner.password_hash is not None and owner.password_hash.startswith("$argon2id$")
    assert PASSWORD not in owner.password_hash


def test_an_invited_person_sets_a_password_and_signs_in_by_username_or_email(
    client: TestClient, engine: Engine
) -> None:
    token = _invite(client, owner_headers(client))
    with Session(engine) as session:
        mail = session.exec(select(MailMessage).where(col(MailMessage.kind) == "staff-invite")).one()
    assert mail.recipient == "sam@example.com" and token in mail.text_body.replace("%7E", "~")
    assert client.post("/api/admin/login", json={"username": "sam", "password": SAM_PASSWORD}).status_code == 401

    answer = client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD})
    assert answer.status_code == 200, answer.text

    by_name = _sign_in(client, "sam", SAM_PASSWORD)
    session_answer = client.get("/api/admin/session", headers=by_name).json()
    assert (session_answer["username"], session_answer["role"]) == ("sam", "staff")
    _sign_in(client, "SAM@example.com", SAM_PASSWORD)
    with Session(engine) as session:
        stored = session.exec(select(StaffAccount).where(col(StaffAccount.username) == "sam")).one()
    assert stored.password_hash is not None and stored.password_hash.startswith("$argon2id$")


def test_an_invitation_link_works_once(client: TestClient) -> None:
    token = _invite(client, owner_headers(client))
    assert client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).status_code == 200
    again = client.post("/api/staff/set-password", json={"token": token, "password": "another long passphrase"})
    assert again.status_code == 422 and again.json()["error"] == LINK_INVALID
    forged = client.post("/api/staff/set-password", json={"token": token[:-2] + "xx", "password": SAM_PASSWORD})
    assert forged.status_code == 422


@pytest.mark.parametrize(
    ("password", "message"), [("short1", PASSWORD_TOO_SHORT), ("password123", PASSWORD_TOO_COMMON)]
)
def test_a_weak_password_is_refused_and_the_link_kept(client: TestClient, password: str, message: str) -> None:
    token = _invite(client, owner_headers(client))
    refused = client.post("/api/staff/set-password", json={"token": token, "password": password})
    assert refused.status_code == 422 and refused.json()["details"] == {"password": message}
    assert client.post("/api/staff/set-password", json={"token": token, "password": SAM_PASSWORD}).status_code == 200


def test_staff_cannot_refund_or_manage_accounts_but_work_the_orders(client: TestClient) -> None:
    staff = _staff_member(client)
    assert client.get("/api/orders", headers=staff).status_code == 200
    refund = client.post("/api/orders/SF-000001/refund", json={}, headers=staff)
    assert refund.status_code == 403 and refund.json()["error"] == roles.NOT_ALLOWED
    assert client.post("/api/orders/SF-000001/cancel", headers=staff).status_code == 403
    assert client.get("/api/admin/staff", headers=staff).status_code == 403
    # The owner gets past the role check to the order itself.
    assert client.post("/api/orders/SF-000001/refund", json={}, headers=owner_headers(client)).status_code == 404


def test_fulfilment_sees_orders_only(client: TestClient) -> None:
    packer = _staff_member(client, role="fulfilment", username="pat")
    assert client.get("/api/orders", headers=packer).status_code == 200
    assert client.put("/api/products/p1/update", json={"title": "x"}, headers=packer).status_code == 403
    assert client.post("/api/events", json={}, headers=packer).status_code == 403


def test_a_disabled_accounts_open_session_stops_at_its_next_call(client: TestClient) -> None:
    staff = _staff_member(client)
    owner = owner_headers(client)
    assert client.get("/api/orders", headers=staff).status_code == 200
    sam = next(row for row in client.get("/api/admin/staff", headers=owner).json()["data"] if row["username"] == "sam")
    disabled = client.post(f"/api/admin/staff/{sam['id']}/disable", headers=owner)
    assert disabled.status_code == 200 and disabled.json()["account"]["status"] == "disabled"

    assert client.get("/api/orders", headers=staff).status_code == 401
    assert client.post("/api/admin/login", json={"username": "sam", "password": SAM_PASSWORD}).status_code == 401


def test_a_removed_account_signs_in_no_more(client: TestClient) -> None:
    staff = _staff_member(client)
    owner = owner_headers(client)
    sam = next(row for row in client.get("/api/admin/staff", headers=owner).json()["data"] if row["username"] == "sam")
    assert client.delete(f"/api/admin/staff/{sam['id']}", headers=owner).status_code == 200
    assert client.get("/api/orders", headers=staff).status_code == 401
    assert client.post("/api/admin/login", json={"username": "sam", "password": SAM_PASSWORD}).status_code == 401


def test_the_owner_cannot_be_disabled(client: TestClient) -> None:
    owner = owner_headers(client)
    me = next(row for row in client.get("/api/admin/staff", headers=owner).json()["data"] if row["role"] == "owner")
    assert client.post(f"/api/admin/staff/{me['id']}/disable", headers=owner).status_code == 403


def test_changing_the_password_needs_the_current_one(client: TestClient) -> None:
    owner = owner_headers(client)
    wrong = client.post("/api/admin/password", json={"current": "nope", "new": "a brand new passphrase"}, headers=owner)
    assert wrong.status_code == 422
    changed = client.post(
        "/api/admin/password", json={"current": PASSWORD, "new": "a brand new passphrase"}, headers=owner
    )
    assert changed.status_code == 200, changed.text
    assert client.post("/api/admin/login", json={"username": "owner", "password": PASSWORD}).status_code == 401
    _sign_in(client, "owner", "a brand new passphrase")


def test_the_login_hint_shows_the_default_credentials_only_until_the_owner_changes_the_password(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    monkeypatch.delenv("ADMIN_USERNAME", raising=False)
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    app = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=seed_demo(engine, tmp_path))
    client, auth = TestClient(app), app.state.services.auth
    assert auth.default_credentials() == ("admin", DEFAULT_ADMIN_PASSWORD)  # before the owner's account exists
    owner = _sign_in(client, "admin", DEFAULT_ADMIN_PASSWORD)
    assert auth.default_credentials() == ("admin", DEFAULT_ADMIN_PASSWORD)

    changed = client.post(
        "/api/admin/password", json={"current": DEFAULT_ADMIN_PASSWORD, "new": "a brand new passphrase"}, headers=owner
    )
    assert changed.status_code == 200, changed.text
    assert auth.default_credentials() is None
    old = client.post("/api/admin/login", json={"username": "admin", "password": DEFAULT_ADMIN_PASSWORD})
    assert old.status_code == 401


def test_the_login_hint_never_shows_a_password_set_in_the_settings(client: TestClient) -> None:
    owner_headers(client)
    assert client.app.state.services.auth.default_credentials() is None  # type: ignore[attr-defined]


def test_a_reset_link_is_emailed_and_sets_a_new_password(client: TestClient, engine: Engine) -> None:
    _staff_member(client)
    unknown = client.post("/api/staff/reset-password", json={"username": "nobody@example.com"})
    answer = client.post("/api/staff/reset-password", json={"username": "sam@example.com"})
    assert answer.status_code == unknown.status_code == 200 and answer.json() == unknown.json()
    with Session(engine) as session:
        mail = session.exec(select(MailMessage).where(col(MailMessage.kind) == "staff-reset")).one()
    match = re.search(r"token=(\S+)", mail.text_body)
    assert match is not None
    token = parse_qs(f"token={match.group(1)}")["token"][0]
    reset = client.post("/api/staff/set-password", json={"token": token, "password": "reset long passphrase"})
    assert reset.status_code == 200
    _sign_in(client, "sam", "reset long passphrase")


def test_each_sign_in_is_in_the_activity_log(client: TestClient, engine: Engine) -> None:
    owner_headers(client)
    with Session(engine) as session:
        rows = session.exec(select(ActivityEntry).where(col(ActivityEntry.action) == "sign-in")).all()
    assert [(row.actor, row.client) for row in rows] == [("owner", "testclient")]


def test_every_admin_route_has_a_permission_in_the_roles_table(client: TestClient) -> None:
    public = {("POST", "/api/admin/login"), ("POST", "/api/staff/set-password"), ("POST", "/api/staff/reset-password")}
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    admin_paths = {
        (method.upper(), path) for path, methods in paths.items() for method in methods
        if path.startswith("/api/admin") and (method.upper(), path) not in public
    }
    assert admin_paths <= set(roles.ROUTE_PERMISSIONS)


def test_reset_requests_are_limited_per_address(client: TestClient) -> None:
    from storefront.container import RESETS_PER_MINUTE, TOO_MANY_RESETS

    for _ in range(RESETS_PER_MINUTE):
        assert client.post("/api/staff/reset-password", json={"username": "nobody"}).status_code == 200
    refused = client.post("/api/staff/reset-password", json={"username": "nobody"})
    assert refused.status_code == 429 and refused.json()["error"] == TOO_MANY_RESETS
    # An empty request counts too (limits count before they decide).
    assert client.post("/api/staff/reset-password", json={"username": ""}).status_code == 429
