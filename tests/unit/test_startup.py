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
