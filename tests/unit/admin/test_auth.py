"""Admin sign-in, sessions and throttling, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.config import Settings
from storefront.models import AdminSession, RateCounter
from storefront.services.admin.auth import (
    FAILED_LOGINS_PER_MINUTE,
    FREE_USERNAME_FAILURES,
    INVALID_CREDENTIALS,
    LOGINS_PER_ADDRESS_PER_MINUTE,
    MAX_DELAY_SECONDS,
    PASSWORD_REQUIRED,
    SESSION_LIFETIME,
    TOO_MANY_FAILURES,
    USERNAME_REQUIRED,
    AdminAuth,
    PasswordHash,
)
from storefront.services.platform.errors import TooManyRequestsError, UnauthorizedError, ValidationError
from storefront.wiring import session_factory
from tests.ordering import FakeClock, RecordedSleeps

PASSWORD = "correct horse battery"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture
def auth(engine: Engine, clock: FakeClock, sleeps: RecordedSleeps, monkeypatch: pytest.MonkeyPatch) -> AdminAuth:
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    return AdminAuth(session_factory(engine), Settings(), clock, sleep=sleeps)


def login(auth: AdminAuth, username: object, password: object, client: str = "") -> str:
    return asyncio.run(auth.login(username, password, client))


def test_the_right_credentials_open_a_session(auth: AdminAuth) -> None:
    token = login(auth, "owner", PASSWORD, "10.0.0.1")
    assert auth.verify(token).username == "owner"


@pytest.mark.parametrize(("username", "password"), [("owner", "wrong"), ("other", PASSWORD), ("Owner", PASSWORD)])
def test_wrong_credentials_are_refused(auth: AdminAuth, username: str, password: str) -> None:
    with pytest.raises(UnauthorizedError) as refused:
        login(auth, username, password, "10.0.0.1")
    assert refused.value.message == INVALID_CREDENTIALS


def test_missing_fields_get_the_spec_messages(auth: AdminAuth) -> None:
    with pytest.raises(ValidationError) as refused:
        login(auth, "", None, "10.0.0.1")
    assert refused.value.field_errors == {"username": USERNAME_REQUIRED, "password": PASSWORD_REQUIRED}


def test_the_password_is_kept_only_as_a_salted_hash() -> None:
    first, second = PasswordHash.of(PASSWORD), PasswordHash.of(PASSWORD)
    assert PASSWORD.encode() not in first.digest and first.digest != second.digest
    assert first.matches(PASSWORD) and not first.matches(PASSWORD + "!")


def test_the_token_is_stored_only_as_a_hash(auth: AdminAuth, engine: Engine) -> None:
    token = login(auth, "owner", PASSWORD)
    with Session(engine) as session:
        row = session.exec(select(AdminSession)).one()
    assert token not in row.token_hash and len(token) >= 43


def test_a_session_expires_after_twelve_hours(auth: AdminAuth, clock: FakeClock) -> None:
    token = login(auth, "owner", PASSWORD)
    clock.advance((SESSION_LIFETIME - timedelta(seconds=1)).total_seconds())
    auth.verify(token)
    clock.advance(1)
    with pytest.raises(UnauthorizedError):
        auth.verify(token)


def test_logout_revokes_the_session(auth: AdminAuth) -> None:
    token = login(auth, "owner", PASSWORD)
    other = login(auth, "owner", PASSWORD)
    auth.logout(token)
    with pytest.raises(UnauthorizedError):
        auth.verify(token)
    auth.verify(other)


@pytest.mark.parametrize("token", [None, "", "nope", "x" * 1000, 42])
def test_bad_tokens_are_refused(auth: AdminAuth, token: object) -> None:
    with pytest.raises(UnauthorizedError):
        auth.verify(token)


def test_the_right_password_signs_in_after_20_wrong_ones_from_other_addresses(
    auth: AdminAuth, sleeps: RecordedSleeps
) -> None:
    for n in range(20):
        with pytest.raises(UnauthorizedError):
            login(auth, "owner", "wrong", f"10.0.0.{n}")
    token = login(auth, "owner", PASSWORD, "10.0.1.1")
    assert auth.verify(token).username == "owner"
    assert sleeps.delays[-1] == MAX_DELAY_SECONDS  # slowed down, not refused


def test_failures_for_a_username_slow_it_down_more_and_more_up_to_a_cap(
    auth: AdminAuth, sleeps: RecordedSleeps, clock: FakeClock
) -> None:
    for n in range(FREE_USERNAME_FAILURES):
        with pytest.raises(UnauthorizedError):
            login(auth, "owner", "wrong", f"10.0.0.{n}")
    assert sleeps.delays == []  # a few typos cost nothing
    for n in range(8):
        with pytest.raises(UnauthorizedError):
            login(auth, "owner", "wrong", f"10.0.1.{n}")
    assert len(sleeps.delays) == 8
    assert sleeps.delays[:4] == sorted(set(sleeps.delays[:4]))  # each longer than the one before
    assert sleeps.delays == sorted(sleeps.delays) and sleeps.delays[-1] == MAX_DELAY_SECONDS
    with pytest.raises(UnauthorizedError):
        login(auth, "someone", "wrong", "10.0.2.1")  # other usernames are not slowed down
    assert len(sleeps.delays) == 8
    clock.advance(60)
    assert login(auth, "owner", PASSWORD, "10.0.2.2")
    assert len(sleeps.delays) == 8  # a new minute starts afresh


def test_parallel_wrong_guesses_are_all_counted_and_at_most_the_limit_checked(
    auth: AdminAuth, engine: Engine
) -> None:
    def guess(_: int) -> str:
        try:
            login(auth, "owner", "wrong", "10.0.0.1")
        except UnauthorizedError:
            return "checked"
        except TooManyRequestsError:
            return "refused"
        return "signed in"

    with ThreadPoolExecutor(max_workers=40) as pool:
        outcomes = list(pool.map(guess, range(40)))
    assert outcomes.count("checked") == FAILED_LOGINS_PER_MINUTE
    assert outcomes.count("refused") == 40 - FAILED_LOGINS_PER_MINUTE
    with Session(engine) as session:
        counted = session.exec(
            select(RateCounter.count).where(col(RateCounter.key).startswith("login-addr-user:"))
        ).one()
    assert counted == 40


def test_more_than_five_attempts_a_minute_for_a_username_from_an_address_are_refused(
    auth: AdminAuth, clock: FakeClock
) -> None:
    for _ in range(FAILED_LOGINS_PER_MINUTE):
        with pytest.raises(UnauthorizedError):
            login(auth, "owner", "wrong", "10.0.0.1")
    with pytest.raises(TooManyRequestsError) as refused:
        login(auth, "owner", PASSWORD, "10.0.0.1")  # even the right password waits, from there
    assert refused.value.message == TOO_MANY_FAILURES
    with pytest.raises(UnauthorizedError):
        login(auth, "other", "wrong", "10.0.0.1")  # the same address, another username
    assert login(auth, "owner", PASSWORD, "10.0.0.2")  # another address
    clock.advance(60)
    assert login(auth, "owner", PASSWORD, "10.0.0.1")


def test_too_many_attempts_a_minute_from_an_address_are_refused(auth: AdminAuth) -> None:
    for n in range(LOGINS_PER_ADDRESS_PER_MINUTE):
        with pytest.raises(UnauthorizedError):
            login(auth, f"guess{n}", "wrong", "10.0.0.1")
    with pytest.raises(TooManyRequestsError):
        login(auth, "owner", PASSWORD, "10.0.0.1")
    assert login(auth, "owner", PASSWORD, "10.0.0.2")


def test_successful_sign_ins_use_up_no_attempts(auth: AdminAuth) -> None:
    for _ in range(LOGINS_PER_ADDRESS_PER_MINUTE + 1):
        assert login(auth, "owner", PASSWORD, "10.0.0.1")
