"""Configuration banner state: do the print provider and the store platform answer with the
current settings?"""

from __future__ import annotations

import asyncio

import reflex as rx

from storefront.services.printify.provider_status import ProviderStatus, banner_decision, refresh_message
from storefront.services.shopify.catalogue import StoreStatus
from storefront.services.shopify.health import store_failed, store_state_label
from storefront.wiring import services

REFRESHED = "Configuration Refreshed"
REFRESH_FAILED = "Refresh Failed"
REFRESH_FAILED_TEXT = "Failed to refresh configuration"


def _status(refresh: bool) -> ProviderStatus:
    return services().provider_health.status(refresh=refresh)


async def _checks(refresh: bool) -> tuple[ProviderStatus, StoreStatus]:
    """Both checks side by side: the provider's shop list (blocking, in a thread) and the store's test."""
    provider, store = await asyncio.gather(
        asyncio.to_thread(_status, refresh), services().store_health.status(refresh=refresh)
    )
    return provider, store


class ConfigBannerState(rx.State):
    """Results of the provider and store-platform checks; hidden while loading and when nothing fails."""

    checking: bool = True
    provider_failed: bool = False
    store_failed: bool = False  # the store catalogue's test answered 'error' (the demo never fails)
    store_state: str = ""  # what the status block says of the store platform
    configured: bool = False
    has_api_key: bool = False
    api_key_length: int = 0
    checked_at: str = ""
    host: str = ""

    @rx.var
    def visible(self) -> bool:
        return not self.checking and banner_decision(self.provider_failed, self.store_failed, self.host).visible

    @rx.var
    def variant(self) -> str:
        return banner_decision(self.provider_failed, self.store_failed, self.host).variant

    @rx.var
    def title(self) -> str:
        return banner_decision(self.provider_failed, self.store_failed, self.host).title

    def _apply(self, status: ProviderStatus, store: StoreStatus) -> None:
        self.checking = False
        self.provider_failed = not status.configured
        self.store_failed, self.store_state = store_failed(store), store_state_label(store)
        self.configured = status.configured
        self.has_api_key = status.has_api_key
        self.api_key_length = status.api_key_length
        self.checked_at = status.checked_at.strftime("%Y-%m-%d %H:%M:%S UTC")

    @rx.event(background=True)
    async def check(self):
        async with self:
            self.host = self.router.url.netloc
        status, store = await _checks(refresh=False)
        async with self:
            self._apply(status, store)

    @rx.event(background=True)
    async def refresh(self):
        try:
            status, store = await _checks(refresh=True)
        except Exception:  # noqa: BLE001 - shown as the spec's failure toast
            yield rx.toast.error(REFRESH_FAILED, description=REFRESH_FAILED_TEXT)
            return
        async with self:
            self._apply(status, store)
        toast = rx.toast.success if status.configured else rx.toast.error
        yield toast(REFRESHED, description=refresh_message(status))
