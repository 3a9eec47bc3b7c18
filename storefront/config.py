"""All settings, read from the environment once, with the embedded defaults of DESIGN.md."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def _positive_int(name: str, default: int) -> int:
    """A whole number of at least 1; anything else stops the store with the setting's name."""
    raw = _env(name)
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {raw!r}")
    return int(raw)


def _not_wired_yet(name: str, arrives_with: str) -> str:
    """A documented setting whose feature is not built yet: setting it stops the store and says so,
    rather than being silently ignored."""
    raw = _env(name)
    if raw:
        raise ValueError(f"{name} is not supported yet (it arrives with {arrives_with}); unset it to start the store")
    return raw


def _path(name: str, default: Path) -> Path:
    raw = _env(name)
    path = Path(raw) if raw else default
    return path if path.is_absolute() else PROJECT_ROOT / path


@dataclass(frozen=True)
class Settings:
    """Every setting of the store; see .env.example for what each does."""

    data_dir: Path = field(default_factory=lambda: _path("DATA_DIR", PROJECT_ROOT / "data"))
    db_url: str = ""
    redis_url: str = field(default_factory=lambda: _env("REDIS_URL"))
    port: int = field(default_factory=lambda: int(_env("PORT", "3000") or 3000))
    printify_api_token: str = field(default_factory=lambda: _env("PRINTIFY_API_TOKEN"))
    printify_shop_id: str = field(default_factory=lambda: _env("PRINTIFY_SHOP_ID"))
    printify_webhook_secret: str = field(default_factory=lambda: _env("PRINTIFY_WEBHOOK_SECRET"))
    printify_api_base: str = field(
        default_factory=lambda: _env("PRINTIFY_API_BASE", "https://api.printify.com/v1/")
    )
    shopify_store_domain: str = field(default_factory=lambda: _env("SHOPIFY_STORE_DOMAIN"))
    shopify_access_token: str = field(default_factory=lambda: _env("SHOPIFY_ACCESS_TOKEN"))
    shopify_api_version: str = field(default_factory=lambda: _env("SHOPIFY_API_VERSION", "2023-07"))
    #: Admin API root; empty: https://{SHOPIFY_STORE_DOMAIN}/admin/api/{SHOPIFY_API_VERSION}/ (tests point it at a fake).
    shopify_api_base: str = field(default_factory=lambda: _env("SHOPIFY_API_BASE"))
    tryon_endpoint: str = field(default_factory=lambda: _not_wired_yet("TRYON_ENDPOINT", "the try-on page"))
    tryon_api_key: str = field(default_factory=lambda: _not_wired_yet("TRYON_API_KEY", "the try-on page"))
    admin_username: str = field(default_factory=lambda: _env("ADMIN_USERNAME", "admin"))
    admin_password: str = field(default_factory=lambda: _env("ADMIN_PASSWORD", "admin123"))
    upload_dir: Path = field(default_factory=lambda: Path())
    outbox_interval_seconds: float = field(
        default_factory=lambda: float(_env("OUTBOX_INTERVAL_SECONDS", "5") or 5)
    )
    order_poll_interval_seconds: int = field(
        default_factory=lambda: _positive_int("ORDER_POLL_INTERVAL_SECONDS", 600)
    )
    payment_requests_per_minute: int = field(
        default_factory=lambda: _positive_int("PAYMENT_REQUESTS_PER_MINUTE", 20)
    )
    payment_declines_per_order: int = field(
        default_factory=lambda: _positive_int("PAYMENT_DECLINES_PER_ORDER", 5)
    )

    def __post_init__(self) -> None:
        # Defaults that depend on data_dir are filled in here so DATA_DIR moves them all.
        if not self.db_url:
            db_file = self.data_dir / "storefront.db"
            object.__setattr__(self, "db_url", _env("DB_URL") or f"sqlite:///{db_file}")
        if self.upload_dir == Path():
            object.__setattr__(self, "upload_dir", _path("UPLOAD_DIR", self.data_dir / "uploads"))

    @property
    def media_dir(self) -> Path:
        """Where image renditions are written (served at /media with a year-long cache lifetime)."""
        return self.upload_dir / "media"

    @property
    def uses_demo_provider(self) -> bool:
        """True when no Printify token is set and the embedded demo provider serves the catalogue."""
        return not self.printify_api_token

    @property
    def admin_uses_default_password(self) -> bool:
        """True while no ADMIN_PASSWORD is set (whatever ADMIN_USERNAME says): the login shows the hint."""
        return not _env("ADMIN_PASSWORD")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process (read once; tests clear the cache after changing the env)."""
    return Settings()
