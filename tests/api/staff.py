"""The shop owner's account in API tests: set in the environment, logged in for its token header."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from storefront.api.admin.session import ADMIN_TOKEN_HEADER

USERNAME = "owner"
PASSWORD = "correct horse battery"
LOGIN = "/api/admin/login"


def as_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make USERNAME / PASSWORD the store's admin account (read by the next `Settings()`)."""
    monkeypatch.setenv("ADMIN_USERNAME", USERNAME)
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)


def owner_headers(client: TestClient) -> dict[str, str]:
    """Log the owner in; the header that carries its token."""
    response = client.post(LOGIN, json={"username": USERNAME, "password": PASSWORD})
    assert response.status_code == 200, response.text
    return {ADMIN_TOKEN_HEADER: response.json()["token"]}
