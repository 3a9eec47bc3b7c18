"""The admin login form and logout."""

from __future__ import annotations

import asyncio
from typing import Any

import reflex as rx

from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.state.admin.session import DASHBOARD_ROUTE, AdminState, auth, token_hash_of

LOGIN_FAILED = "Login failed"
LOGIN_SUCCESSFUL = "Login successful"
LOGGED_OUT_TITLE = "Logged out"
LOGGED_OUT_TEXT = "You have been successfully logged out"


class AdminLoginState(AdminState):
    """/admin/login: field messages, the inline alert and the default-credentials hint."""

    field_errors: dict[str, str] = {}
    alert: str = ""
    submitting: bool = False
    #: The password was right and the person uses two-factor sign-in: the code field is shown.
    needs_code: bool = False

    #: 'username / password' while the default credentials still sign the owner in, else empty.
    default_hint: str = ""

    @rx.event
    async def open_login(self):
        """on_load: a live session (this tab's, or the one the browser keeps) goes straight to the dashboard."""
        self.field_errors, self.alert, self.submitting, self.needs_code = {}, "", False, False
        credentials = await asyncio.to_thread(auth().default_credentials)
        self.default_hint = " / ".join(credentials) if credentials else ""
        if self._token_hash and await self._signed_in() is not None:
            return rx.redirect(DASHBOARD_ROUTE)
        return self._read_token(AdminLoginState.resume_on_login)

    @rx.event
    async def resume_on_login(self, kept: str):
        """The browser's kept token (from `open_login`): to the dashboard when it is live, else dropped."""
        self._token_hash = token_hash_of(kept)
        if await self._signed_in() is not None:
            return rx.redirect(DASHBOARD_ROUTE)
        return self._forget_session() if kept else None

    @rx.event
    async def login(self, form: dict[str, Any]):
        if self.submitting:
            return None
        self.submitting, self.alert, self.field_errors = True, "", {}
        client = self.router.session.client_ip or "unknown"
        try:
            token = await auth().login(form.get("username"), form.get("password"), client, code=form.get("code"))
        except ValidationError as error:
            self.field_errors = error.field_errors
            return None
        except ServiceError as error:
            if isinstance(error.details, dict) and "code" in error.details:
                self.needs_code, self.field_errors = True, {"code": str(error.details["code"])}
                return None
            self.alert = error.message or LOGIN_FAILED
            return None
        except Exception:  # noqa: BLE001 - the shopper-facing rule: say it failed, keep the page
            self.alert = LOGIN_FAILED
            return None
        finally:
            self.submitting = False
        self.needs_code = False
        return [self._keep_session(token), rx.toast.success(LOGIN_SUCCESSFUL), rx.redirect(DASHBOARD_ROUTE)]

    @rx.event
    async def logout(self):
        """Revoke the session on the server, forget the token, back to the login page."""
        token_hash = self._token_hash
        forget = self._forget_session()
        await asyncio.to_thread(auth().logout_hash, token_hash)
        return [forget, rx.toast(LOGGED_OUT_TITLE, description=LOGGED_OUT_TEXT), self._to_login()]
