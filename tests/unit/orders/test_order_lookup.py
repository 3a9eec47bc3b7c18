"""A guest finds an order by number and email (or its token), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, update

from storefront.models import Order, OrderItem
from storefront.services.orders import order_lookup
from storefront.services.orders.checkout import place_order
from storefront.services.orders.order_access import ORDER_NOT_FOUND
from storefront.services.orders.order_lookup import (
    EMAIL_REQUIRED,
    LOOKUP_INVALID,
    NUMBER_REQUIRED,
    GuestOrder,
    lookup_order,
    lookup_request,
    order_view_by_token,
)
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.state.order_status import _read_remembered, order_card, remembered_order
from storefront.wiring import session_factory
from tests.ordering import GOOD_CARD, ORDER_EMAILS, Pick, order_payload, pick, seed_demo

EMAIL = "ada@example.com"
#: What the payload of tests.ordering says about the customer; none of it may be in a view.
PERSONAL = ["ada@example.com", "Ada", "Lovelace", "555 0100", "Analytical Row", "Albany", "12207", "4242"]


@pytest.fixture
def tee(engine: Engine, tmp_path: Path) -> Pick:
    seed_demo(engine, tmp_path)
    return pick(engine)


def _place(engine: Engine, tee: Pick, key: str = "k1", quantity: int = 2, **overrides) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Place an order; returns its number and access token."""
    with Session(engine) as session:
        placed = place_order(session, order_payload((tee, quantity), **overrides), key)
        return placed.order.number, placed.access_token


def _pay(engine: Engine, number: str, token: str) -> None:
    OrderPayments(session_factory(engine), TestPaymentGateway(), emails=ORDER_EMAILS).pay(
        number, token, card_from_form(GOOD_CARD), f"pay_{number}"
    )


def _set(engine: Engine, number: str, **values: object) -> None:
    with Session(engine) as session:
        session.execute(update(Order).where(Order.number == number).values(**values))
        session.commit()


def _lookup(engine: Engine, number: str, email: str) -> dict:
    with Session(engine) as session:
        return lookup_order(session, number, email)


def _not_found(engine: Engine, number: str, email: str) -> tuple[type, str, object]:
    with pytest.raises(NotFoundError) as caught:
        _lookup(engine, number, email)
    return type(caught.value), caught.value.message, caught.value.details


