"""The admin session in the browser, and the one guard every admin event handler goes through.

The raw token sits only in the browser's local storage (the spec's admin token key). The server
keeps its SHA-256 alone, in a backend-only var, so the state store (Redis with several workers)
never holds a token that opens anything: an admin page sends the token once, with the event that
resumes the session in its tab (`resume_session`), and every admin handler then asks the
server-side session store again through `AdminState._signed_in`. A missing, wrong, expired or
revoked token sends the browser back to the login page with the token removed.

`admin_event` also asks `AdminAuth.authorize` (the one role check, the API's guard asks it too)
whether the person's role may run the handler (services/staff/roles.py says what each needs), and
while two-factor sign-in is due for the person, whether the handler helps set it up; a refused
handler's person is told so and nothing runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import reflex as rx
from reflex.istate.proxy import StateProxy

from storefront.services.admin.auth import MAX_TOKEN_CHARS, AdminAuth, SignedIn, hash_token
from storefront.services.platform.errors import ForbiddenError, UnauthorizedError
from storefront.services.staff import roles
from storefront.services.staff.activity import Actor
from storefront.wiring import services

log = logging.getLogger(__name__)

Handler = TypeVar("Handler", bound=Callable[..., Any])
#: Set on every handler `admin_event` wraps (the guard test reads it).
SESSION_CHECKED = "_admin_session_checked"

ADMIN_TOKEN_KEY = "admin-token"
EXPORT_FAILED = "Export Failed"
GENERIC_FAILURE = "Something went wrong. Please try again."
LOGIN_ROUTE = "/admin/login"
DASHBOARD_ROUTE = "/admin/dashboard"
READ_TOKEN_SCRIPT = f"window.localStorage.getItem({json.dumps(ADMIN_TOKEN_KEY)}) || ''"
FORGET_TOKEN_SCRIPT = f"window.localStorage.removeItem({json.dumps(ADMIN_TOKEN_KEY)})"


def keep_token_script(token: str) -> str:
    """The script that keeps a new session's token in the browser (the only place it is kept)."""
    return f"window.localStorage.setItem({json.dumps(ADMIN_TOKEN_KEY)}, {json.dumps(token)})"


def token_hash_of(kept: object) -> str:
    """The hash of a token the browser sent back, or '' for anything that is not one."""
    if not isinstance(kept, str):
        return ""
    token = kept.strip().strip('"')  # a value kept by rx.LocalStorage before was JSON-quoted
    return hash_token(token) if token and len(token) <= MAX_TOKEN_CHARS else ""


def auth() -> AdminAuth:
    return services().auth


def is_staff(token_hash: str) -> bool:
    """Whether `token_hash` is the hash of a live admin session's token (nothing is changed either way)."""
    if not token_hash:
        return False
    try:
        auth().verify_hash(token_hash)
    except UnauthorizedError:
        return False
    return True


def _lock_for_check(state: Any) -> contextlib.AbstractAsyncContextManager[Any]:
    """The state lock the session check needs: a background handler's proxy holds none yet (it is
    taken here and released before the handler runs); a plain handler already runs under it."""
    if isinstance(state, StateProxy) and not state._is_mutable():
        return state
    return contextlib.nullcontext()


def _refusal(state: Any, handler_name: str, signed_in: SignedIn) -> rx.event.EventSpec | None:
    """None when the role may run the handler; else the toast that says it may not."""
    permission = roles.handler_permission(state.__class__.__name__, handler_name)
    try:
        auth().authorize(signed_in, permission)
    except ForbiddenError as error:
        log.warning("%s (%s) may not run %s.%s", signed_in.username, signed_in.role,
                    state.__class__.__name__, handler_name)
        return rx.toast.error(error.message)
    return None


def admin_event(handler: Handler) -> Handler:
    """Verify the admin session on the server before `handler` runs; signed out, the handler does not
    run and the browser goes to the login page (returned, or yielded by a generator handler).

    Put it under `@rx.event` / `@rx.event(background=True)`, or on a private helper that handlers
    delegate to. It keeps the handler's name, signature and annotations (Reflex reads them) and works
    for coroutine and async generator handlers, in the foreground and in the background.
    """
    if inspect.isasyncgenfunction(handler):

        @functools.wraps(handler)
        async def checked_generator(self: Any, *args: Any, **kwargs: Any) -> Any:
            async with _lock_for_check(self):
                signed_in = await self._signed_in()
                if signed_in is None:
                    yield self._to_login()
                    return
            refusal = _refusal(self, handler.__name__, signed_in)
            if refusal is not None:
                yield refusal
                return
            async for event in handler(self, *args, **kwargs):
                yield event

        setattr(checked_generator, SESSION_CHECKED, True)
        return checked_generator  # type: ignore[return-value]
    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
            async with _lock_for_check(self):
                signed_in = await self._signed_in()
                if signed_in is None:
                    return self._to_login()
            refusal = _refusal(self, handler.__name__, signed_in)
            if refusal is not None:
                return refusal
            return await handler(self, *args, **kwargs)

        setattr(checked, SESSION_CHECKED, True)
        return checked  # type: ignore[return-value]
    msg = f"@admin_event needs an async handler (the session check awaits the store): {handler.__qualname__}"
    raise TypeError(msg)


