"""Whether the print provider answers, for the configuration banner and /api/printify/status."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from storefront.config import Settings
from storefront.models import utcnow
from storefront.services.printify.provider import PrintProvider

#: How long a check is reused, so page views do not each ask the provider.
STATUS_TTL = timedelta(minutes=1)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "[::1]")
DEPLOYMENT_TITLE = "Deployment API Configuration Required"
LOCAL_TITLE = "API Configuration Issue"


@dataclass(frozen=True)
class ProviderStatus:
    """The spec's status response (configured, hasApiKey, apiKeyLength, timestamp) plus the error."""

    configured: bool
    has_api_key: bool
    api_key_length: int
    checked_at: datetime
    error: str = ""

    def as_response(self) -> dict[str, object]:
        return {
            "configured": self.configured,
            "hasApiKey": self.has_api_key,
            "apiKeyLength": self.api_key_length,
            "timestamp": self.checked_at.isoformat(),
        }


def check_provider(settings: Settings, provider: PrintProvider, now: datetime) -> ProviderStatus:
    """Ask the provider for its shops; configured means it answered with at least one."""
    token = settings.printify_api_token
    try:
        configured, error = bool(provider.list_shops()), ""
    except Exception as exc:  # noqa: BLE001 - any failure means "not configured", with its reason
        configured, error = False, str(exc) or type(exc).__name__
    if not configured and not error:
        error = "The provider account has no shops"
    return ProviderStatus(configured, bool(token), len(token), now, error)


class ProviderHealth:
    """The provider's status, checked at most once per STATUS_TTL unless refreshed."""

    def __init__(self, settings: Settings, provider: PrintProvider, clock: Callable[[], datetime] = utcnow) -> None:
        self._settings, self._provider, self._clock = settings, provider, clock
        self._lock = threading.Lock()
        self._last: ProviderStatus | None = None

    def status(self, refresh: bool = False) -> ProviderStatus:
        with self._lock:
            now = self._clock()
            if refresh or self._last is None or now - self._last.checked_at >= STATUS_TTL:
                self._last = check_provider(self._settings, self._provider, now)
            return self._last


def refresh_message(status: ProviderStatus) -> str:
    """The refresh-config answer's message."""
    if status.configured:
        return "Print provider configuration is valid and the shop list loaded."
    return f"Print provider is not configured: {status.error}"


@dataclass(frozen=True)
class BannerDecision:
    """Whether the configuration banner shows, and how."""

    visible: bool
    variant: str  # "destructive" or "warning"
    title: str


def banner_decision(provider_failed: bool, store_failed: bool, host: str) -> BannerDecision:
    """Spec: shown when either check fails; destructive when both do; title by host."""
    hostname = host.split(":")[0].lower() if not host.startswith("[") else host.split("]")[0] + "]"
    local = hostname in LOCAL_HOSTS or hostname.endswith(".local") or hostname.startswith(("dev.", "dev-"))
    return BannerDecision(
        visible=provider_failed or store_failed,
        variant="destructive" if provider_failed and store_failed else "warning",
        title=LOCAL_TITLE if local else DEPLOYMENT_TITLE,
    )