def test_the_number_and_the_email_find_the_order(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    view = _lookup(engine, number, EMAIL)
    assert (view["orderNumber"], view["id"]) == (number, number)
    assert (view["statusLabel"], view["paymentStatusLabel"]) == ("Pending", "Pending")


@pytest.mark.parametrize("email", ["  ADA@Example.COM ", "ada@EXAMPLE.com\t"])
def test_the_email_is_trimmed_and_compared_without_case(engine: Engine, tee: Pick, email: str) -> None:
    number, _ = _place(engine, tee)
    assert _lookup(engine, number, email)["orderNumber"] == number


def test_the_number_is_trimmed_and_compared_without_case(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    assert _lookup(engine, f"  {number.lower()} ", EMAIL)["orderNumber"] == number


def test_a_wrong_email_and_a_wrong_number_answer_the_same(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    _place(engine, tee, key="k2", customerEmail="grace@example.com")
    wrong_email = _not_found(engine, number, "grace@example.com")
    wrong_number = _not_found(engine, "SF-999999", EMAIL)
    assert wrong_email == wrong_number == (NotFoundError, ORDER_NOT_FOUND, None)
    assert _not_found(engine, number, "ada@example.co") == wrong_email
    assert _not_found(engine, "x" * 500, EMAIL) == wrong_email
    assert _not_found(engine, number, "ä@example.com") == wrong_email
    assert _not_found(engine, number, "a" * 300 + "@example.com") == wrong_email


def test_missing_number_or_email_is_a_validation_error_per_field() -> None:
    with pytest.raises(ValidationError) as caught:
        lookup_request({"number": "  ", "email": None})
    assert caught.value.message == LOOKUP_INVALID
    assert caught.value.field_errors == {"number": NUMBER_REQUIRED, "email": EMAIL_REQUIRED}
    with pytest.raises(ValidationError) as caught:
        lookup_request(["not", "an", "object"])
    assert set(caught.value.field_errors) == {"number", "email"}
    assert lookup_request({"number": " SF-000001 ", "email": " a@b.co "}) == ("SF-000001", "a@b.co")


def test_the_view_says_what_was_bought_and_what_it_cost(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee, quantity=2)
    with Session(engine) as session:
        session.execute(update(OrderItem).values(color="Black"))
        session.commit()
    view = _lookup(engine, number, EMAIL)
    (line,) = view["items"]
    assert (line["name"], line["size"], line["color"], line["quantity"]) == (tee.name, tee.size, "Black", 2)
    assert line["price"] == tee.price and line["lineTotal"] == round(2 * tee.price, 2)
    shipping = 0 if 2 * tee.price_cents > 10000 else 9.99
    assert (view["subtotal"], view["shipping"]) == (round(2 * tee.price, 2), shipping)
    assert view["total"] == round(2 * tee.price + shipping, 2)
    assert datetime.fromisoformat(view["createdAt"]).year >= 2024


def test_a_line_without_a_colour_has_none(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    with Session(engine) as session:
        session.execute(update(OrderItem).values(color=""))  # a product offered in one colour only
        session.commit()
    assert _lookup(engine, number, EMAIL)["items"][0]["color"] is None


def test_the_view_carries_nothing_personal(engine: Engine, tee: Pick) -> None:
    number, token = _place(engine, tee)
    _pay(engine, number, token)
    _set(engine, number, attention_reason="address_to.zip: 12207 Analytical Row is invalid")
    view = _lookup(engine, number, EMAIL)
    text = json.dumps(view)
    assert not [value for value in PERSONAL if value in text]
    for key in (
        "customerEmail",
        "customerName",
        "customerPhone",
        "shippingAddress",
        "billingAddress",
        "cardLast4",
        "attentionReason",
    ):
        assert key not in view
    # The customer sees where the order stands for them, never staff's alarm.
    assert "needsAttention" not in view and view["customerStatus"] == "confirmed"


def test_a_paid_order_shows_processing_and_paid(engine: Engine, tee: Pick) -> None:
    number, token = _place(engine, tee)
    _pay(engine, number, token)
    view = _lookup(engine, number, EMAIL)
    assert (view["status"], view["paymentStatus"]) == ("processing", "paid")
    assert (view["statusLabel"], view["paymentStatusLabel"]) == ("Processing", "Paid")


def test_statuses_outside_the_spec_show_unknown(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    _set(engine, number, status="on-hold", payment_status="disputed")
    view = _lookup(engine, number, EMAIL)
    assert (view["statusLabel"], view["paymentStatusLabel"]) == ("Unknown", "Unknown")


def test_a_shipped_order_shows_its_tracking(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee)
    shipped = datetime(2030, 1, 2, 9, 0, tzinfo=UTC)
    _set(
        engine,
        number,
        tracking_carrier="usps",
        tracking_number="9400 1000",
        tracking_url="https://tools.usps.com/t?n=9400",
        shipped_at=shipped,
        status="fulfilled",
    )
    view = _lookup(engine, number, EMAIL)
    assert (view["trackingCarrier"], view["trackingNumber"]) == ("usps", "9400 1000")
    assert view["trackingUrl"] == "https://tools.usps.com/t?n=9400"
    assert view["shippedAt"].startswith("2030-01-02") and view["statusLabel"] == "Fulfilled"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "  ", None])
def test_a_tracking_link_that_is_not_a_web_address_is_left_out(engine: Engine, tee: Pick, url: str | None) -> None:
    number, _ = _place(engine, tee)
    _set(engine, number, tracking_number="1Z", tracking_url=url)
    assert _lookup(engine, number, EMAIL)["trackingUrl"] is None


def test_the_token_opens_the_same_view_and_a_wrong_token_answers_not_found(engine: Engine, tee: Pick) -> None:
    number, token = _place(engine, tee)
    with Session(engine) as session:
        assert order_view_by_token(session, number, token) == lookup_order(session, number, EMAIL)
        for wrong in (None, "", "wrong", token + "x"):
            with pytest.raises(NotFoundError) as caught:
                order_view_by_token(session, number, wrong)
            assert caught.value.message == ORDER_NOT_FOUND


def test_lookups_are_counted_per_address() -> None:
    assert order_lookup.lookup_key("10.0.0.1") != order_lookup.lookup_key("10.0.0.2")
    assert order_lookup.lookup_key("") == order_lookup.lookup_key("unknown")
    assert order_lookup.lookup_key("10.0.0.1").startswith(order_lookup.LOOKUP_KEY_PREFIX)
    assert not order_lookup.lookup_key("10.0.0.1").startswith("pay:")


# --------------------------------------------------------------------------- the page's formatting


def test_the_page_shows_labels_money_and_the_placed_date() -> None:
    view = {
        "orderNumber": "SF-000007",
        "createdAt": "2030-03-05T14:00:00+00:00",
        "statusLabel": "Processing",
        "paymentStatusLabel": "Paid",
        "subtotal": 1049.5,
        "shipping": 0.0,
        "total": 1049.5,
        "trackingCarrier": "usps",
        "trackingNumber": "9400",
        "trackingUrl": None,
        "needsAttention": False,
        "items": [{"name": "Tee", "size": "M", "color": "Black", "quantity": 2, "lineTotal": 49.98}],
    }
    card = order_card(GuestOrder(view, 104950, 0, 0, 104950, (4998,)))
    assert (card["number"], card["placed"], card["status"], card["payment"]) == (
        "SF-000007",
        "March 5, 2030",
        "Processing",
        "Paid",
    )
    assert (card["subtotal"], card["shipping"], card["total"]) == ("$1,049.50", "$0.00", "$1,049.50")
    assert card["discount"] == ""
    discounted = order_card(GuestOrder(view, 104950, 0, 0, 99950, (4998,), discount_cents=5000, discount_code="FIFTY"))
    assert (discounted["discount"], discounted["total"]) == ("-$50.00", "$999.50")
    assert card["items"] == [
        {"name": "Tee", "options": "Size: M · Color: Black", "quantity": 2, "line_total": "$49.98", "image_url": ""}
    ]
    assert (card["tracking_carrier"], card["tracking_number"], card["tracking_url"]) == ("USPS", "9400", "")


@pytest.mark.parametrize("kept", ["", "not json", "[]", '{"number": "SF-1"}', '{"number": 1, "token": "t"}'])
def test_a_broken_remembered_order_is_ignored(kept: str) -> None:
    assert _read_remembered(kept) is None


def test_the_remembered_order_reads_back() -> None:
    assert _read_remembered(remembered_order("SF-000001", "tok")) == ("SF-000001", "tok")


def test_the_order_status_pages_money_equals_the_apis(engine: Engine, tee: Pick) -> None:
    number, _ = _place(engine, tee, quantity=3)
    with Session(engine) as session:
        session.execute(update(OrderItem).values(unit_price_cents=3333))
        session.commit()
    _set(engine, number, subtotal_cents=9999, shipping_cents=1, tax_cents=807, total_cents=10807)
    with Session(engine) as session:
        guest = order_lookup.lookup_guest_order(session, number, EMAIL)
        api = lookup_order(session, number, EMAIL)
    assert guest.view == api
    assert (guest.subtotal_cents, guest.total_cents, guest.line_totals_cents) == (9999, 10807, (9999,))
    card = order_card(guest)

    def usd(dollars: float) -> str:
        return f"${Decimal(str(dollars)):,.2f}"

    assert (
        (card["subtotal"], card["shipping"], card["total"])
        == (usd(api["subtotal"]), usd(api["shipping"]), usd(api["total"]))
        == ("$99.99", "$0.01", "$108.07")
    )
    assert [line["line_total"] for line in card["items"]] == [usd(line["lineTotal"]) for line in api["items"]]