class AdminState(rx.State):
    """Base of every admin state: holds the session's token hash and verifies it on the server."""

    #: The SHA-256 of this tab's session token; the token itself stays in the browser.
    _token_hash: str = ""
    #: True once the server confirmed the session in this tab: admin pages draw nothing before,
    #: so a visitor without one never sees the dashboard's frame on the way to the login page.
    session_checked: bool = False
    #: The signed-in person, their role and what it may do (the dashboard shows only that; the
    #: server checks again at every handler).
    staff_username: str = ""
    staff_role: str = ""
    permissions: list[str] = []
    #: Two-factor sign-in must be set up first: the dashboard shows only that (the guard refuses the rest).
    two_factor_due: bool = False

    async def _signed_in(self) -> SignedIn | None:
        """The verified session, or None (the hash is then forgotten). Every admin handler checks it
        first, through `@admin_event` (or itself, when it needs the session's username)."""
        token_hash = self._token_hash
        try:
            signed_in = await asyncio.to_thread(auth().verify_hash, token_hash)
        except UnauthorizedError:
            self._token_hash, self.session_checked = "", False
            return None
        self.session_checked = True
        if self.staff_role != signed_in.role or self.staff_username != signed_in.username:
            self.staff_username, self.staff_role = signed_in.username, signed_in.role
            self.permissions = roles.permissions_of(signed_in.role)
        if self.two_factor_due != signed_in.two_factor_due:
            self.two_factor_due = signed_in.two_factor_due
        return signed_in

    async def _actor(self) -> Actor:
        """Who acts in this tab and from which address (what the activity log names); read under
        the state lock, which a background handler takes here."""
        async with _lock_for_check(self):
            return Actor(self.staff_username, self.router.session.client_ip or "")

    def _keep_session(self, token: str) -> rx.event.EventSpec:
        """Sign this tab in with a new token: its hash here, the token in the browser only."""
        self._token_hash = hash_token(token)
        return rx.call_script(keep_token_script(token))

    def _forget_session(self) -> rx.event.EventSpec:
        """Sign this tab out: the hash forgotten here, the token removed from the browser."""
        self._token_hash, self.session_checked = "", False
        self.staff_username, self.staff_role, self.permissions, self.two_factor_due = "", "", [], False
        return rx.call_script(FORGET_TOKEN_SCRIPT)

    @staticmethod
    def _to_login() -> rx.event.EventSpec:
        return rx.redirect(LOGIN_ROUTE)

    @staticmethod
    def _read_token(then: rx.event.EventHandler) -> rx.event.EventSpec:
        """Ask the browser for its kept token and hand it to `then`."""
        return rx.call_script(READ_TOKEN_SCRIPT, callback=then)

    @rx.event
    async def require_session(self):
        """on_load of admin pages: resume the browser's session in this tab, else to the login page."""
        if self._token_hash and await self._signed_in() is not None:
            return None
        return self._read_token(AdminState.resume_session)

    @rx.event
    async def resume_session(self, kept: str):
        """The browser's kept token (from `require_session`): its session, or back to the login page."""
        self._token_hash = token_hash_of(kept)
        if await self._signed_in() is None:
            return [self._forget_session(), self._to_login()]
        return None

    @admin_event
    async def _download_csv(self, make: Callable[[], str], filename: str):
        """A background handler's CSV download, made on the server (a link could not carry the
        session): signed in first, one at a time per tab (the state's own `exporting`), a toast when it fails."""
        async with self:
            if self.exporting:
                return None
            self.exporting = True
        try:
            data = await asyncio.to_thread(make)
        except Exception:
            log.exception("exporting %s failed", filename)
            return rx.toast.error(EXPORT_FAILED, description=GENERIC_FAILURE)
        finally:
            async with self:
                self.exporting = False
        return rx.download(data=data, filename=filename, mime_type="text/csv")
