"""Colours: what a product offers in each colour, and carts and orders that keep the chosen colour."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.models import CatalogImage, OrderItem
from storefront.services.catalog.catalog import (
    COLOR_NOT_AVAILABLE,
    SIZE_NOT_AVAILABLE,
    LinePrice,
    get_product,
    line_price,
    search_products,
)
from storefront.services.catalog.sync import upsert_product
from storefront.services.orders import checkout
from storefront.services.orders.cart import (
    CartLine,
    add_line,
    decrement,
    dump_cart,
    increment,
    load_cart,
    remove_line,
    set_quantity,
)
from storefront.services.orders.fulfilment import printify_order_body
from storefront.services.orders.shopping import COLOR_REQUIRED, new_cart_line, quick_add_line, refresh_lines
from storefront.services.platform.errors import ValidationError
from tests.ordering import Pick, order_payload
from tests.renditions import remember_prepared, shown

SHOP_ID = 7
COLOUR_IDS = {"Navy": 601, "Black": 602, "White": 603}
HEXES = {"Navy": "#1F2A44", "Black": "#000000", "White": "#ffffff"}
SIZE_IDS = {"S": 14, "M": 15, "L": 16}
NAVY_FRONT = "/uploads/demo/rainbow-navy-front.png"
BLACK_FRONT = "/uploads/demo/rainbow-black-front.png"
BOTH_BACK = "/uploads/demo/rainbow-back.png"
#: (variant id, colour, size, price in cents, enabled), in provider order.
VARIANTS: list[tuple[int, str, str, int, bool]] = [
    (201, "Navy", "S", 2000, True),
    (202, "Navy", "M", 2100, True),
    (203, "Navy", "L", 2200, False),
    (211, "Black", "M", 2300, True),
    (212, "Black", "L", 2400, True),
    (221, "White", "M", 2500, False),
]


def printify_product(
    product_id: str,
    variants: list[tuple[int, str, str, int, bool]],
    images: list[dict[str, Any]] | None = None,
    hexes: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Printify-shaped product with colour and size options."""
    hexes = HEXES if hexes is None else hexes
    return {
        "id": product_id,
        "title": f"Rainbow Tee {product_id}",
        "description": "<p>A tee in many colours.</p>",
        "tags": ["SWDNN", "T-Shirt"],
        "options": [
            {
                "name": "Colors",
                "type": "color",
                "values": [
                    {"id": i, "title": c, **({"colors": [hexes[c]]} if c in hexes else {})}
                    for c, i in COLOUR_IDS.items()
                ],
            },
            {"name": "Sizes", "type": "size", "values": [{"id": i, "title": s} for s, i in SIZE_IDS.items()]},
        ],
        "variants": [
            {
                "id": vid,
                "sku": f"{product_id}-{vid}",
                "price": price,
                "title": f"{colour} / {size}",
                "is_enabled": enabled,
                "options": [COLOUR_IDS[colour], SIZE_IDS[size]],
            }
            for vid, colour, size, price, enabled in variants
        ],
        "images": images if images is not None else [],
        "created_at": "2024-05-01 10:00:00+00:00",
        "updated_at": "2024-05-01 10:00:00+00:00",
        "visible": True,
        "is_published": True,
    }


def _image(src: str, variant_ids: list[int], position: str = "front") -> dict[str, Any]:
    return {"src": src, "variant_ids": variant_ids, "position": position, "is_default": False, "order": None}


