"""What the store says at start-up."""

from __future__ import annotations

import asyncio
import logging

import pytest

import storefront.storefront as store
from storefront.config import Settings
from storefront.services.auth import DEFAULT_PASSWORD_WARNING


async def _start(settings: Settings) -> None:
    async with store.startup_warnings(settings):
        pass


def test_the_default_admin_password_is_warned_about(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    with caplog.at_level(logging.WARNING):
        asyncio.run(_start(Settings()))
    assert DEFAULT_PASSWORD_WARNING in caplog.text


def test_a_set_password_is_not_warned_about(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("ADMIN_PASSWORD", "a long secret")
    with caplog.at_level(logging.WARNING):
        asyncio.run(_start(Settings()))
    assert DEFAULT_PASSWORD_WARNING not in caplog.text


@pytest.mark.parametrize(("redis_url", "token", "warned"), [
    ("redis://127.0.0.1:6379/0", "", True),
    ("redis://127.0.0.1:6379/0", "a-printify-token", False),
    ("", "", False),
])
def test_several_workers_on_the_demo_provider_are_warned_about(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, redis_url: str, token: str, warned: bool
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("PRINTIFY_API_TOKEN", token)
    with caplog.at_level(logging.WARNING):
        asyncio.run(_start(Settings()))
    assert (store.DEMO_PROVIDER_WORKERS_WARNING in caplog.text) is warned
