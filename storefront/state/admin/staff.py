"""The Staff tab (the owner's accounts, invitations and two-factor policy), the Account tab (one's
own password and two-factor sign-in), the page an invitation or reset link opens (setting a
password) and the page that asks for a reset link."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypedDict

import reflex as rx

from storefront.services.platform.errors import ServiceError, TooManyRequestsError, ValidationError
from storefront.services.staff.accounts import PASSWORD_SET, RESET_SENT, StaffAccounts
from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.wiring import services

log = logging.getLogger(__name__)

INVITATION_SENT = "Invitation sent"
ACCOUNT_DISABLED = "Account disabled"
ACCOUNT_ENABLED = "Account enabled"
ACCOUNT_REMOVED = "Account removed"
PASSWORD_CHANGED = "Password changed"
TWO_FACTOR_ON = "Two-factor sign-in is on"
TWO_FACTOR_OFF = "Two-factor sign-in is off"
TWO_FACTOR_REQUIRED = "Two-factor sign-in is required for everyone"
TWO_FACTOR_NOT_REQUIRED = "Two-factor sign-in is no longer required"
READ_LINK_TOKEN_SCRIPT = "new URLSearchParams(window.location.search).get('token') || ''"


class AccountRow(TypedDict):
    id: int
    username: str
    email: str
    role: str
    roleLabel: str
    status: str
    twoFactor: bool


def staff_accounts() -> StaffAccounts:
    return services().staff_accounts


def _rows() -> list[AccountRow]:
    return [AccountRow(**view.as_dict()) for view in staff_accounts().list_accounts()]  # type: ignore[typeddict-item]


class StaffAdminState(AdminState):
    """Every account, the invitation form and the link of the last invitation."""

    accounts: list[AccountRow] = []
    invite_errors: dict[str, str] = {}
    last_link: str = ""
    busy: bool = False
    #: The owner asks everyone to use two-factor sign-in (the switch).
    require_two_factor: bool = False

    @rx.event
    @admin_event
    async def load(self):
        self.accounts = await asyncio.to_thread(_rows)
        self.require_two_factor = await asyncio.to_thread(services().two_factor.is_required)
        return None

    @rx.event
    @admin_event
    async def set_require_two_factor(self, required: bool):
        """The switch: require two-factor sign-in for everyone, or stop (logged by the service)."""
        actor = await self._actor()
        try:
            await asyncio.to_thread(services().two_factor.require_for_everyone, actor, bool(required))
        except ServiceError as error:
            return rx.toast.error(error.message)
        self.require_two_factor = await asyncio.to_thread(services().two_factor.is_required)
        # An owner without it is asked to set it up too: the dashboard shows that at once.
        await self._signed_in()
        return rx.toast.success(TWO_FACTOR_REQUIRED if self.require_two_factor else TWO_FACTOR_NOT_REQUIRED)

    @rx.event
    @admin_event
    async def invite(self, form: dict[str, Any]):
        """Invite the person the form names; the link is shown (and emailed)."""
        if self.busy:
            return None
        self.busy, self.invite_errors, self.last_link = True, {}, ""
        actor = await self._actor()
        try:
            _view, link = await asyncio.to_thread(
                staff_accounts().invite, actor, form.get("email"), form.get("username"), form.get("role")
            )
        except ValidationError as error:
            self.invite_errors = error.field_errors
            return None
        finally:
            self.busy = False
        self.last_link = link
        self.accounts = await asyncio.to_thread(_rows)
        return rx.toast.success(INVITATION_SENT)

    async def _change(self, account_id: int, change: str, done: str):
        actor = await self._actor()
        action = getattr(staff_accounts(), change)
        try:
            await asyncio.to_thread(action, actor, int(account_id))
        except ServiceError as error:
            return rx.toast.error(error.message)
        except Exception:
            log.exception("%s of account %s failed", change, account_id)
            return rx.toast.error(GENERIC_FAILURE)
        self.accounts = await asyncio.to_thread(_rows)
        return rx.toast.success(done)

    @rx.event
    @admin_event
    async def disable(self, account_id: int):
        """Disable the account: its open sessions stop working at their next call."""
        return await self._change(account_id, "disable", ACCOUNT_DISABLED)

    @rx.event
    @admin_event
    async def enable(self, account_id: int):
        return await self._change(account_id, "enable", ACCOUNT_ENABLED)

    @rx.event
    @admin_event
    async def remove(self, account_id: int):
        return await self._change(account_id, "remove", ACCOUNT_REMOVED)


class AccountState(AdminState):
    """The signed-in person's own password."""

    password_errors: dict[str, str] = {}
    password_saving: bool = False

    @rx.event
    @admin_event
    async def change_password(self, form: dict[str, Any]):
        if self.password_saving:
            return None
        self.password_saving, self.password_errors = True, {}
        actor = await self._actor()
        try:
            await asyncio.to_thread(staff_accounts().change_password, actor, form.get("current"), form.get("new"))
        except ValidationError as error:
            self.password_errors = error.field_errors
            return None
        finally:
            self.password_saving = False
        return rx.toast.success(PASSWORD_CHANGED)


