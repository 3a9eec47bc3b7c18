"""One composition root: the process builds its services once from its settings, and the API and
the Reflex states use that same object (DESIGN.md, storefront/wiring.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from storefront import wiring
from storefront.api.app import create_api
from storefront.config import Settings, get_settings
from storefront.container import Services
from storefront.services.platform.errors import TooManyRequestsError
from storefront.services.tryon.throttle import TRY_ONS_PER_MINUTE
from storefront.state import checkout, shopify, tryon
from storefront.state.admin import catalog_calls, session
from tests.ordering import FakeClock


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    return Settings()


@pytest.fixture
def unbuilt() -> Iterator[None]:
    """The process with no services built yet (its own come back after the test)."""
    previous = wiring.use(None)
    yield
    wiring.use(previous)


def test_the_process_builds_its_services_once_from_its_settings_on_first_use(unbuilt: None) -> None:
    first = wiring.services()
    assert wiring.services() is first
    assert first.settings == get_settings()


def test_what_the_states_use_comes_from_the_installed_services(
    settings: Settings, engine: Engine, install_services: Callable[..., Services]
) -> None:
    services = install_services(settings, engine=engine, clock=FakeClock())
    assert session.auth() is services.auth
    assert catalog_calls.shared_provider() is services.provider
    assert shopify._catalogue() is services.store_catalogue and shopify._health() is services.store_health
    assert wiring.services().tryon_limiter is services.tryon_limiter
    with wiring.session_scope() as db_session:
        assert db_session.get_bind() is engine
    assert checkout.services() is services and tryon.services() is services


def test_the_api_given_services_uses_those_and_builds_none_of_its_own(settings: Settings) -> None:
    services = Services(settings, clock=FakeClock())
    assert create_api(settings, services=services).state.services is services


def test_the_pages_limits_count_on_the_services_clock(
    settings: Settings, engine: Engine, install_services: Callable[..., Services]
) -> None:
    clock = FakeClock()
    install_services(settings, engine=engine, clock=clock)
    for _ in range(TRY_ONS_PER_MINUTE):
        tryon._count("203.0.113.60")
    assert tryon._spent("203.0.113.60")
    with pytest.raises(TooManyRequestsError):
        tryon._count("203.0.113.60")
    clock.advance(60)
    assert not tryon._spent("203.0.113.60")


def test_no_service_reads_the_process_settings() -> None:
    services_dir = Path(__file__).resolve().parents[3] / "storefront" / "services"
    readers = [str(path.relative_to(services_dir)) for path in sorted(services_dir.rglob("*.py"))
               if "get_settings" in path.read_text(encoding="utf-8")]
    assert readers == []


def test_the_order_services_queue_the_containers_emails(settings: Settings) -> None:
    services = Services(settings, clock=FakeClock())
    built = (services.payments, services.cancellations, services.order_tracker(), services.provider_events())
    assert all(service.emails is services.emails for service in built)
