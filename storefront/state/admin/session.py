"""The admin session in the browser, and the one guard every admin event handler goes through.

The token sits in the browser's local storage (the spec's admin token key), but nothing is
trusted because of it: every admin handler asks the server-side session store again through
`AdminState._signed_in`, and a missing, wrong, expired or revoked token sends the browser back to
the login page with the token removed.
"""

from __future__ import annotations

import asyncio

import reflex as rx

from storefront.config import get_settings
from storefront.services.admin.auth import AdminAuth, SignedIn
from storefront.services.platform.errors import UnauthorizedError
from storefront.wiring import admin_auth

ADMIN_TOKEN_KEY = "admin-token"
LOGIN_ROUTE = "/admin/login"
DASHBOARD_ROUTE = "/admin/dashboard"


def auth() -> AdminAuth:
    return admin_auth(get_settings())


def is_staff(token: str) -> bool:
    """Whether `token` belongs to a live admin session (nothing is changed either way)."""
    if not token:
        return False
    try:
        auth().verify(token)
    except UnauthorizedError:
        return False
    return True


class AdminState(rx.State):
    """Base of every admin state: holds the token and verifies it on the server."""

    admin_token: str = rx.LocalStorage("", name=ADMIN_TOKEN_KEY, sync=True)
    #: True once the server confirmed the session in this tab: admin pages draw nothing before,
    #: so a visitor without one never sees the dashboard's frame on the way to the login page.
    session_checked: bool = False

    async def _signed_in(self) -> SignedIn | None:
        """The verified session, or None (the token is then cleared). Call it first in every handler."""
        token = self.admin_token
        try:
            signed_in = await asyncio.to_thread(auth().verify, token)
        except UnauthorizedError:
            self.admin_token, self.session_checked = "", False
            return None
        self.session_checked = True
        return signed_in

    @staticmethod
    def _to_login() -> rx.event.EventSpec:
        return rx.redirect(LOGIN_ROUTE)

    @rx.event
    async def require_session(self):
        """on_load of admin pages: back to the login page without a live session."""
        if await self._signed_in() is None:
            return self._to_login()
        return None
