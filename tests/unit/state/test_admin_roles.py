"""Every admin state is in the roles table, so each of its handlers is checked for the right role."""

from __future__ import annotations

from storefront.services.staff import roles
from tests.unit.state.test_admin_guard import _admin_state_classes, _handlers


def test_every_admin_state_names_what_its_handlers_need() -> None:
    missing = [
        cls.__name__ for cls in _admin_state_classes()
        if cls.__module__.startswith("storefront.") and cls.__name__ not in roles.STATE_PERMISSIONS
    ]
    assert missing == []


def test_refunds_in_the_orders_tab_need_the_refund_permission() -> None:
    from storefront.state.admin.orders import OrdersState

    for name in ("ask_refund", "ask_cancel", "confirm_refund", "confirm"):
        assert name in _handlers(OrdersState)
        assert roles.handler_permission("OrdersState", name) == roles.REFUNDS
    assert not roles.allows(roles.STAFF, roles.REFUNDS)
    assert roles.allows(roles.OWNER, roles.REFUNDS)


def test_an_unknown_state_or_route_is_the_owners_alone() -> None:
    assert roles.handler_permission("SomeNewState", "do") == roles.ACCOUNTS
    assert roles.route_permission("POST", "/api/admin/new-thing") == roles.ACCOUNTS
    assert [role for role in roles.ROLES if roles.allows(role, roles.ACCOUNTS)] == [roles.OWNER]
