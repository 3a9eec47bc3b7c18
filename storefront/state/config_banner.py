"""Configuration banner state: is the print provider reachable with the current settings?"""

from __future__ import annotations

import asyncio

import reflex as rx

from storefront.config import get_settings
from storefront.services.printify.provider_status import ProviderStatus, banner_decision, refresh_message
from storefront.wiring import provider_health

REFRESHED = "Configuration Refreshed"
REFRESH_FAILED = "Refresh Failed"
REFRESH_FAILED_TEXT = "Failed to refresh configuration"


def _status(refresh: bool) -> ProviderStatus:
    return provider_health(get_settings()).status(refresh=refresh)


class ConfigBannerState(rx.State):
    """Results of the provider check; hidden while loading and when nothing fails."""

    checking: bool = True
    provider_failed: bool = False
    # The store-platform test joins here with the store catalogue; the embedded demo never fails.
    store_failed: bool = False
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

    def _apply(self, status: ProviderStatus) -> None:
        self.checking = False
        self.provider_failed = not status.configured
        self.configured = status.configured
        self.has_api_key = status.has_api_key
        self.api_key_length = status.api_key_length
        self.checked_at = status.checked_at.strftime("%Y-%m-%d %H:%M:%S UTC")

    @rx.event(background=True)
    async def check(self):
        async with self:
            self.host = self.router.url.netloc
        status = await asyncio.to_thread(_status, False)
        async with self:
            self._apply(status)

    @rx.event(background=True)
    async def refresh(self):
        try:
            status = await asyncio.to_thread(_status, True)
        except Exception:  # noqa: BLE001 - shown as the spec's failure toast
            yield rx.toast.error(REFRESH_FAILED, description=REFRESH_FAILED_TEXT)
            return
        async with self:
            self._apply(status)
        toast = rx.toast.success if status.configured else rx.toast.error
        yield toast(REFRESHED, description=refresh_message(status))
