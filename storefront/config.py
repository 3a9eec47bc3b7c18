"""All settings, read once from the environment and the project's `.env` file (the environment
wins), with the embedded defaults of DESIGN.md. A bad value stops the start with a message naming
the setting (`SettingsError`); `.env.example` and the README list every setting."""

from __future__ import annotations

import ipaddress
import math
from email.utils import parseaddr
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import pycountry
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ENV_FILE = PROJECT_ROOT / ".env"
DEFAULT_ADMIN_PASSWORD = "admin123"
#: The shortest ADMIN_PASSWORD and SECRET_KEY production starts with.
MIN_ADMIN_PASSWORD_CHARS = 12
MIN_SECRET_KEY_CHARS = 32
#: Hosts an http:// origin may name in production (a browser on the store's own machine).
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")

#: The try-on engines TRYON_ENGINE may name.
TRYON_ENGINES = ("local", "remote")
PRODUCTION = "production"


class SettingsError(ValueError):
    """A setting has a value the store cannot run with; the message names the setting."""


def _project_path(value: Path) -> Path:
    return value if value.is_absolute() else PROJECT_ROOT / value


class Settings(BaseSettings):
    """Every setting of the store; see .env.example for what each does. Empty values count as unset."""

    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
        str_strip_whitespace=True,
        case_sensitive=False,
    )

    #: 'development' (the demo `make run` serves) or 'production' (refuses the demo's defaults).
    store_env: Literal["development", "production"] = "development"
    data_dir: Path = PROJECT_ROOT / "data"
    #: Empty: SQLite in DATA_DIR (filled in below, so DATA_DIR moves it).
    db_url: str = ""
    redis_url: str = ""
    port: int = Field(default=3000, ge=1, le=65535)
    #: The origins (scheme://host[:port], comma-separated) whose pages may call the API with the
    #: browser's credentials and open the websocket; empty: the served address,
    #: http://localhost:PORT and http://127.0.0.1:PORT (filled in below).
    allowed_origins: str = ""
    printify_api_token: str = ""
    printify_shop_id: str = ""
    printify_webhook_secret: str = ""
    printify_api_base: str = "https://api.printify.com/v1/"
    shopify_store_domain: str = ""
    #: Storefront API tokens: the public one (X-Shopify-Storefront-Access-Token) or, preferred on a
    #: server, the private one (Shopify-Storefront-Private-Token).
    shopify_storefront_token: str = ""
    shopify_storefront_private_token: str = ""
    #: Legacy Admin API token: used (Admin GraphQL API) only when no storefront token is set.
    shopify_access_token: str = ""
    #: The Shopify API version (YYYY-MM); 2026-10 is the latest stable one in late 2026, supported until 2027-10-01.
    shopify_api_version: str = Field(default="2026-10", pattern=r"^(\d{4}-(01|04|07|10)|unstable)$")
    #: The shop's root; empty: https://{SHOPIFY_STORE_DOMAIN} (tests point it at a fake). The client
    #: appends /api/{version}/graphql.json (Storefront) or /admin/api/{version}/graphql.json (Admin).
    shopify_api_base: str = ""
    #: 'local' (MediaPipe, offline) or 'remote' (TRYON_ENDPOINT, falling back to local on failure);
    #: empty: remote when TRYON_ENDPOINT is set, else local.
    tryon_engine: str = ""
    tryon_endpoint: str = ""
    tryon_api_key: str = ""
    tryon_timeout_seconds: float = Field(default=30.0, gt=0)
    tryon_poll_interval_seconds: float = Field(default=2.0, gt=0)
    tryon_max_wait_seconds: float = Field(default=120.0, gt=0)
    admin_username: str = "admin"
    admin_password: str = DEFAULT_ADMIN_PASSWORD
    #: Empty: DATA_DIR/uploads (filled in below).
    upload_dir: Path = Path()
    outbox_interval_seconds: float = Field(default=5.0, gt=0)
    order_poll_interval_seconds: int = Field(default=600, ge=1)
    payment_requests_per_minute: int = Field(default=20, ge=1)
    payment_declines_per_order: int = Field(default=5, ge=1)
    #: New orders per client address and hour (the API and the checkout page alike).
    orders_per_hour: int = Field(default=10, ge=1)
    #: Percent off of the single-use code a newsletter subscriber gets by email on confirming (0: none).
    newsletter_welcome_percent: int = Field(default=0, ge=0, le=100)
    #: The proxies whose X-Forwarded-For header names the client (rate limits count per client
    #: address): IP addresses or networks, comma-separated, or '*' for any peer.
    trusted_proxies: str = "127.0.0.1,::1"
    #: Networks (comma-separated addresses or CIDR) provider images may be copied from although they
    #: are not public internet addresses; empty: public addresses only (services/media/image_sources.py).
    image_fetch_allowed_networks: str = ""
    #: Where customer emails go out: smtp://user:pass@host:587 (STARTTLS) or smtps://host:465
    #: (implicit TLS); empty: each message is written as an .eml file under DATA_DIR/mail/.
    smtp_url: str = ""
    #: The From of customer emails.
    mail_from: str = "Storefront <shop@localhost>"
    #: The shop's name in emails and the policy pages.
    shop_name: str = "SWDNN"
    #: Where shoppers write: every email's Reply-To and footer, the contact form's recipient and the
    #: policies; empty: the address of MAIL_FROM.
    support_email: str = ""
    #: The shop's postal address (one line, or lines separated by ';'), shown on the contact page,
    #: the policies and every email's footer; empty: not shown.
    shop_address: str = ""
    #: The countries orders ship to (ISO 3166-1 alpha-2 codes, comma-separated): the checkout's
    #: country select, the server's check of every order and the shipping policy name them.
    ship_to_countries: str = "US"
    #: Without SMTP_URL, each email's .eml file under DATA_DIR/mail/ is removed this many days after it was written.
    mail_file_retention_days: float = Field(default=30.0, gt=0)
    #: The address shoppers open the store at, for the links in emails; empty: the first of
    #: ALLOWED_ORIGINS (filled in below).
    public_url: str = ""
    #: Signs the links in emails (an order's page, a newsletter confirmation); empty: a random key
    #: kept in DATA_DIR/secret-key (production needs it set, the same on every host).
    secret_key: str = Field(default="", repr=False)
    #: Days an order's link in an email opens the order (staff may revoke an order's links sooner).
    order_link_days: int = Field(default=365, ge=1, le=36500)
    #: Stripe (services/payments/stripe_gateway.py); empty secret key: the built-in test gateway.
    stripe_secret_key: str = ""
    stripe_publishable_key: str = ""
    stripe_webhook_secret: str = ""
    #: Stripe's API address (tests point it at tests/fakes/stripe_server.py).
    stripe_api_base: str = "https://api.stripe.com"
    #: Where the checkout page loads Stripe.js from (never bundled: Stripe requires its own address).
    stripe_js_url: str = "https://js.stripe.com/v3/"
    #: A staging store in production mode may take Stripe test-mode keys when this is set.
    allow_test_payments: bool = False
    #: A paid order waits this long at the provider (on-hold) before printing starts, so a refund
    #: or cancellation in that time cancels the print order too.
    production_hold_minutes: float = Field(default=0.0, ge=0)
    #: An order left unpaid this long is cancelled (and its PaymentIntent with it).
    unpaid_order_ttl_hours: float = Field(default=24.0, gt=0)
    #: Where scheduled backups are written (and `manage backup` writes without a folder named);
    #: empty: no scheduled backups, and `manage backup` writes to backups/ in the project.
    backup_dir: Path | None = None
    #: Hours between scheduled backups (with BACKUP_DIR), taken by one process of the store at a time.
    backup_every_hours: float = Field(default=24.0, gt=0)
    #: Scheduled backups kept in BACKUP_DIR; older ones are removed after each new one.
    backup_keep: int = Field(default=7, ge=1)
    #: Client addresses (IP addresses or CIDR networks, comma-separated) /metrics answers without
    #: METRICS_TOKEN; the client address is the one the rate limits count (see TRUSTED_PROXIES).
    metrics_allowed_networks: str = "127.0.0.1,::1"
    #: A bearer token that opens /metrics from anywhere (Authorization: Bearer ...); empty: none.
    metrics_token: str = Field(default="", repr=False)
    #: 'text' (lines for people) or 'json' (one JSON object a line, for a log collector); masked alike.
    log_format: Literal["text", "json"] = "text"

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise SettingsError(_explain(error)) from None

    @field_validator("store_env", "tryon_engine", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator(
        "tryon_timeout_seconds", "tryon_poll_interval_seconds", "tryon_max_wait_seconds", "outbox_interval_seconds",
        "production_hold_minutes", "unpaid_order_ttl_hours", "mail_file_retention_days", "backup_every_hours",
    )
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value

    @field_validator("image_fetch_allowed_networks", "metrics_allowed_networks")
    @classmethod
    def _networks(cls, value: str) -> str:
        entries = [entry.strip() for entry in value.split(",") if entry.strip()]
        for entry in entries:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network") from None
        return ",".join(entries)

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        entries = [entry.strip() for entry in value.split(",") if entry.strip()]
        for entry in entries:
            if entry == "*":
                continue
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network (or '*')") from None
        return ",".join(entries)

    @field_validator("ship_to_countries")
    @classmethod
    def _ship_to(cls, value: str) -> str:
        codes: list[str] = []
        for code in (part.strip().upper() for part in value.split(",") if part.strip()):
            if len(code) != 2 or pycountry.countries.get(alpha_2=code) is None:
                raise ValueError(f"{code!r} is not an ISO 3166-1 two-letter country code (like US, CA, GB)")
            if code not in codes:
                codes.append(code)
        if not codes:
            raise ValueError("needs at least one country code (like US)")
        return ",".join(codes)

    @field_validator("mail_from", "support_email")
    @classmethod
    def _mail_address(cls, value: str) -> str:
        if value and "@" not in parseaddr(value)[1]:
            raise ValueError("not an email address like shop@example.com or 'Shop <shop@example.com>'")
        return value

    @field_validator("smtp_url")
    @classmethod
    def _smtp_url(cls, value: str) -> str:
        if value and (urlsplit(value).scheme not in ("smtp", "smtps") or not urlsplit(value).hostname):
            raise ValueError("not an SMTP address like smtp://user:password@host:587 or smtps://host:465")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.hostname):
            raise ValueError("not an address like https://shop.example")
        return value.rstrip("/")

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        entries = [entry.strip().rstrip("/") for entry in value.split(",") if entry.strip()]
        for entry in entries:
            parts = urlsplit(entry)
            if parts.scheme not in ("http", "https") or not parts.hostname or "*" in entry or parts.path:
                raise ValueError(f"{entry!r} is not an origin like https://shop.example (scheme://host[:port])")
        return ",".join(entries)

    @model_validator(mode="after")
    def _derived_and_consistent(self) -> Settings:
        # Defaults that depend on data_dir are filled in here so DATA_DIR moves them all.
        data_dir = _project_path(self.data_dir)
        object.__setattr__(self, "data_dir", data_dir)
        if not self.db_url:
            object.__setattr__(self, "db_url", f"sqlite:///{data_dir / 'storefront.db'}")
        upload_dir = data_dir / "uploads" if self.upload_dir == Path() else _project_path(self.upload_dir)
        object.__setattr__(self, "upload_dir", upload_dir)
        if self.backup_dir is not None:
            object.__setattr__(self, "backup_dir", _project_path(self.backup_dir))
        object.__setattr__(self, "tryon_engine", _tryon_engine(self))
        origins_given = bool(self.allowed_origins)
        if not origins_given:
            object.__setattr__(self, "allowed_origins", f"http://localhost:{self.port},http://127.0.0.1:{self.port}")
        if not self.public_url:
            object.__setattr__(self, "public_url", self.allowed_origin_list[0])
        _check_stripe(self)
        if self.store_env == PRODUCTION:
            _check_production(self)
            if not self.secret_key:
                raise ValueError(
                    "STORE_ENV=production needs SECRET_KEY (a long random string, the same on every host):"
                    " it signs the links in customer emails"
                )
            if len(self.secret_key) < MIN_SECRET_KEY_CHARS:
                raise ValueError(
                    f"STORE_ENV=production needs a SECRET_KEY of at least {MIN_SECRET_KEY_CHARS} characters"
                    f" (it has {len(self.secret_key)}): a short key lets anyone forge the links in customer emails;"
                    " make one with `python -c 'import secrets; print(secrets.token_urlsafe(48))'`"
                )
            if not origins_given:
                # The default names this machine only: every shopper's websocket would be refused.
                raise ValueError(
                    "STORE_ENV=production needs ALLOWED_ORIGINS, the address(es) shoppers open the store at"
                    " (e.g. https://shop.example): the store answers and accepts websockets from those only"
                )
            _check_production_network(self)
            _check_production_mail(self)
        return self

    @property
    def media_dir(self) -> Path:
        """Where image renditions are written (served at /media with a year-long cache lifetime)."""
        return self.upload_dir / "media"

    @property
    def allowed_origin_list(self) -> list[str]:
        """ALLOWED_ORIGINS as a list (Reflex's cors_allowed_origins)."""
        return self.allowed_origins.split(",")

    @property
    def support_address(self) -> str:
        """SUPPORT_EMAIL, else the address of MAIL_FROM (without its display name)."""
        return parseaddr(self.support_email)[1] if self.support_email else parseaddr(self.mail_from)[1]

    @property
    def ship_to(self) -> tuple[str, ...]:
        """SHIP_TO_COUNTRIES as a tuple of upper-case codes."""
        return tuple(self.ship_to_countries.split(","))

    @property
    def shopify_connected(self) -> bool:
        """Whether a Shopify token is set (the store domain is needed too for the real catalogue)."""
        return bool(self.shopify_storefront_token or self.shopify_storefront_private_token
                    or self.shopify_access_token)

    @property
    def uses_demo_provider(self) -> bool:
        """True when no Printify token is set and the embedded demo provider serves the catalogue."""
        return not self.printify_api_token

    @property
    def uses_stripe(self) -> bool:
        """True when STRIPE_SECRET_KEY is set: Stripe takes the payments, not the test gateway."""
        return bool(self.stripe_secret_key)

    @property
    def stripe_test_mode(self) -> bool:
        """True for a Stripe test-mode key (sk_test_/rk_test_): no real money moves."""
        return self.stripe_secret_key.startswith(("sk_test_", "rk_test_"))

    @property
    def admin_uses_default_password(self) -> bool:
        """True while no ADMIN_PASSWORD is set (whatever ADMIN_USERNAME says): the login shows the hint."""
        return "admin_password" not in self.model_fields_set


