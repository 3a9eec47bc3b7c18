"""What the store says at start-up."""

from __future__ import annotations

import asyncio
import logging

import pytest

import storefront.storefront as store
from storefront.config import Settings
from storefront.services.admin.auth import DEFAULT_PASSWORD_WARNING


async def _start(settings: Settings) -> None:
    async with store.startup_warnings(settings):
        pass


def test_the_default_admin_password_is_warned_about(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
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


def test_a_staging_store_on_stripe_test_keys_says_so_at_every_start(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    env = {
        "STORE_ENV": "production", "ADMIN_PASSWORD": "a long secret", "PRINTIFY_API_TOKEN": "token",
        "PRINTIFY_WEBHOOK_SECRET": "whsec", "STRIPE_SECRET_KEY": "sk_test_abc", "STRIPE_PUBLISHABLE_KEY": "pk_test_abc",
        "STRIPE_WEBHOOK_SECRET": "whsec_abc", "ALLOW_TEST_PAYMENTS": "1", "ALLOWED_ORIGINS": "https://shop.example",
        "SECRET_KEY": "a long random secret, long enough to sign links", "MAIL_FROM": "Shop <shop@shop.example>",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            asyncio.run(_start(Settings()))
        assert store.TEST_PAYMENTS_WARNING in caplog.text


def test_a_live_stripe_store_has_no_test_payments_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for name in (
        "STORE_ENV",
        "STRIPE_SECRET_KEY",
        "STRIPE_PUBLISHABLE_KEY",
        "STRIPE_WEBHOOK_SECRET",
        "ALLOW_TEST_PAYMENTS",
    ):
        monkeypatch.delenv(name, raising=False)
    with caplog.at_level(logging.WARNING):
        asyncio.run(_start(Settings()))
    assert store.TEST_PAYMENTS_WARNING not in caplog.text


def test_the_store_refuses_to_start_in_production_on_the_test_gateway_and_names_what_is_missing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The store's own module, as `reflex run` imports it, stops at once with the reason."""
    import os
    import subprocess
    import sys

    from storefront.config import PROJECT_ROOT

    env = {k: v for k, v in os.environ.items() if not k.startswith(("STRIPE_", "PRINTIFY_", "ALLOW_"))}
    env.update({"STORE_ENV": "production", "ADMIN_PASSWORD": "a long secret", "PRINTIFY_API_TOKEN": "token",
                "PRINTIFY_WEBHOOK_SECRET": "whsec", "DATA_DIR": str(tmp_path)})
    started = subprocess.run([sys.executable, "-c", "import storefront.storefront"], cwd=PROJECT_ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
    assert started.returncode != 0
    assert (
        "STORE_ENV=production needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET"
        in started.stderr
    )


def test_the_started_app_is_left_out_of_garbage_collection_and_put_back_at_shutdown() -> None:
    import gc

    before = gc.get_threshold()

    async def run() -> tuple[int, tuple[int, int, int]]:
        async with store.settled_heap():
            return gc.get_freeze_count(), gc.get_threshold()

    frozen, threshold = asyncio.run(run())
    assert frozen > 0 and threshold[0] == store.GC_YOUNG_THRESHOLD
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
