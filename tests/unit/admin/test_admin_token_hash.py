"""The pages keep only a session token's hash: it opens the same session, and nothing else does."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy.engine import Engine

from storefront.config import Settings
from storefront.services.admin.auth import AdminAuth, hash_token
from storefront.services.platform.errors import UnauthorizedError
from storefront.state.admin.session import keep_token_script, token_hash_of
from storefront.wiring import session_factory
from tests.ordering import FakeClock

PASSWORD = "correct horse battery"


@pytest.fixture
def auth(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> AdminAuth:
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    return AdminAuth(session_factory(engine), Settings(), FakeClock())


def test_the_hash_of_a_live_token_opens_its_session_until_it_is_revoked(auth: AdminAuth) -> None:
    token = asyncio.run(auth.login("owner", PASSWORD))
    assert auth.verify_hash(hash_token(token)).username == "owner"
    auth.logout_hash(hash_token(token))
    with pytest.raises(UnauthorizedError):
        auth.verify_hash(hash_token(token))
    with pytest.raises(UnauthorizedError):
        auth.verify(token)


@pytest.mark.parametrize("token_hash", ["", "nope", "0" * 64, "x" * 1000])
def test_anything_but_a_live_hash_is_refused(auth: AdminAuth, token_hash: str) -> None:
    asyncio.run(auth.login("owner", PASSWORD))
    with pytest.raises(UnauthorizedError):
        auth.verify_hash(token_hash)


def test_the_raw_token_itself_is_not_a_hash_that_opens_anything(auth: AdminAuth) -> None:
    token = asyncio.run(auth.login("owner", PASSWORD))
    with pytest.raises(UnauthorizedError):
        auth.verify_hash(token)


def test_what_the_browser_sends_back_becomes_a_hash() -> None:
    assert token_hash_of("abc") == hash_token("abc")
    assert token_hash_of('"abc"') == hash_token("abc")  # as rx.LocalStorage kept it before
    assert token_hash_of("") == token_hash_of(None) == token_hash_of({"token": "abc"}) == token_hash_of("x" * 500) == ""


def test_the_token_is_written_to_the_browser_as_a_javascript_string() -> None:
    script = keep_token_script("a'b\"c</script>")
    assert json.dumps("a'b\"c</script>") in script and script.startswith("window.localStorage.setItem(")