RAINBOW_IMAGES = [
    _image(BOTH_BACK, [201, 202, 211, 212], "back"),
    _image(NAVY_FRONT, [201, 202, 203]),
    _image(BLACK_FRONT, [211, 212]),
]


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session on a catalogue holding 'rainbow' (Navy and Black; White disabled) and 'plain'
    (Black only)."""
    with Session(engine) as session:
        upsert_product(session, printify_product("rainbow", VARIANTS, RAINBOW_IMAGES), SHOP_ID)
        plain = [(301, "Black", "S", 1900, True), (302, "Black", "M", 1900, True), (303, "White", "M", 1900, False)]
        upsert_product(session, printify_product("plain", plain, [_image("/p.png", [301, 302])]), SHOP_ID)
        session.commit()
        remember_prepared(session, [BOTH_BACK, NAVY_FRONT, BLACK_FRONT, "/p.png"])
        yield session


def _line(color: str, size: str = "M", quantity: int = 1) -> CartLine:
    return CartLine("rainbow", "Rainbow Tee", 2300, size, "/r.png", quantity, variant_id="211", color=color)


# --------------------------------------------------------------------------- what is offered


def test_the_colours_offered_are_the_enabled_colours_in_variant_order(session: Session) -> None:
    product = get_product(session, "rainbow")
    assert [c.name for c in product.colors] == ["Navy", "Black"]


def test_a_product_in_one_enabled_colour_offers_no_colour_choice(session: Session) -> None:
    assert get_product(session, "plain").colors == ()


def test_sizes_are_offered_per_colour(session: Session) -> None:
    product = get_product(session, "rainbow")
    assert product.sizes == ("S", "M", "L")
    assert {c.name: c.sizes for c in product.colors} == {"Navy": ("S", "M"), "Black": ("M", "L")}


def test_each_colour_is_priced_by_its_own_variants(session: Session) -> None:
    navy, black = get_product(session, "rainbow").colors
    assert (navy.price_cents, navy.size_prices) == (2000, {"S": 2000, "M": 2100})
    assert (black.price_cents, black.size_prices) == (2300, {"M": 2300, "L": 2400})


def test_each_colour_shows_its_own_image(session: Session) -> None:
    navy, black = get_product(session, "rainbow").colors
    assert (navy.image_url, black.image_url) == (shown(NAVY_FRONT), shown(BLACK_FRONT))


def test_a_colour_without_its_own_image_shows_the_products_image(session: Session) -> None:
    upsert_product(session, printify_product("rainbow", VARIANTS, [RAINBOW_IMAGES[1]]), SHOP_ID)
    session.commit()
    navy, black = get_product(session, "rainbow").colors
    assert (navy.image_url, black.image_url) == (shown(NAVY_FRONT), shown(NAVY_FRONT))


def test_sync_records_the_one_colour_each_image_shows(session: Session) -> None:
    rows = session.exec(
        select(CatalogImage).where(col(CatalogImage.product_id) == "rainbow").order_by(col(CatalogImage.sort_order))
    ).all()
    assert [(row.src, row.color) for row in rows] == [(BOTH_BACK, ""), (NAVY_FRONT, "Navy"), (BLACK_FRONT, "Black")]


def test_swatches_use_the_providers_hex_else_a_css_colour_name(session: Session) -> None:
    navy, black = get_product(session, "rainbow").colors
    assert (navy.swatch, black.swatch) == ("#1f2a44", "#000000")
    hostile = {"Navy": "red;} body {display:none", "Black": "#000000"}
    upsert_product(session, printify_product("rainbow", VARIANTS, hexes=hostile), SHOP_ID)
    session.commit()
    navy, black = get_product(session, "rainbow").colors
    assert (navy.swatch, black.swatch) == ("navy", "#000000")


def test_the_listing_card_knows_each_colours_sizes(session: Session) -> None:
    card = next(p for p in search_products(session) if p.id == "rainbow")
    assert [(c.name, c.sizes) for c in card.colors] == [("Navy", ("S", "M")), ("Black", ("M", "L"))]


# --------------------------------------------------------------------------- pricing a line


def test_a_line_is_priced_by_the_variant_of_its_colour_and_size(session: Session) -> None:
    assert line_price(session, "rainbow", "M", "Black") == LinePrice(2300, "211", "Black")
    assert line_price(session, "rainbow", "M", "Navy") == LinePrice(2100, "202", "Navy")


def test_without_a_colour_a_line_takes_the_first_colour_that_comes_in_its_size(session: Session) -> None:
    assert line_price(session, "rainbow", "M") == LinePrice(2100, "202", "Navy")
    assert line_price(session, "rainbow", "L") == LinePrice(2400, "212", "Black")  # Navy L is disabled


def test_a_colour_that_is_not_offered_is_refused(session: Session) -> None:
    for colour in ("White", "Pink"):
        with pytest.raises(ValidationError) as caught:
            line_price(session, "rainbow", "M", colour)
        assert (caught.value.message, caught.value.field_errors) == (
            COLOR_NOT_AVAILABLE,
            {"color": COLOR_NOT_AVAILABLE},
        )


def test_a_size_the_chosen_colour_does_not_come_in_is_refused(session: Session) -> None:
    with pytest.raises(ValidationError, match=f"^{SIZE_NOT_AVAILABLE}$"):
        line_price(session, "rainbow", "S", "Black")


def test_lines_of_a_one_colour_product_carry_no_colour(session: Session) -> None:
    assert line_price(session, "plain", "M") == LinePrice(1900, "302", "")
    assert line_price(session, "plain", "M", "Black") == LinePrice(1900, "302", "")


# --------------------------------------------------------------------------- the cart


def test_the_same_size_in_two_colours_makes_two_lines() -> None:
    lines = add_line(add_line((), _line("Black")), _line("Navy"))
    assert [(line.color, line.size, line.quantity) for line in lines] == [("Black", "M", 1), ("Navy", "M", 1)]


def test_the_same_colour_and_size_merges() -> None:
    lines = add_line(add_line((), _line("Black")), _line("Black", quantity=2))
    assert [(line.color, line.quantity) for line in lines] == [("Black", 3)]


def test_quantity_changes_and_removal_touch_only_the_lines_colour() -> None:
    lines = (_line("Black"), _line("Navy"))
    assert [line.quantity for line in set_quantity(lines, "rainbow", "M", 5, "Navy")] == [1, 5]
    assert [line.quantity for line in increment(lines, "rainbow", "M", "Black")] == [2, 1]
    assert [line.quantity for line in decrement(increment(lines, "rainbow", "M", "Navy"), "rainbow", "M", "Navy")] == [
        1,
        1,
    ]
    assert [line.color for line in remove_line(lines, "rainbow", "M", "Black")] == ["Navy"]


def test_the_stored_cart_keeps_the_colour() -> None:
    lines = [_line("Black"), _line("Navy", quantity=2)]
    stored = json.loads(dump_cart(lines))
    assert [item["color"] for item in stored] == ["Black", "Navy"]
    assert load_cart(dump_cart(lines)) == lines


def test_a_line_of_a_one_colour_product_is_stored_as_before() -> None:
    (item,) = json.loads(dump_cart([CartLine("plain", "Plain Tee", 1900, "M", "/p.png", 1, variant_id="302")]))
    assert "color" not in item


def test_a_cart_stored_before_colours_still_loads() -> None:
    raw = json.dumps([{"id": "rainbow", "name": "Rainbow Tee", "price": 21.0, "size": "M", "image": "", "quantity": 2}])
    assert load_cart(raw) == [CartLine("rainbow", "Rainbow Tee", 2100, "M", "", 2)]


# --------------------------------------------------------------------------- picks and Quick Add


def test_a_pick_in_a_colour_gets_that_colours_variant_price_and_image(session: Session) -> None:
    line = new_cart_line(session, "rainbow", "M", color="Black")
    assert (line.color, line.variant_id, line.price_cents, line.image) == ("Black", "211", 2300, shown(BLACK_FRONT))


def test_quick_add_of_a_one_size_product_in_several_colours_asks_for_a_colour(session: Session) -> None:
    only_m = [v for v in VARIANTS if v[2] == "M"]
    upsert_product(session, printify_product("rainbow", only_m, RAINBOW_IMAGES), SHOP_ID)
    session.commit()
    with pytest.raises(ValidationError) as caught:
        quick_add_line(session, "rainbow")
    assert caught.value.message == COLOR_REQUIRED == "Please select a color"


def test_refresh_gives_an_old_line_its_colour_and_merges_it_with_the_same_line(session: Session) -> None:
    old = CartLine("rainbow", "Rainbow Tee", 2100, "M", "", 2)
    navy = new_cart_line(session, "rainbow", "M", color="Navy")
    black = new_cart_line(session, "rainbow", "M", color="Black")
    fresh, dropped = refresh_lines(session, [navy, old, black])
    assert dropped == 0
    assert [(line.color, line.quantity, line.variant_id) for line in fresh] == [("Navy", 3, "202"), ("Black", 1, "211")]


def test_refresh_drops_a_line_whose_colour_is_no_longer_sold(session: Session) -> None:
    black = new_cart_line(session, "rainbow", "M", color="Black")
    without_black = [v for v in VARIANTS if v[1] != "Black"]
    upsert_product(session, printify_product("rainbow", without_black, RAINBOW_IMAGES), SHOP_ID)
    session.commit()
    assert refresh_lines(session, [black]) == ([], 1)


# --------------------------------------------------------------------------- orders


def _payload(colour: str | None, size: str = "M", price_cents: int = 2300) -> dict[str, Any]:
    payload = order_payload((Pick("rainbow", "Rainbow Tee", size, price_cents), 1))
    if colour is not None:
        payload["items"][0]["color"] = colour
    return payload


def test_an_order_line_keeps_the_colour_and_ships_its_variant(session: Session) -> None:
    order = checkout.create_order(session, _payload("Black"), "colour-1")
    items = checkout.order_items(session, order.id)
    assert [(i.color, i.size, i.variant_id, i.unit_price_cents, i.image_url) for i in items] == [
        ("Black", "M", "211", 2300, shown(BLACK_FRONT))
    ]
    assert printify_order_body(order, items)["line_items"][0]["variant_id"] == 211
    assert checkout.serialize_order(order, items)["items"][0]["color"] == "Black"


def test_an_order_line_without_a_colour_records_the_colour_it_ships(session: Session) -> None:
    order = checkout.create_order(session, _payload(None, price_cents=2100), "colour-2")
    (item,) = session.exec(select(OrderItem).where(col(OrderItem.order_id) == order.id)).all()
    assert (item.color, item.variant_id) == ("Navy", "202")


def test_an_order_line_of_a_one_colour_product_has_no_colour(session: Session) -> None:
    payload = order_payload((Pick("plain", "Plain Tee", "M", 1900), 1))
    order = checkout.create_order(session, payload, "colour-3")
    (item,) = checkout.order_items(session, order.id)
    assert (item.color, item.variant_id) == ("", "302")


def test_an_order_line_in_a_colour_not_offered_is_refused_at_its_line(session: Session) -> None:
    with pytest.raises(ValidationError) as caught:
        checkout.create_order(session, _payload("White", price_cents=2500), "colour-4")
    assert caught.value.field_errors == {"items.0.color": COLOR_NOT_AVAILABLE}


def test_the_browser_price_is_compared_with_the_chosen_colours_price(session: Session) -> None:
    with pytest.raises(ValidationError, match="^Price mismatch"):
        checkout.create_order(session, _payload("Black", price_cents=2100), "colour-5")


def test_the_checkout_form_sends_the_colour_only_for_lines_that_have_one() -> None:
    lines = [_line("Black"), CartLine("plain", "Plain Tee", 1900, "M", "/p.png", 1, variant_id="302")]
    items = checkout.checkout_payload({}, lines, same_as_shipping=True)["items"]
    assert [item.get("color") for item in items] == ["Black", None]
    assert checkout.validate_order_payload(checkout.checkout_payload(_form(), lines, True)).items[0].color == "Black"


def _form() -> dict[str, str]:
    address = {f"shippingAddress.{k}": v for k, v in order_payload()["shippingAddress"].items()}
    return {"customerEmail": "ada@example.com", "customerName": "Ada Lovelace", **address}
