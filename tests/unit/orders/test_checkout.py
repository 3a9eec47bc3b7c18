"""Checkout: the spec's validation messages, server-side repricing, totals and idempotent orders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import CatalogProduct, Order, OrderItem
from storefront.services.orders import checkout, order_access
from storefront.services.orders.cart import CartLine
from storefront.services.orders.checkout import PricedLine, create_order, order_totals, validate_order_payload
from storefront.services.platform.errors import ConflictError, NotFoundError, TooManyRequestsError, ValidationError
from storefront.wiring import session_factory
from tests.ordering import SHIPPING_ADDRESS, FakeClock, Pick, order_payload, pick, seed_demo

MISMATCH = "Price mismatch detected. Please refresh and try again."


@pytest.fixture
def seeded(engine: Engine, tmp_path: Path) -> Engine:
    seed_demo(engine, tmp_path)
    return engine


@pytest.fixture
def tee(seeded: Engine) -> Pick:
    return pick(seeded)


def _field_errors(payload: dict) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        validate_order_payload(payload)
    return caught.value.field_errors


def _count(engine: Engine, model: type) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(model)).one()


# --------------------------------------------------------------------------- validation

A_LINE = {"productId": "p1", "size": "M", "price": 10, "quantity": 1}


def _valid(**overrides: object) -> dict:
    payload = {
        "customerEmail": "ada@example.com",
        "customerName": "Ada Lovelace",
        "shippingAddress": dict(SHIPPING_ADDRESS),
        "items": [dict(A_LINE)],
        "subtotal": 10,
    }
    payload.update(overrides)
    return payload


def test_a_complete_payload_is_valid() -> None:
    request = validate_order_payload(_valid())
    assert request.customer_email == "ada@example.com"
    assert request.shipping.country_code == "US"
    assert request.items[0].price_cents == 1000


def test_every_missing_field_gets_the_spec_message() -> None:
    assert _field_errors({}) == {
        "customerEmail": "Please enter a valid email address",
        "customerName": "Name must be at least 2 characters",
        "shippingAddress.first_name": "First name is required",
        "shippingAddress.last_name": "Last name is required",
        "shippingAddress.address1": "Address is required",
        "shippingAddress.city": "City is required",
        "shippingAddress.state_code": "State is required",
        "shippingAddress.country_code": "Country is required",
        "shippingAddress.zip": "ZIP code is required",
        "items": "No items in cart",
    }


@pytest.mark.parametrize(
    "email",
    ["ada", "ada@", "@example.com", "ada@example", "ada @example.com", "ada@@example.com", "ada..l@example.com",
     "a" * 250 + "@example.com"],
)
def test_an_invalid_email_is_refused(email: str) -> None:
    assert _field_errors(_valid(customerEmail=email)) == {"customerEmail": "Please enter a valid email address"}


@pytest.mark.parametrize("email", ["ada@example.com", "ada+shop@mail.example.co.uk", "ada@xn--bcher-kva.example",
                                   "åsa@exempel.se"])
def test_a_valid_email_is_accepted_as_email_validator_reads_it(email: str) -> None:
    assert validate_order_payload(_valid(customerEmail=email)).customer_email == email


def test_a_one_character_name_is_too_short() -> None:
    assert _field_errors(_valid(customerName="A")) == {"customerName": "Name must be at least 2 characters"}


def test_state_and_country_need_two_characters() -> None:
    address = {**SHIPPING_ADDRESS, "state_code": "N", "country_code": "U"}
    assert _field_errors(_valid(shippingAddress=address)) == {
        "shippingAddress.state_code": "State is required",
        "shippingAddress.country_code": "Country is required",
    }


def test_a_us_state_is_a_us_state_code_or_name() -> None:
    named = validate_order_payload(_valid(shippingAddress={**SHIPPING_ADDRESS, "state_code": "new york"}))
    assert named.shipping.state_code == "NY"
    assert _field_errors(_valid(shippingAddress={**SHIPPING_ADDRESS, "state_code": "Ontario"})) == {
        "shippingAddress.state_code": "Choose a US state",
    }


def test_a_billing_address_may_be_in_any_country() -> None:
    billing = {**SHIPPING_ADDRESS, "state_code": "ON", "country_code": "CA"}
    assert validate_order_payload(_valid(billingAddress=billing, sameAsShipping=False)).billing.country_code == "CA"


def test_the_shipping_country_must_be_one_shipped_to() -> None:
    address = {**SHIPPING_ADDRESS, "state_code": "BC", "country_code": "CA"}
    assert _field_errors(_valid(shippingAddress=address)) == {
        "shippingAddress.country_code": "We only ship to the United States for now.",
    }
    assert validate_order_payload(_valid(shippingAddress=address), ship_to=("US", "CA")).shipping.country_code == "CA"


def test_blank_text_counts_as_missing() -> None:
    address = {**SHIPPING_ADDRESS, "city": "   "}
    assert _field_errors(_valid(shippingAddress=address)) == {"shippingAddress.city": "City is required"}


def test_phone_and_address2_are_optional() -> None:
    address = {key: value for key, value in SHIPPING_ADDRESS.items() if key != "address2"}
    request = validate_order_payload(_valid(shippingAddress=address))
    assert request.customer_phone is None and request.shipping.address2 is None


def test_billing_address_is_ignored_when_same_as_shipping() -> None:
    assert validate_order_payload(_valid(billingAddress={}, sameAsShipping=True)).billing is None
    assert validate_order_payload(_valid(billingAddress={})).billing is None


def test_billing_address_follows_the_same_rules_when_not_same_as_shipping() -> None:
    errors = _field_errors(_valid(billingAddress={**SHIPPING_ADDRESS, "city": "", "zip": ""}, sameAsShipping=False))
    assert errors == {"billingAddress.city": "City is required", "billingAddress.zip": "ZIP code is required"}


def test_a_separate_billing_address_is_kept() -> None:
    billing = {**SHIPPING_ADDRESS, "city": "Troy"}
    assert validate_order_payload(_valid(billingAddress=billing, sameAsShipping=False)).billing.city == "Troy"


def test_an_empty_cart_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        validate_order_payload(_valid(items=[]))
    assert caught.value.message == "No items in cart"
    assert caught.value.field_errors == {"items": "No items in cart"}


@pytest.mark.parametrize("quantity", [0, 100, -1, 1.5, "2", True, None])
def test_quantity_must_be_a_whole_number_from_1_to_99(quantity: object) -> None:
    errors = _field_errors(_valid(items=[{**A_LINE, "quantity": quantity}]))
    assert list(errors) == ["items.0.quantity"]


@pytest.mark.parametrize("quantity", [1, 99])
def test_quantity_limits_are_inclusive(quantity: int) -> None:
    assert validate_order_payload(_valid(items=[{**A_LINE, "quantity": quantity}])).items[0].quantity == quantity


def test_a_line_needs_product_size_and_price() -> None:
    errors = _field_errors(_valid(items=[{"quantity": 1}]))
    assert set(errors) == {"items.0.productId", "items.0.size", "items.0.price"}


# --------------------------------------------------------------------------- totals


def _line(cents: int) -> PricedLine:
    return PricedLine("p", "1", "Tee", "M", 1, cents, "")


def test_shipping_is_charged_at_exactly_one_hundred_dollars() -> None:
    totals = order_totals([_line(10000)])
    assert (totals.shipping_cents, totals.tax_cents, totals.total_cents) == (999, 0, 10999)


def test_shipping_is_free_from_one_hundred_dollars_and_one_cent() -> None:
    totals = order_totals([_line(10001)])
    assert (totals.shipping_cents, totals.total_cents) == (0, 10001)


# --------------------------------------------------------------------------- orders


def test_an_order_is_saved_with_catalogue_prices_and_lines(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        order = create_order(session, order_payload((tee, 2)), "key-1")
        items = checkout.order_items(session, order.id)
    assert order.number.startswith("SF-")
    assert (order.status, order.payment_status) == ("pending", "pending")
    assert order.subtotal_cents == 2 * tee.price_cents
    assert order.shipping_cents == 999
    assert order.total_cents == 2 * tee.price_cents + 999
    assert [(i.product_id, i.size, i.quantity, i.unit_price_cents, i.name) for i in items] == [
        (tee.product_id, "M", 2, tee.price_cents, tee.name)
    ]
    assert items[0].variant_id.isdigit()


def test_an_order_over_one_hundred_dollars_ships_free(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        order = create_order(session, order_payload((tee, 5)), "key-free")
    assert order.subtotal_cents > 10000
    assert (order.shipping_cents, order.total_cents) == (0, order.subtotal_cents)


def test_a_tampered_price_is_refused(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    payload["items"][0]["price"] = 1.00
    payload["subtotal"] = 1.00
    with Session(seeded) as session, pytest.raises(ValidationError) as caught:
        create_order(session, payload, "key-tampered")
    assert caught.value.message == MISMATCH
    assert _count(seeded, Order) == 0


def test_a_price_within_one_cent_is_accepted_but_the_catalogue_price_is_charged(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    payload["items"][0]["price"] = (tee.price_cents - 1) / 100
    payload["subtotal"] = (tee.price_cents - 1) / 100
    with Session(seeded) as session:
        order = create_order(session, payload, "key-cent")
    assert order.subtotal_cents == tee.price_cents


def test_a_subtotal_that_does_not_add_up_is_refused(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 2))
    payload["subtotal"] = tee.price  # one item's worth for two
    with Session(seeded) as session, pytest.raises(ValidationError) as caught:
        create_order(session, payload, "key-subtotal")
    assert caught.value.message == MISMATCH


def test_an_unknown_product_is_not_found(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((Pick("nope", "Nope", "M", tee.price_cents), 1))
    with Session(seeded) as session, pytest.raises(NotFoundError):
        create_order(session, payload, "key-unknown")


def test_a_hidden_product_cannot_be_ordered(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        session.get(CatalogProduct, tee.product_id).is_active = False
        session.commit()
        with pytest.raises(NotFoundError):
            create_order(session, order_payload((tee, 1)), "key-hidden")


def test_a_size_that_is_not_offered_is_refused_at_its_line(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((Pick(tee.product_id, tee.name, "XXS", tee.price_cents), 1))
    with Session(seeded) as session, pytest.raises(ValidationError) as caught:
        create_order(session, payload, "key-size")
    assert list(caught.value.field_errors) == ["items.0.size"]


def test_the_same_key_returns_the_same_order_and_saves_one(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    with Session(seeded) as session:
        first = create_order(session, payload, "key-twice")
    with Session(seeded) as session:
        second = create_order(session, payload, "key-twice")
    assert (second.id, second.number) == (first.id, first.number)
    assert _count(seeded, Order) == 1
    assert _count(seeded, OrderItem) == 1


def test_the_same_key_with_a_different_cart_is_a_conflict(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        create_order(session, order_payload((tee, 1)), "key-reused")
        with pytest.raises(ConflictError):
            create_order(session, order_payload((tee, 2)), "key-reused")
    assert _count(seeded, Order) == 1


def test_a_replay_keeps_the_token_and_hands_out_none_without_it(seeded: Engine, tee: Pick) -> None:
    payload = order_payload((tee, 1))
    with Session(seeded) as session:
        placed = checkout.place_order(session, payload, "key-replayed")
    assert placed.access_token and not placed.replayed
    with Session(seeded) as session:
        replay = checkout.place_order(session, payload, "key-replayed")
        assert (replay.order.number, replay.access_token, replay.replayed) == (placed.order.number, None, True)
        own = checkout.place_order(session, payload, "key-replayed", placed.access_token)
        assert (own.order.number, own.access_token) == (placed.order.number, placed.access_token)
    with Session(seeded) as session:
        assert order_access.token_matches(order_access.find_order(session, placed.order.number), placed.access_token)


def test_new_orders_per_client_are_limited_and_retries_are_not_counted(seeded: Engine, tee: Pick) -> None:
    clock = FakeClock()
    limiter = checkout.order_limiter(session_factory(seeded), 2, clock)
    payload = order_payload((tee, 1))

    def place(key: str, client: str = "10.0.0.1") -> checkout.PlacedOrder:
        with Session(seeded) as session:
            return checkout.place_order(session, payload, key, limiter=limiter, client=client)

    place("a")
    place("a")  # a retry
    place("b")
    with pytest.raises(TooManyRequestsError) as refused:
        place("c")
    assert refused.value.message == checkout.TOO_MANY_ORDERS
    assert _count(seeded, Order) == 2
    place("d", client="10.0.0.2")
    clock.advance(3600)
    place("c")
    assert _count(seeded, Order) == 4


def test_without_a_key_every_call_makes_an_order(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        create_order(session, order_payload((tee, 1)))
        create_order(session, order_payload((tee, 1)))
    assert _count(seeded, Order) == 2


def test_a_separate_billing_address_is_stored(seeded: Engine, tee: Pick) -> None:
    billing = {**SHIPPING_ADDRESS, "city": "Troy"}
    with Session(seeded) as session:
        order = create_order(session, order_payload((tee, 1), billingAddress=billing, sameAsShipping=False), "key-b")
    assert json.loads(order.billing_address_json)["city"] == "Troy"


def test_serialized_order_has_the_admin_fields_in_dollars(seeded: Engine, tee: Pick) -> None:
    with Session(seeded) as session:
        order = create_order(session, order_payload((tee, 2)), "key-serialize")
        data = checkout.serialize_order(order, checkout.order_items(session, order.id))
    assert {
        "id", "customerName", "customerEmail", "customerPhone", "subtotal", "shipping", "tax", "total", "status",
        "paymentStatus", "printifyStatus", "printifyOrderId", "trackingNumber", "createdAt", "shippingAddress", "items",
    } <= set(data)
    assert data["id"] == order.number
    assert data["subtotal"] == round(2 * tee.price_cents / 100, 2)
    assert (data["shipping"], data["tax"]) == (9.99, 0.0)
    assert data["shippingAddress"]["state_code"] == "NY"
    assert data["items"][0] | {"id": None} == {
        "id": None, "productId": tee.product_id, "variantId": data["items"][0]["variantId"], "name": tee.name,
        "size": "M", "color": data["items"][0]["color"], "quantity": 2, "price": tee.price,
        "imageUrl": data["items"][0]["imageUrl"],
    }


def test_the_checkout_form_becomes_the_spec_payload_without_card_data() -> None:
    lines = [CartLine("p1", "Tee", 6000, "M", "/t.jpg", 2, variant_id="11")]
    form = {
        "customerEmail": "ada@example.com",
        "shippingAddress.city": "Albany",
        "shippingAddress.zip": "12207",
        "cardNumber": "4242 4242 4242 4242",
        "cvv": "123",
    }
    payload = checkout.checkout_payload(form, lines, same_as_shipping=True)
    assert "cardNumber" not in payload and "cvv" not in payload
    assert payload["shippingAddress"] == payload["billingAddress"] == {"city": "Albany", "zip": "12207"}
    assert payload["items"][0] | {"imageUrl": "/t.jpg"} == {
        "productId": "p1", "printifyProductId": "p1", "printifyVariantId": "11", "name": "Tee", "size": "M",
        "price": 60.0, "quantity": 2, "imageUrl": "/t.jpg",
    }
    # One totals rule: $120 is over $100, so shipping is free.
    assert (payload["subtotal"], payload["shipping"], payload["tax"], payload["total"]) == (120.0, 0.0, 0.0, 120.0)


def test_the_kept_form_fields_are_contact_and_addresses_never_the_card() -> None:
    form = {
        "customerEmail": "ada@example.com",
        "customerPhone": "",
        "shippingAddress.city": "Albany",
        "billingAddress.zip": "12207",
        "cardNumber": "4242 4242 4242 4242",
        "expiryDate": "12/39",
        "cvv": "123",
        "cardholderName": "Ada Lovelace",
        "shippingAddress.card": "4242",
        "isAdmin": "true",
    }
    assert checkout.kept_form_fields(form) == {
        "customerEmail": "ada@example.com",
        "customerPhone": "",
        "shippingAddress.city": "Albany",
        "billingAddress.zip": "12207",
    }


def test_a_kept_field_is_text_of_bounded_length() -> None:
    kept = checkout.kept_form_fields({"customerName": "A" * 10_000, "customerEmail": ["ada@example.com"]})
    assert kept == {"customerName": "A" * checkout.MAX_KEPT_CHARS}
