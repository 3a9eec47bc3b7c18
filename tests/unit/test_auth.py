"""Admin sign-in, sessions and throttling, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.config import Settings
from storefront.models import AdminSession
from storefront.services.admin.auth import (
    INVALID_CREDENTIALS,
    PASSWORD_REQUIRED,
    SESSION_LIFETIME,
    TOO_MANY_FAILURES,
    USERNAME_REQUIRED,
    AdminAuth,
    PasswordHash,
)
from storefront.services.platform.errors import TooManyRequestsError, UnauthorizedError, ValidationError
from storefront.wiring import session_factory
from tests.ordering import FakeClock

PASSWORD = "correct horse battery"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def auth(engine: Engine, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> AdminAuth:
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    return AdminAuth(session_factory(engine), Settings(), clock)


def test_the_right_credentials_open_a_session(auth: AdminAuth) -> None:
    token = auth.login("owner", PASSWORD, "10.0.0.1")
    assert auth.verify(token).username == "owner"


@pytest.mark.parametrize(("username", "password"), [("owner", "wrong"), ("other", PASSWORD), ("Owner", PASSWORD)])
def test_wrong_credentials_are_refused(auth: AdminAuth, username: str, password: str) -> None:
    with pytest.raises(UnauthorizedError) as refused:
        auth.login(username, password, "10.0.0.1")
    assert refused.value.message == INVALID_CREDENTIALS


def test_missing_fields_get_the_spec_messages(auth: AdminAuth) -> None:
    with pytest.raises(ValidationError) as refused:
        auth.login("", None, "10.0.0.1")
    assert refused.value.field_errors == {"username": USERNAME_REQUIRED, "password": PASSWORD_REQUIRED}


def test_the_password_is_kept_only_as_a_salted_hash() -> None:
    first, second = PasswordHash.of(PASSWORD), PasswordHash.of(PASSWORD)
    assert PASSWORD.encode() not in first.digest and first.digest != second.digest
    assert first.matches(PASSWORD) and not first.matches(PASSWORD + "!")


def test_the_token_is_stored_only_as_a_hash(auth: AdminAuth, engine: Engine) -> None:
    token = auth.login("owner", PASSWORD)
    with Session(engine) as session:
        row = session.exec(select(AdminSession)).one()
    assert token not in row.token_hash and len(token) >= 43


def test_a_session_expires_after_twelve_hours(auth: AdminAuth, clock: FakeClock) -> None:
    token = auth.login("owner", PASSWORD)
    clock.advance((SESSION_LIFETIME - timedelta(seconds=1)).total_seconds())
    auth.verify(token)
    clock.advance(1)
    with pytest.raises(UnauthorizedError):
        auth.verify(token)


def test_logout_revokes_the_session(auth: AdminAuth) -> None:
    token = auth.login("owner", PASSWORD)
    other = auth.login("owner", PASSWORD)
    auth.logout(token)
    with pytest.raises(UnauthorizedError):
        auth.verify(token)
    auth.verify(other)


@pytest.mark.parametrize("token", [None, "", "nope", "x" * 1000, 42])
def test_bad_tokens_are_refused(auth: AdminAuth, token: object) -> None:
    with pytest.raises(UnauthorizedError):
        auth.verify(token)


def test_more_than_five_failures_a_minute_for_a_username_are_refused(auth: AdminAuth, clock: FakeClock) -> None:
    for n in range(5):
        with pytest.raises(UnauthorizedError):
            auth.login("owner", "wrong", f"10.0.0.{n}")
    with pytest.raises(TooManyRequestsError) as refused:
        auth.login("owner", PASSWORD, "10.0.0.99")  # even the right password waits
    assert refused.value.message == TOO_MANY_FAILURES
    clock.advance(60)
    assert auth.login("owner", PASSWORD, "10.0.0.99")


def test_more_than_five_failures_a_minute_from_an_address_are_refused(auth: AdminAuth) -> None:
    for n in range(5):
        with pytest.raises(UnauthorizedError):
            auth.login(f"guess{n}", "wrong", "10.0.0.1")
    with pytest.raises(TooManyRequestsError):
        auth.login("owner", PASSWORD, "10.0.0.1")
    assert auth.login("owner", PASSWORD, "10.0.0.2")
