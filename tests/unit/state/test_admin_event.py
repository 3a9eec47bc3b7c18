"""`@admin_event` checks the admin session before a handler runs and keeps what Reflex reads of it."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest

from storefront.models import utcnow
from storefront.services.admin.auth import SignedIn
from storefront.services.staff import roles
from storefront.state.admin.session import admin_event

TO_LOGIN = "to the login page"


class FakeAdmin:
    """Just what the decorator touches: the session check and the way to the login page."""

    def __init__(self, signed_in: bool, role: str = roles.OWNER) -> None:
        self.signed_in, self.role, self.ran = signed_in, role, []

    async def _signed_in(self) -> SignedIn | None:
        return SignedIn(1, "admin", utcnow(), self.role) if self.signed_in else None

    @staticmethod
    def _to_login() -> str:
        return TO_LOGIN

    @admin_event
    async def rename(self, product_id: str, title: str) -> str | None:
        """Rename a product."""
        self.ran.append((product_id, title))
        return None

    @admin_event
    async def count(self, upto: int):
        self.ran.append(upto)
        for number in range(upto):
            yield number


async def _collect(events: typing.AsyncIterator[object]) -> list[object]:
    return [event async for event in events]


def test_a_signed_out_handler_does_not_run_and_returns_the_login_redirect() -> None:
    admin = FakeAdmin(signed_in=False)
    assert asyncio.run(admin.rename("p1", "New")) == TO_LOGIN
    assert admin.ran == []


def test_a_signed_out_generator_yields_only_the_login_redirect() -> None:
    admin = FakeAdmin(signed_in=False)
    assert asyncio.run(_collect(admin.count(3))) == [TO_LOGIN]
    assert admin.ran == []


def test_a_signed_in_handler_runs_with_its_arguments() -> None:
    admin = FakeAdmin(signed_in=True)
    assert asyncio.run(admin.rename("p1", title="New")) is None
    assert asyncio.run(_collect(admin.count(3))) == [0, 1, 2]
    assert admin.ran == [("p1", "New"), 3]


def test_the_handler_keeps_its_name_signature_and_annotations() -> None:
    assert FakeAdmin.rename.__name__ == "rename"
    assert FakeAdmin.rename.__doc__ == "Rename a product."
    assert list(inspect.signature(FakeAdmin.rename).parameters) == ["self", "product_id", "title"]
    assert typing.get_type_hints(FakeAdmin.rename) == {"product_id": str, "title": str, "return": str | None}
    assert inspect.iscoroutinefunction(FakeAdmin.rename)
    assert inspect.isasyncgenfunction(FakeAdmin.count)


def test_a_synchronous_handler_is_refused() -> None:
    with pytest.raises(TypeError, match="async"):

        @admin_event
        def plain(self: object) -> None:
            return None


def test_a_role_that_may_not_run_the_handler_is_told_so_and_nothing_runs() -> None:
    # FakeAdmin is in no roles table: its handlers are the owner's alone.
    admin = FakeAdmin(signed_in=True, role=roles.STAFF)
    refusal = asyncio.run(admin.rename("p1", title="New"))
    assert refusal is not None and roles.NOT_ALLOWED in str(refusal)
    assert admin.ran == []
