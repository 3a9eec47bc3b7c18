"""Builds the external-service implementations the settings ask for."""

from __future__ import annotations

from storefront.config import Settings
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.provider import PrintProvider

DEMO_MEDIA_URL = "/uploads/demo"


def print_provider(settings: Settings) -> PrintProvider:
    """The print provider: the embedded demo until the real Printify client is configured."""
    return DemoPrintProvider(media_dir=settings.upload_dir / "demo", media_url=DEMO_MEDIA_URL)