def _tryon_engine(settings: Settings) -> str:
    """TRYON_ENGINE, checked against TRYON_ENDPOINT: 'remote' needs an endpoint, and an endpoint
    with 'local' would be ignored, so both stop the store; empty picks remote when an endpoint is set."""
    engine, endpoint = settings.tryon_engine, settings.tryon_endpoint
    if engine and engine not in TRYON_ENGINES:
        raise ValueError(f"TRYON_ENGINE must be one of {', '.join(TRYON_ENGINES)}, got {engine!r}")
    if engine == "remote" and not endpoint:
        raise ValueError("TRYON_ENGINE=remote needs TRYON_ENDPOINT (the hosted try-on service's address)")
    if engine == "local" and endpoint:
        raise ValueError("TRYON_ENDPOINT is set but TRYON_ENGINE=local would ignore it; unset one of them")
    if settings.tryon_api_key and not endpoint:
        raise ValueError("TRYON_API_KEY is set but TRYON_ENDPOINT is not; set the endpoint or unset the key")
    if endpoint and not endpoint.startswith(("http://", "https://")):
        raise ValueError(f"TRYON_ENDPOINT must be an http:// or https:// address, got {endpoint!r}")
    return engine or ("remote" if endpoint else "local")


def _check_stripe(settings: Settings) -> None:
    """Stripe's keys come as a set: a secret key needs the publishable key the page uses and the
    webhook secret that proves Stripe's events; either without the secret key would be ignored."""
    if not settings.stripe_secret_key:
        for name in ("stripe_publishable_key", "stripe_webhook_secret"):
            if getattr(settings, name):
                raise ValueError(f"{name.upper()} is set but STRIPE_SECRET_KEY is not; set the secret key or unset it")
        return
    if not settings.stripe_secret_key.startswith(("sk_", "rk_")):
        raise ValueError("STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_... or sk_test_...)")
    if not settings.stripe_publishable_key.startswith("pk_"):
        raise ValueError("STRIPE_SECRET_KEY is set: STRIPE_PUBLISHABLE_KEY (pk_...) is needed for the checkout page")
    live_secret = not settings.stripe_test_mode
    live_public = settings.stripe_publishable_key.startswith("pk_live_")
    if live_secret != live_public:
        raise ValueError("STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY must both be live keys or both test keys")
    for name in ("stripe_api_base", "stripe_js_url"):
        if not getattr(settings, name).startswith(("http://", "https://")):
            raise ValueError(f"{name.upper()} must be an http:// or https:// address, got {getattr(settings, name)!r}")


