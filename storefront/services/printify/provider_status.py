"""Whether the print provider answers, for the configuration banner and /api/printify/status."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from storefront.config import Settings
from storefront.models import utcnow
from storefront.services.printify.errors import ProviderError
from storefront.services.printify.provider import PrintProvider

#: How long a check is reused, so page views do not each ask the provider.
STATUS_TTL = timedelta(minutes=1)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "[::1]")
DEPLOYMENT_TITLE = "Deployment API Configuration Required"
LOCAL_TITLE = "API Configuration Issue"


#: A forced re-check closer than this to the last one answers the last one (the banner's Refresh
#: Config is public: clicking it must not spend the provider's request budget).
MIN_REFRESH_INTERVAL = timedelta(seconds=10)

log = logging.getLogger(__name__)


class ShopNotFound(ProviderError):
    """PRINTIFY_SHOP_ID names no shop of the account the token belongs to."""

    def __init__(self, configured: str, shops: Sequence[dict]) -> None:
        known = ", ".join(f"{shop.get('id')} ({shop.get('title', '')})" for shop in shops) or "none"
        super().__init__(
            f"PRINTIFY_SHOP_ID {configured} is not a shop of this Printify account (its shops: {known})",
            status=404,
            details={"configured": configured, "shops": [shop.get("id") for shop in shops]},
        )


def choose_shop(shops: Sequence[dict], configured: str = "") -> int:
    """The shop the store sells from: PRINTIFY_SHOP_ID when it is one of `shops`, else the first shop."""
    if configured:
        for shop in shops:
            if str(shop.get("id")) == configured.strip():
                return int(shop["id"])
        raise ShopNotFound(configured, shops)
    if not shops:
        raise ProviderError("The Printify account has no shops", status=404)
    return int(shops[0]["id"])


class StoreShop:
    """The store's shop id, resolved on first use (asks the provider once) and then remembered.

    Called lazily, so a wrong token or shop id makes the work that needs the shop fail and retry
    with a clear reason instead of stopping the store from starting."""

    def __init__(self, settings: Settings, provider: PrintProvider) -> None:
        self._configured = settings.printify_shop_id
        self._provider = provider
        self._lock = threading.Lock()
        self._shop_id: int | None = None

    def __call__(self) -> int:
        with self._lock:
            if self._shop_id is None:
                self._shop_id = choose_shop(self._provider.list_shops(), self._configured)
            return self._shop_id


@dataclass(frozen=True)
class ProviderStatus:
    """The spec's status response (configured, hasApiKey, apiKeyLength, timestamp) plus the error."""

    configured: bool
    has_api_key: bool
    api_key_length: int
    checked_at: datetime
    error: str = ""
    #: The account's shops as the provider listed them (empty when the check failed).
    shops: tuple[dict, ...] = ()
    #: Why the check failed, to answer GET /api/printify/shops with it.
    failure: ProviderError | None = field(default=None, compare=False)

    def as_response(self) -> dict[str, object]:
        return {
            "configured": self.configured,
            "hasApiKey": self.has_api_key,
            "apiKeyLength": self.api_key_length,
            "timestamp": self.checked_at.isoformat(),
        }

    def shop_list(self) -> list[dict]:
        """The shops of the last check; raises the check's failure."""
        if self.failure is not None:
            raise self.failure
        return [dict(shop) for shop in self.shops]


def check_provider(settings: Settings, provider: PrintProvider, now: datetime) -> ProviderStatus:
    """Ask the provider for its shops; configured means it answered and the store's shop is among them."""
    token = settings.printify_api_token
    shops: tuple[dict, ...] = ()
    failure: ProviderError | None = None
    try:
        shops = tuple(provider.list_shops())
        choose_shop(shops, settings.printify_shop_id)
    except ProviderError as exc:
        failure = exc
    except Exception as exc:  # noqa: BLE001 - any failure means "not configured", with its reason
        failure = ProviderError(str(exc) or type(exc).__name__)
    error = (failure.message or type(failure).__name__) if failure is not None else ""
    return ProviderStatus(failure is None, bool(token), len(token), now, error, shops, failure)


def _in_a_thread(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="provider-check", daemon=True).start()


class ProviderHealth:
    """The provider's status, checked at most once per STATUS_TTL unless refreshed.

    Only the first check and explicit refreshes make the caller wait: a stale status is answered
    as it is while one background check brings it up to date, so page views never wait on the
    provider. A change between working and failing is logged (a warning with the reason), so a
    wrong token or shop id shows in the logs as well as in the banner."""

    def __init__(
        self,
        settings: Settings,
        provider: PrintProvider,
        clock: Callable[[], datetime] = utcnow,
        background: Callable[[Callable[[], None]], None] = _in_a_thread,
    ) -> None:
        self._settings, self._provider, self._clock = settings, provider, clock
        self._background = background
        self._lock = threading.Lock()
        self._last: ProviderStatus | None = None
        self._revalidating = False

    def status(self, refresh: bool = False, *, force: bool = False) -> ProviderStatus:
        """The cached status; `refresh` re-checks unless the last check is under MIN_REFRESH_INTERVAL
        old, `force` (an admin's request) re-checks regardless."""
        with self._lock:
            now = self._clock()
            last = self._last
            if last is None or force or (refresh and now - last.checked_at >= MIN_REFRESH_INTERVAL):
                return self._check(now)  # under the lock: concurrent callers share this one check
            revalidate = now - last.checked_at >= STATUS_TTL and not self._revalidating
            self._revalidating = self._revalidating or revalidate
        if revalidate:
            self._background(self._revalidate)
        return last

    def _check(self, now: datetime) -> ProviderStatus:
        """Ask the provider now (call with the lock held)."""
        before, self._last = self._last, check_provider(self._settings, self._provider, now)
        _log_change(before, self._last)
        return self._last

    def _revalidate(self) -> None:
        try:
            with self._lock:
                self._check(self._clock())
        finally:
            self._revalidating = False


def _log_change(before: ProviderStatus | None, after: ProviderStatus) -> None:
    if not after.configured and (before is None or before.error != after.error):
        log.warning("The print provider is not usable: %s", after.error)
    elif after.configured and before is not None and not before.configured:
        log.info("The print provider answers again")


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
