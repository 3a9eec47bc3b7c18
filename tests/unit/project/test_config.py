from pathlib import Path

import pytest

from storefront.config import PROJECT_ROOT, Settings, SettingsError


def test_defaults_are_the_embedded_demo_store(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA_DIR", "DB_URL", "UPLOAD_DIR", "PORT", "PRINTIFY_API_TOKEN", "ADMIN_USERNAME", "ADMIN_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.db_url == f"sqlite:///{PROJECT_ROOT / 'data' / 'storefront.db'}"
    assert settings.upload_dir == PROJECT_ROOT / "data" / "uploads"
    assert settings.port == 3000
    assert settings.uses_demo_provider
    assert settings.admin_uses_default_password


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PORT", "4100")
    monkeypatch.setenv("PRINTIFY_API_TOKEN", "token")
    monkeypatch.delenv("DB_URL", raising=False)
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    settings = Settings()
    assert settings.db_url == f"sqlite:///{tmp_path / 'storefront.db'}"
    assert settings.upload_dir == tmp_path / "uploads"
    assert settings.port == 4100
    assert not settings.uses_demo_provider


def test_db_url_selects_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_URL", "postgresql+psycopg://shop@db/shop")
    assert Settings().db_url == "postgresql+psycopg://shop@db/shop"


def test_the_default_password_is_in_force_until_admin_password_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    monkeypatch.setenv("ADMIN_USERNAME", "owner")
    assert Settings().admin_uses_default_password
    monkeypatch.setenv("ADMIN_PASSWORD", "a long secret")
    assert not Settings().admin_uses_default_password


@pytest.mark.parametrize("value", ["0", "-3", "ten", "1.5"])
def test_a_bad_payment_limit_stops_the_store_with_its_name(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PAYMENT_REQUESTS_PER_MINUTE", value)
    with pytest.raises(ValueError, match="PAYMENT_REQUESTS_PER_MINUTE"):
        Settings()


def test_the_local_try_on_engine_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TRYON_ENGINE", "TRYON_ENDPOINT", "TRYON_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert Settings().tryon_engine == "local"


def test_a_try_on_endpoint_picks_the_remote_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRYON_ENGINE", raising=False)
    monkeypatch.setenv("TRYON_ENDPOINT", "https://tryon.example")
    monkeypatch.setenv("TRYON_TIMEOUT_SECONDS", "2.5")
    settings = Settings()
    assert (settings.tryon_engine, settings.tryon_endpoint, settings.tryon_timeout_seconds) == (
        "remote", "https://tryon.example", 2.5,
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"TRYON_ENGINE": "cloud"}, "TRYON_ENGINE must be one of local, remote"),
        ({"TRYON_ENGINE": "remote"}, "TRYON_ENGINE=remote needs TRYON_ENDPOINT"),
        ({"TRYON_ENGINE": "local", "TRYON_ENDPOINT": "https://tryon.example"}, "TRYON_ENDPOINT is set"),
        ({"TRYON_API_KEY": "secret"}, "TRYON_API_KEY is set but TRYON_ENDPOINT is not"),
        ({"TRYON_ENDPOINT": "tryon.example"}, "TRYON_ENDPOINT must be an http"),
        ({"TRYON_TIMEOUT_SECONDS": "0"}, "TRYON_TIMEOUT_SECONDS"),
        ({"TRYON_POLL_INTERVAL_SECONDS": "soon"}, "TRYON_POLL_INTERVAL_SECONDS"),
        ({"TRYON_MAX_WAIT_SECONDS": "-5"}, "TRYON_MAX_WAIT_SECONDS"),
    ],
)
def test_a_bad_try_on_setting_stops_the_store_with_its_name(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], named: str
) -> None:
    for name in ("TRYON_ENGINE", "TRYON_ENDPOINT", "TRYON_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=named):
        Settings()


@pytest.mark.parametrize(
    ("name", "value"),
    [("PORT", "abc"), ("PORT", "70000"), ("OUTBOX_INTERVAL_SECONDS", "0"), ("OUTBOX_INTERVAL_SECONDS", "inf"),
     ("ORDER_POLL_INTERVAL_SECONDS", "0"), ("STORE_ENV", "staging")],
)
def test_a_bad_value_stops_the_start_naming_the_setting_and_the_value(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=f"{name}: .*got '{value}'"):
        Settings()


def test_the_env_file_is_read_and_the_environment_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("PORT=4321\nADMIN_USERNAME=owner\nPRINTIFY_SHOP_ID=77\n# a comment\nREDIS_URL=\n")
    for name in ("PORT", "ADMIN_USERNAME", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRINTIFY_SHOP_ID", "88")
    settings = Settings(_env_file=env_file)
    assert (settings.port, settings.admin_username, settings.printify_shop_id, settings.redis_url) == (
        4321, "owner", "88", "",
    )
    env_file.write_text("OUTBOX_INTERVAL_SECONDS=0\n")
    with pytest.raises(SettingsError, match="OUTBOX_INTERVAL_SECONDS"):
        Settings(_env_file=env_file)


def test_the_project_env_file_is_the_one_read() -> None:
    assert Settings.model_config["env_file"] == PROJECT_ROOT / ".env"


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({"PRINTIFY_WEBHOOK_SECRET": "whsec", "PRINTIFY_API_TOKEN": "t"}, "needs ADMIN_PASSWORD"),
        ({"ADMIN_PASSWORD": "admin123", "PRINTIFY_WEBHOOK_SECRET": "whsec", "PRINTIFY_API_TOKEN": "t"},
         "needs ADMIN_PASSWORD"),
        ({"ADMIN_PASSWORD": "a long secret", "PRINTIFY_WEBHOOK_SECRET": "whsec"}, "needs PRINTIFY_API_TOKEN"),
        ({"ADMIN_PASSWORD": "a long secret", "PRINTIFY_API_TOKEN": "t"}, "needs PRINTIFY_WEBHOOK_SECRET"),
    ],
)
def test_production_refuses_the_demo_defaults(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], refusal: str
) -> None:
    for name in ("ADMIN_PASSWORD", "PRINTIFY_WEBHOOK_SECRET", "PRINTIFY_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STORE_ENV", "production")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=refusal):
        Settings()