def _check_production(settings: Settings) -> None:
    """STORE_ENV=production refuses what only a demo may run with (the default password, the demo
    provider, unsigned webhooks)."""
    if settings.admin_uses_default_password or settings.admin_password == DEFAULT_ADMIN_PASSWORD:
        raise ValueError("STORE_ENV=production needs ADMIN_PASSWORD set to a password of your own")
    if len(settings.admin_password) < MIN_ADMIN_PASSWORD_CHARS:
        raise ValueError(
            f"STORE_ENV=production needs an ADMIN_PASSWORD of at least {MIN_ADMIN_PASSWORD_CHARS} characters"
            f" (it has {len(settings.admin_password)}): the admin page signs in with it from anywhere"
        )
    if not settings.printify_api_token:
        raise ValueError(
            "STORE_ENV=production needs PRINTIFY_API_TOKEN: the embedded demo provider keeps its orders in"
            " one process's memory and prints nothing"
        )
    if not settings.printify_webhook_secret:
        raise ValueError(
            "STORE_ENV=production needs PRINTIFY_WEBHOOK_SECRET (without it every provider webhook is refused)"
        )
    if not settings.stripe_secret_key:
        raise ValueError(
            "STORE_ENV=production needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET:"
            " the built-in test gateway approves the documented test card, so every order would be free"
        )
    if settings.stripe_test_mode and not settings.allow_test_payments:
        raise ValueError(
            "STORE_ENV=production with a Stripe test-mode key (sk_test_...) takes no real money;"
            " use a live key, or set ALLOW_TEST_PAYMENTS=1 for a staging store"
        )
    if not settings.stripe_webhook_secret:
        raise ValueError(
            "STORE_ENV=production needs STRIPE_WEBHOOK_SECRET (whsec_...): without Stripe's signed events a"
            " payment finished after the shopper left would never mark its order paid"
        )