class SetPasswordState(rx.State):
    """/admin/set-password: the link's token (read from the address once) and the new password.
    Anyone may open it; only the token of a live, unused link sets anything."""

    _link_token: str = ""
    errors: dict[str, str] = {}
    done: bool = False
    saving: bool = False

    @rx.event
    def open_page(self):
        self.errors, self.done, self.saving = {}, False, False
        return rx.call_script(READ_LINK_TOKEN_SCRIPT, callback=SetPasswordState.keep_token)

    @rx.event
    def keep_token(self, token: str):
        self._link_token = token if isinstance(token, str) else ""

    @rx.event
    async def submit(self, form: dict[str, Any]):
        if self.saving:
            return None
        password = form.get("password")
        if password != form.get("confirm"):
            self.errors = {"confirm": "The passwords do not match"}
            return None
        self.saving, self.errors = True, {}
        client = self.router.session.client_ip or ""
        try:
            await asyncio.to_thread(staff_accounts().set_password_with_link, self._link_token, password, client)
        except ValidationError as error:
            self.errors = error.field_errors
            return None
        except Exception:
            log.exception("setting a password with a link failed")
            self.errors = {"token": GENERIC_FAILURE}
            return None
        finally:
            self.saving = False
        self.done, self._link_token = True, ""
        return rx.toast.success(PASSWORD_SET)


class ForgotPasswordState(rx.State):
    """/admin/forgot-password: anyone asks for a reset link by username or email. The same service
    and the same per-address limit as POST /api/staff/reset-password, and the same neutral answer."""

    errors: dict[str, str] = {}
    #: The answer once a request went through (the same whether an account matched or not).
    sent: str = ""
    sending: bool = False

    @rx.event
    def open_page(self):
        self.errors, self.sent, self.sending = {}, "", False

    @rx.event
    async def submit(self, form: dict[str, Any]):
        if self.sending:
            return None
        self.sending, self.errors, self.sent = True, {}, ""
        client = self.router.session.client_ip or ""
        try:
            await asyncio.to_thread(staff_accounts().request_reset, form.get("username"), client)
        except ValidationError as error:
            self.errors = error.field_errors
            return None
        except TooManyRequestsError as error:
            self.errors = {"form": error.message}
            return None
        except Exception:
            log.exception("asking for a password reset link failed")
            self.errors = {"form": GENERIC_FAILURE}
            return None
        finally:
            self.sending = False
        self.sent = RESET_SENT
        return None


class TwoFactorState(AdminState):
    """The Account tab's two-factor card: set-up with a QR code, the recovery codes shown once, turning it off."""

    enabled: bool = False
    codes_left: int = 0
    qr: str = ""
    secret: str = ""
    recovery_codes: list[str] = []
    code_error: str = ""
    #: Set up because it was due: the dashboard keeps showing the new recovery codes until the
    #: person goes on (AdminState.two_factor_due is off by then).
    codes_before_dashboard: bool = False

    @rx.event
    @admin_event
    async def load(self):
        actor = await self._actor()
        status = await asyncio.to_thread(services().two_factor.status, actor.username)
        self.enabled, self.codes_left = bool(status["enabled"]), int(status["recoveryCodesLeft"])  # type: ignore[call-overload]
        return None

    @rx.event
    @admin_event
    async def start(self):
        """Show a new secret and its QR code to add to an authenticator app."""
        actor = await self._actor()
        try:
            enrolment = await asyncio.to_thread(services().two_factor.start, actor)
        except ServiceError as error:
            return rx.toast.error(error.message)
        self.qr, self.secret, self.recovery_codes, self.code_error = enrolment.qr_svg_data_uri, enrolment.secret, [], ""
        return None

    @rx.event
    @admin_event
    async def confirm(self, form: dict[str, Any]):
        """Turn it on with the app's first code; the recovery codes are shown this once."""
        actor = await self._actor()
        try:
            codes = await asyncio.to_thread(services().two_factor.confirm, actor, form.get("code"))
        except ServiceError as error:
            self.code_error = error.message
            return None
        self.recovery_codes, self.qr, self.secret, self.code_error = codes, "", "", ""
        self.enabled, self.codes_left = True, len(codes)
        # The guard lets everything through from now on; the dashboard waits until the codes are kept.
        self.codes_before_dashboard = self.two_factor_due
        await self._signed_in()
        return rx.toast.success(TWO_FACTOR_ON)

    @rx.event
    @admin_event
    async def continue_to_dashboard(self):
        """The recovery codes are kept: on to the dashboard's tabs (the codes are not shown again)."""
        self.codes_before_dashboard, self.recovery_codes = False, []
        return None

    @rx.event
    @admin_event
    async def turn_off(self, form: dict[str, Any]):
        actor = await self._actor()
        try:
            await asyncio.to_thread(services().two_factor.turn_off, actor, form.get("code"))
        except ServiceError as error:
            self.code_error = error.message
            return None
        self.enabled, self.codes_left, self.recovery_codes, self.code_error = False, 0, [], ""
        self.codes_before_dashboard = False
        # Off while it is required: the dashboard asks for it again at once.
        await self._signed_in()
        return rx.toast.success(TWO_FACTOR_OFF)