LIVE_STRIPE = {
    "STRIPE_SECRET_KEY": "sk_live_abc",
    "STRIPE_PUBLISHABLE_KEY": "pk_live_abc",
    "STRIPE_WEBHOOK_SECRET": "whsec_abc",
}
STRIPE_NAMES = (*LIVE_STRIPE, "ALLOW_TEST_PAYMENTS")


def _production(monkeypatch: pytest.MonkeyPatch, **stripe: str) -> None:
    """A production environment with everything but (unless given) Stripe."""
    monkeypatch.setenv("STORE_ENV", "Production")
    monkeypatch.setenv("PRINTIFY_API_TOKEN", "token")
    monkeypatch.setenv("ADMIN_PASSWORD", "a long secret")
    monkeypatch.setenv("PRINTIFY_WEBHOOK_SECRET", "whsec")
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://shop.example")
    monkeypatch.setenv("SECRET_KEY", "a long random secret, long enough to sign links")
    monkeypatch.setenv("MAIL_FROM", "Shop <shop@shop.example>")
    monkeypatch.delenv("SUPPORT_EMAIL", raising=False)
    for name in STRIPE_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in stripe.items():
        monkeypatch.setenv(name, value)


def test_production_starts_with_its_own_password_webhook_secret_and_live_stripe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    settings = Settings()
    assert settings.store_env == "production" and not settings.admin_uses_default_password
    assert settings.uses_stripe and not settings.stripe_test_mode


def test_production_refuses_the_test_gateway_and_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    _production(monkeypatch)
    with pytest.raises(
        SettingsError, match="needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET"
    ):
        Settings()


def test_production_refuses_stripe_without_its_webhook_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    _production(monkeypatch, STRIPE_SECRET_KEY="sk_live_abc", STRIPE_PUBLISHABLE_KEY="pk_live_abc")
    with pytest.raises(SettingsError, match="needs STRIPE_WEBHOOK_SECRET"):
        Settings()


