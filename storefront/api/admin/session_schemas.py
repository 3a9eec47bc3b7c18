"""Request and answer models of the admin sign-in routes (storefront/api/admin/session.py)."""

from __future__ import annotations

from pydantic import Field

from storefront.api.schemas import Text, _example, _Open


class LoginRequest(_Open):
    model_config = _example({"username": "admin", "password": "admin123"})

    username: Text = Field(None, description="Required ('Username is required')")
    password: Text = Field(None, description="Required ('Password is required')")
    code: Text = Field(None, description="The authenticator app's 6-digit code or a recovery code (two-factor sign-in)")


class LoginAnswer(_Open):
    token: str = Field(description="The admin session, sent back in x-admin-token")


class SessionAnswer(_Open):
    username: str
    expiresAt: str
    role: str = Field(description="owner, staff or fulfilment")
    permissions: list[str] = Field(description="What the role may do (services/staff/roles.py)")
    twoFactorDue: bool = Field(
        False, description="Two-factor sign-in must be set up first: until then every other admin route answers 403"
    )
