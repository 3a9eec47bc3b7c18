"""Staff account routes: the owner's list, invitations, disabling and removing; each person's
password change; and the two routes anyone may call, setting a password with an emailed link and
asking for a reset link (limited per address)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request

from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY, require_admin
from storefront.api.admin.staff_schemas import (
    AccountAnswer,
    ChangePasswordRequest,
    CodeRequest,
    Enrolment,
    InviteAnswer,
    InviteRequest,
    MessageAnswer,
    PolicyRequest,
    RecoveryCodes,
    ResetRequest,
    SetPasswordRequest,
    StaffList,
    TwoFactorStatus,
)
from storefront.api.orders import client_address
from storefront.api.schemas import Success, dump, errors
from storefront.models import DB_INT_MAX
from storefront.services.admin.auth import SignedIn
from storefront.services.staff.accounts import PASSWORD_SET, RESET_SENT, StaffAccounts
from storefront.services.staff.activity import Actor
from storefront.services.staff.two_factor import TwoFactor

AccountId = Annotated[int, Path(ge=1, le=DB_INT_MAX)]

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["admin: staff"])
public_router = APIRouter(tags=["admin: staff"])


def _accounts(request: Request) -> StaffAccounts:
    accounts: StaffAccounts = request.app.state.services.staff_accounts
    return accounts


def _actor(request: Request, signed_in: SignedIn) -> Actor:
    return Actor(signed_in.username, client_address(request))


@router.get("/api/admin/staff", response_model=StaffList)
def list_staff(request: Request) -> dict[str, Any]:
    """Every account: the owner first, then invited people in the order they were invited."""
    return {"data": [view.as_dict() for view in _accounts(request).list_accounts()]}


@router.post("/api/admin/staff", response_model=InviteAnswer, status_code=201, responses=errors(422))
def invite(
    request: Request, payload: InviteRequest | None = Body(None), admin: SignedIn = Depends(require_admin)
) -> dict[str, Any]:
    """Invite a person by email: the account, and the single-use link to set a password (also emailed)."""
    data = dump(payload)
    view, link = _accounts(request).invite(
        _actor(request, admin), data.get("email"), data.get("username"), data.get("role")
    )
    return {"account": view.as_dict(), "link": link}


@router.post("/api/admin/staff/{account_id}/disable", response_model=AccountAnswer, responses=errors(403, 404))
def disable(account_id: AccountId, request: Request, admin: SignedIn = Depends(require_admin)) -> dict[str, Any]:
    """Disable the account: its open sessions stop working at their next call."""
    return {"account": _accounts(request).disable(_actor(request, admin), account_id).as_dict()}


@router.post("/api/admin/staff/{account_id}/enable", response_model=AccountAnswer, responses=errors(403, 404))
def enable(account_id: AccountId, request: Request, admin: SignedIn = Depends(require_admin)) -> dict[str, Any]:
    return {"account": _accounts(request).enable(_actor(request, admin), account_id).as_dict()}


@router.delete("/api/admin/staff/{account_id}", response_model=Success, responses=errors(403, 404))
def remove(account_id: AccountId, request: Request, admin: SignedIn = Depends(require_admin)) -> dict[str, bool]:
    """Remove the account; its sessions end now (the activity log keeps its name)."""
    _accounts(request).remove(_actor(request, admin), account_id)
    return {"success": True}


@router.post("/api/admin/password", response_model=Success, responses=errors(422))
def change_password(
    request: Request, payload: ChangePasswordRequest | None = Body(None), admin: SignedIn = Depends(require_admin)
) -> dict[str, bool]:
    """Change one's own password: {current, new}."""
    data = dump(payload)
    _accounts(request).change_password(_actor(request, admin), data.get("current"), data.get("new"))
    return {"success": True}


@public_router.post("/api/staff/set-password", response_model=MessageAnswer, responses=errors(422))
def set_password(request: Request, payload: SetPasswordRequest | None = Body(None)) -> dict[str, Any]:
    """Set a password with the token of an invitation or reset link (each link works once)."""
    data = dump(payload)
    _accounts(request).set_password_with_link(data.get("token"), data.get("password"), client_address(request))
    return {"success": True, "message": PASSWORD_SET}


@public_router.post("/api/staff/reset-password", response_model=MessageAnswer, responses=errors(422, 429))
def request_reset(request: Request, payload: ResetRequest | None = Body(None)) -> dict[str, Any]:
    """Email a reset link to the account with this username or email; the same answer either way
    (the /admin/forgot-password page asks the same service)."""
    _accounts(request).request_reset(dump(payload).get("username"), client_address(request))
    return {"success": True, "message": RESET_SENT}


def _two_factor(request: Request) -> TwoFactor:
    two_factor: TwoFactor = request.app.state.services.two_factor
    return two_factor


@router.get("/api/admin/two-factor", response_model=TwoFactorStatus)
def two_factor_status(request: Request, admin: SignedIn = Depends(require_admin)) -> dict[str, object]:
    """Whether the signed-in person uses two-factor sign-in, and how many recovery codes are left."""
    return _two_factor(request).status(admin.username)


@router.post("/api/admin/two-factor/enrol", response_model=Enrolment, responses=errors(409))
def enrol(request: Request, admin: SignedIn = Depends(require_admin)) -> dict[str, str]:
    """Start the set-up: a new secret and its QR code (on once a code from the app confirms it)."""
    enrolment = _two_factor(request).start(_actor(request, admin))
    return {"secret": enrolment.secret, "uri": enrolment.uri, "qr": enrolment.qr_svg_data_uri}


@router.post("/api/admin/two-factor/confirm", response_model=RecoveryCodes, responses=errors(409, 422))
def confirm(
    request: Request, payload: CodeRequest | None = Body(None), admin: SignedIn = Depends(require_admin)
) -> dict[str, list[str]]:
    """Turn two-factor sign-in on with the app's first code: the ten recovery codes, shown once."""
    codes = _two_factor(request).confirm(_actor(request, admin), dump(payload).get("code"))
    return {"recoveryCodes": codes}


@router.post("/api/admin/two-factor/disable", response_model=Success, responses=errors(422))
def turn_off(
    request: Request, payload: CodeRequest | None = Body(None), admin: SignedIn = Depends(require_admin)
) -> dict[str, bool]:
    """Turn it off with a current code (or a recovery code)."""
    _two_factor(request).turn_off(_actor(request, admin), dump(payload).get("code"))
    return {"success": True}


@router.post("/api/admin/two-factor/policy", response_model=Success)
def require_two_factor(
    request: Request, payload: PolicyRequest | None = Body(None), admin: SignedIn = Depends(require_admin)
) -> dict[str, bool]:
    """The owner asks everyone to use two-factor sign-in ({required: true}) or stops asking."""
    _two_factor(request).require_for_everyone(_actor(request, admin), bool(payload and payload.required))
    return {"success": True}