def _check_production_network(settings: Settings) -> None:
    """Production believes only named proxies, and is opened over https (http only on this machine)."""
    if "*" in settings.trusted_proxies.split(","):
        raise ValueError(
            "STORE_ENV=production refuses TRUSTED_PROXIES=*: any client could then name its own address in"
            " X-Forwarded-For and escape every rate limit; list the addresses of the proxies in front"
        )
    for origin in settings.allowed_origin_list:
        parts = urlsplit(origin)
        if parts.scheme != "https" and parts.hostname not in LOOPBACK_HOSTS:
            raise ValueError(
                f"STORE_ENV=production needs https:// origins in ALLOWED_ORIGINS, got {origin!r}: over http the"
                " admin's session and the shoppers' orders cross the network in clear (http is kept for localhost)"
            )


def _is_local_address(address: str) -> bool:
    """Whether an email address's domain is this machine or no public domain at all."""
    domain = address.rpartition("@")[2].lower().rstrip(".")
    return domain in LOOPBACK_HOSTS or domain.endswith(".localhost") or "." not in domain


def _check_production_mail(settings: Settings) -> None:
    """Production mails from, and is answered at, a real domain: mail from localhost is refused or
    filed as spam by every provider, and a reply to it goes nowhere."""
    if _is_local_address(parseaddr(settings.mail_from)[1]):
        raise ValueError(
            f"STORE_ENV=production needs MAIL_FROM at the shop's own domain (like 'Shop <shop@example.com>'),"
            f" got {settings.mail_from!r}: mail from localhost is refused or filed as spam"
        )
    if _is_local_address(settings.support_address):
        raise ValueError(
            f"STORE_ENV=production needs SUPPORT_EMAIL at a real domain, got {settings.support_address!r}:"
            " shoppers' replies and contact messages go there"
        )


def _explain(error: ValidationError) -> str:
    """One line per bad setting, named as in the environment, with the value that was refused."""
    lines = []
    for problem in error.errors():
        message = str(problem["msg"]).removeprefix("Value error, ")
        if problem["loc"]:
            name = str(problem["loc"][0]).upper()
            lines.append(f"{name}: {message}, got {problem.get('input')!r}")
        else:
            lines.append(message)
    return "Bad settings: " + "; ".join(lines)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process (read once; tests clear the cache after changing the env)."""
    return Settings()