def test_production_refuses_a_stripe_test_key_unless_a_staging_store_allows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    test_keys = {
        "STRIPE_SECRET_KEY": "sk_test_abc",
        "STRIPE_PUBLISHABLE_KEY": "pk_test_abc",
        "STRIPE_WEBHOOK_SECRET": "whsec_abc",
    }
    _production(monkeypatch, **test_keys)
    with pytest.raises(SettingsError, match="test-mode key .*ALLOW_TEST_PAYMENTS=1"):
        Settings()
    monkeypatch.setenv("ALLOW_TEST_PAYMENTS", "1")
    assert Settings().stripe_test_mode


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({"STRIPE_SECRET_KEY": "sk_test_abc"}, "STRIPE_PUBLISHABLE_KEY"),
        (
            {"STRIPE_SECRET_KEY": "sk_live_abc", "STRIPE_PUBLISHABLE_KEY": "pk_test_abc"},
            "must both be live keys or both test keys",
        ),
        ({"STRIPE_SECRET_KEY": "pk_test_abc", "STRIPE_PUBLISHABLE_KEY": "pk_test_abc"}, "must be a Stripe secret key"),
        ({"STRIPE_WEBHOOK_SECRET": "whsec_abc"}, "STRIPE_WEBHOOK_SECRET is set but STRIPE_SECRET_KEY is not"),
        (
            {
                "STRIPE_SECRET_KEY": "sk_test_a",
                "STRIPE_PUBLISHABLE_KEY": "pk_test_a",
                "STRIPE_API_BASE": "api.stripe.com",
            },
            "STRIPE_API_BASE must be an http",
        ),
    ],
)
def test_stripe_keys_that_do_not_go_together_stop_the_start(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], refusal: str
) -> None:
    for name in (*STRIPE_NAMES, "STORE_ENV", "STRIPE_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=refusal):
        Settings()


def test_unpaid_orders_expire_after_a_day_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNPAID_ORDER_TTL_HOURS", raising=False)
    assert Settings().unpaid_order_ttl_hours == 24
    monkeypatch.setenv("UNPAID_ORDER_TTL_HOURS", "0")
    with pytest.raises(SettingsError, match="UNPAID_ORDER_TTL_HOURS"):
        Settings()


def test_the_demo_keeps_its_defaults_outside_production(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STORE_ENV", "ADMIN_PASSWORD", "PRINTIFY_WEBHOOK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.store_env == "development" and settings.admin_password == "admin123"
    assert settings.admin_uses_default_password and settings.printify_webhook_secret == ""


def test_production_needs_the_stores_own_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    assert Settings().allowed_origin_list == ["https://shop.example"]
    monkeypatch.delenv("ALLOWED_ORIGINS")
    with pytest.raises(SettingsError, match="STORE_ENV=production needs ALLOWED_ORIGINS"):
        Settings()


def test_production_needs_a_secret_key_for_the_email_links(monkeypatch: pytest.MonkeyPatch) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    monkeypatch.delenv("SECRET_KEY")
    with pytest.raises(SettingsError, match="STORE_ENV=production needs SECRET_KEY"):
        Settings()


@pytest.mark.parametrize(
    ("name", "value", "refusal"),
    [
        ("ADMIN_PASSWORD", "a", "needs an ADMIN_PASSWORD of at least 12 characters \\(it has 1\\)"),
        ("ADMIN_PASSWORD", "elevenchars", "needs an ADMIN_PASSWORD of at least 12 characters"),
        ("SECRET_KEY", "x", "needs a SECRET_KEY of at least 32 characters \\(it has 1\\)"),
        ("SECRET_KEY", "s" * 31, "needs a SECRET_KEY of at least 32 characters"),
        ("TRUSTED_PROXIES", "*", "refuses TRUSTED_PROXIES=\\*"),
        ("TRUSTED_PROXIES", "10.0.0.1,*", "refuses TRUSTED_PROXIES=\\*"),
        ("ALLOWED_ORIGINS", "http://shop.example", "needs https:// origins in ALLOWED_ORIGINS, got 'http://shop.example'"),
        ("ALLOWED_ORIGINS", "https://shop.example,http://10.0.0.5:3000", "got 'http://10.0.0.5:3000'"),
    ],
)
def test_production_refuses_each_weak_setting_with_its_own_message(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, refusal: str
) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=refusal):
        Settings()


def test_production_takes_named_proxies_and_http_on_this_machine_only(monkeypatch: pytest.MonkeyPatch) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8,::1")
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://shop.example,http://localhost:3000,http://127.0.0.1:3000,http://[::1]:3000")
    settings = Settings()
    assert settings.trusted_proxies == "10.0.0.0/8,::1" and len(settings.allowed_origin_list) == 4
    monkeypatch.setenv("STORE_ENV", "development")
    monkeypatch.setenv("TRUSTED_PROXIES", "*")
    monkeypatch.setenv("ALLOWED_ORIGINS", "http://shop.example")
    monkeypatch.setenv("ADMIN_PASSWORD", "a")
    monkeypatch.setenv("SECRET_KEY", "x")
    assert Settings().trusted_proxies == "*"  # development keeps taking them


def test_email_links_use_the_first_allowed_origin_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://shop.example,https://www.shop.example")
    monkeypatch.delenv("PUBLIC_URL", raising=False)
    assert Settings().public_url == "https://shop.example"
    monkeypatch.setenv("PUBLIC_URL", "https://www.shop.example/")
    assert Settings().public_url == "https://www.shop.example"
    monkeypatch.setenv("SMTP_URL", "http://mail.example")
    with pytest.raises(SettingsError, match="SMTP_URL"):
        Settings()


def test_order_links_open_for_a_year_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORDER_LINK_DAYS", raising=False)
    assert Settings().order_link_days == 365
    monkeypatch.setenv("ORDER_LINK_DAYS", "30")
    assert Settings().order_link_days == 30
    monkeypatch.setenv("ORDER_LINK_DAYS", "0")
    with pytest.raises(SettingsError, match="ORDER_LINK_DAYS"):
        Settings()


def test_backups_are_off_until_backup_dir_is_set_and_a_relative_one_is_the_projects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("BACKUP_DIR", "BACKUP_EVERY_HOURS", "BACKUP_KEEP"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert (settings.backup_dir, settings.backup_every_hours, settings.backup_keep) == (None, 24, 7)
    monkeypatch.setenv("BACKUP_DIR", "backups/nightly")
    assert Settings().backup_dir == PROJECT_ROOT / "backups" / "nightly"
    for name, value in (("BACKUP_EVERY_HOURS", "0"), ("BACKUP_KEEP", "0")):
        monkeypatch.setenv(name, value)
        with pytest.raises(SettingsError, match=name):
            Settings()
        monkeypatch.delenv(name)


def test_metrics_networks_and_log_format_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS_ALLOWED_NETWORKS", "10.0.0.0/8, 192.168.1.7")
    monkeypatch.setenv("LOG_FORMAT", "JSON")
    settings = Settings()
    assert (settings.metrics_allowed_networks, settings.log_format) == ("10.0.0.0/8,192.168.1.7", "json")
    monkeypatch.setenv("METRICS_ALLOWED_NETWORKS", "the office")
    with pytest.raises(SettingsError, match="METRICS_ALLOWED_NETWORKS: 'the office' is not an IP address or network"):
        Settings()
    monkeypatch.delenv("METRICS_ALLOWED_NETWORKS")
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(SettingsError, match="LOG_FORMAT"):
        Settings()


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({"MAIL_FROM": "Storefront <shop@localhost>"}, "needs MAIL_FROM at the shop's own domain"),
        ({"MAIL_FROM": "shop@127.0.0.1"}, "needs MAIL_FROM at the shop's own domain"),
        ({"SUPPORT_EMAIL": "help@localhost"}, "needs SUPPORT_EMAIL at a real domain"),
    ],
)
def test_production_refuses_a_localhost_sender(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], refusal: str
) -> None:
    _production(monkeypatch, **LIVE_STRIPE)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=refusal):
        Settings()


def test_the_support_address_is_the_senders_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAIL_FROM", "Shop <orders@shop.example>")
    monkeypatch.delenv("SUPPORT_EMAIL", raising=False)
    assert Settings().support_address == "orders@shop.example"
    monkeypatch.setenv("SUPPORT_EMAIL", "help@shop.example")
    assert Settings().support_address == "help@shop.example"
    monkeypatch.setenv("SUPPORT_EMAIL", "not an address")
    with pytest.raises(SettingsError, match="SUPPORT_EMAIL"):
        Settings()


def test_ship_to_countries_are_iso_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHIP_TO_COUNTRIES", raising=False)
    assert Settings().ship_to == ("US",)
    monkeypatch.setenv("SHIP_TO_COUNTRIES", " us, CA ,us")
    assert Settings().ship_to == ("US", "CA")
    monkeypatch.setenv("SHIP_TO_COUNTRIES", "US,Canada")
    with pytest.raises(SettingsError, match="SHIP_TO_COUNTRIES: 'CANADA' is not an ISO 3166-1 two-letter country code"):
        Settings()
