"""Request and answer models of the customer routes (storefront/api/admin/customers.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import Email, _example, _Open


class CustomerBody(_Open):
    email: str
    name: str
    orders: int
    spentCents: int = Field(description="Paid less refunded, in cents")
    spent: str
    lastOrderAt: str | None
    subscribed: bool = Field(description="A confirmed newsletter subscriber")


class CustomerPage(_Open):
    data: list[CustomerBody]
    total: int


class CustomerRequest(_Open):
    model_config = _example({"email": "ada@example.com"})

    email: Email = Field(None, description="The customer's email (kept in the body, never in the address)")


class CustomerDetail(_Open):
    customer: CustomerBody
    orders: list[dict[str, Any]]


class ErasedAnswer(_Open):
    success: bool
    ordersKept: int = Field(description="Orders that kept their money and lines, with the personal fields replaced")
