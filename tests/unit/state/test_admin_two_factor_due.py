"""While two-factor sign-in is due for a person, the one role check lets through only setting it up
(and the person's own session and password): for the API's guard and every admin handler alike."""

from __future__ import annotations

import asyncio

import pytest

from storefront.models import utcnow
from storefront.services.admin.auth import AdminAuth, SignedIn
from storefront.services.platform.errors import ForbiddenError
from storefront.services.staff import roles
from storefront.services.staff.two_factor import SET_UP_FIRST, is_due
from storefront.state.admin.session import admin_event


def _signed_in(due: bool, role: str = roles.OWNER) -> SignedIn:
    return SignedIn(1, "sam", utcnow(), role, 1, two_factor_due=due)


def test_it_is_due_when_off_and_required_or_for_the_owner_in_production() -> None:
    assert is_due(enabled=False, required=True, role=roles.STAFF, production=False)
    assert is_due(enabled=False, required=False, role=roles.OWNER, production=True)
    assert not is_due(enabled=False, required=False, role=roles.STAFF, production=True)
    assert not is_due(enabled=False, required=False, role=roles.OWNER, production=False)
    assert not is_due(enabled=True, required=True, role=roles.OWNER, production=True)


@pytest.mark.parametrize("permission", [p for p in roles.PERMISSIONS if p != roles.SIGNED_IN])
def test_while_due_everything_but_setting_it_up_is_refused(permission: str) -> None:
    with pytest.raises(ForbiddenError, match=SET_UP_FIRST):
        AdminAuth.authorize(_signed_in(due=True), permission)
    assert AdminAuth.authorize(_signed_in(due=False), permission).username == "sam"


def test_while_due_the_persons_own_session_password_and_two_factor_stay_open() -> None:
    signed_in = _signed_in(due=True, role=roles.FULFILMENT)
    for state in ("TwoFactorState", "AccountState", "AdminLoginState"):
        assert AdminAuth.authorize(signed_in, roles.handler_permission(state, "any")) is signed_in
    for method, path in (("GET", "/api/admin/two-factor"), ("POST", "/api/admin/two-factor/enrol"),
                         ("POST", "/api/admin/two-factor/confirm"), ("POST", "/api/admin/password"),
                         ("POST", "/api/admin/logout"), ("GET", "/api/admin/session")):
        assert AdminAuth.authorize(signed_in, roles.route_permission(method, path)) is signed_in
    # The shop picker of the product tabs is no part of setting it up.
    assert roles.handler_permission("ShopsState", "load_shops") not in roles.WHILE_TWO_FACTOR_DUE


class DueAdmin:
    """Just what `admin_event` touches, for a person who must set up two-factor sign-in first."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def _signed_in(self) -> SignedIn:
        return _signed_in(due=True)

    @admin_event
    async def rename(self, title: str) -> None:
        self.ran.append(title)


def test_while_due_an_admin_handler_is_refused_with_the_reason_and_does_not_run() -> None:
    admin = DueAdmin()
    refusal = asyncio.run(admin.rename("New"))
    assert refusal is not None and SET_UP_FIRST in str(refusal)
    assert admin.ran == []
