"""Admin sign-in routes and the guard every admin route depends on."""

from __future__ import annotations

from fastapi import APIRouter, Body, Depends, Header, Request
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from storefront.api.admin.session_schemas import LoginAnswer, LoginRequest, SessionAnswer
from storefront.api.errors import error_response
from storefront.api.orders import client_address
from storefront.api.schemas import LoginErrorBody, Success, dump, errors
from storefront.services.admin.auth import SignedIn
from storefront.services.platform.errors import ServiceError
from storefront.services.staff import roles
from storefront.services.staff.activity import Actor

ADMIN_TOKEN_HEADER = "x-admin-token"
LOGIN_FAILED = "Login failed"

router = APIRouter()


def require_admin(request: Request, token: str | None = Header(None, alias=ADMIN_TOKEN_HEADER)) -> SignedIn:
    """The admin session of the x-admin-token header, when its role may call this route (the
    table in services/staff/roles.py); 401 when missing, wrong, expired or revoked, 403 for a role
    that may not, and 403 for all but setting it up while two-factor sign-in is due for the person."""
    auth = request.app.state.services.auth
    signed_in = auth.verify(token)
    route = request.scope.get("route")
    path = route.path if isinstance(route, APIRoute) else request.url.path
    request.state.signed_in = auth.authorize(signed_in, roles.route_permission(request.method, path))
    return signed_in


def actor_of(request: Request) -> Actor:
    """Who calls this admin route (its guard ran first) and from which address: what the activity log names."""
    signed_in: SignedIn = request.state.signed_in
    return Actor(signed_in.username, client_address(request))


#: Every admin router is built with this, so no admin route can forget the check.
ADMIN_ONLY = [Depends(require_admin)]


#: What every admin route may answer besides its own statuses.
ADMIN_ERRORS = errors(401, 403, 422)


@router.post(
    "/api/admin/login",
    response_model=LoginAnswer,
    responses=errors(401, 422, 429, model=LoginErrorBody, d401="Invalid username or password"),
)
async def login(request: Request, payload: LoginRequest | None = Body(None)) -> JSONResponse:
    """{username, password} -> {token}; on failure {message} (the spec's shape) plus error/details.
    A person with two-factor sign-in on sends `code` too (a 401 with details.code asks for it).

    After many failures for the username this minute, from anywhere, the answer comes only after a
    growing delay (a few seconds at most); the right password is never refused for them."""
    data = dump(payload)
    try:
        token = await request.app.state.services.auth.login(
            data.get("username"), data.get("password"), client_address(request), code=data.get("code")
        )
    except ServiceError as exc:
        return error_response(exc, message=exc.message or LOGIN_FAILED)
    return JSONResponse({"token": token})


admin_router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS)


@admin_router.post("/api/admin/logout", response_model=Success)
def logout(request: Request, token: str | None = Header(None, alias=ADMIN_TOKEN_HEADER)) -> dict[str, bool]:
    """Revoke this session; its token opens nothing from now on."""
    request.app.state.services.auth.logout(token)
    return {"success": True}


@admin_router.get("/api/admin/session", response_model=SessionAnswer)
def session(signed_in: SignedIn = Depends(require_admin)) -> dict[str, object]:
    """Who is signed in, until when, and what their role may do."""
    return {
        "username": signed_in.username, "expiresAt": signed_in.expires_at.isoformat(), "role": signed_in.role,
        "permissions": roles.permissions_of(signed_in.role), "twoFactorDue": signed_in.two_factor_due,
    }
