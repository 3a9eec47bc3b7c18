from pathlib import Path

import pytest

from storefront.config import PROJECT_ROOT, Settings


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


@pytest.mark.parametrize("name", ["TRYON_ENDPOINT", "TRYON_API_KEY"])
def test_a_try_on_setting_not_wired_yet_stops_the_store_with_its_name(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "https://tryon.example")
    with pytest.raises(ValueError, match=f"{name} is not supported yet"):
        Settings()
