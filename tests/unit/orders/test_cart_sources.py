"""Cart lines keep their source: our catalogue ("") or the store catalogue ("shopify").

Store-catalogue lines are checked out on the store through its cart permalink; our checkout only
ever sells our own lines and refuses store lines with a clear message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from storefront.services.orders import cart, store_lines
from storefront.services.orders.cart import SOURCE_STORE, CartLine
from storefront.services.orders.checkout import (
    STORE_ITEMS_REFUSED,
    checkout_payload,
    validate_order_payload,
)
from storefront.services.orders.store_lines import (
    DEMO_NOT_FOR_SALE,
    priced_store_line,
    purchase_refusal,
    repriced_store_lines,
    store_line,
)
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    StoreImage,
    StoreProduct,
    StoreStatus,
    StoreUnavailable,
    StoreVariant,
)
from storefront.services.shopify.demo import DemoStoreCatalogue
from storefront.state.cart import CartState, options_text
from tests.ordering import SHIPPING_ADDRESS, order_payload

OURS = CartLine("tee-1", "Classic Tee", 2499, "M", "/tee.webp", 2)
STORE = CartLine("101", "Crew Tee", 2400, "Black / M", "https://cdn.example/t.png", 1, "9001", source=SOURCE_STORE)


def _product(*variants: StoreVariant, product_id: int = 101, title: str = "Crew Tee") -> StoreProduct:
    return StoreProduct(
        id=product_id,
        title=title,
        body_html="",
        vendor="",
        product_type="",
        tags=(),
        option_names=("Title",),
        variants=variants,
        images=(StoreImage("https://cdn.example/t.png"),),
    )


BLACK_M = StoreVariant(9001, "Black / M", 2400)
BLACK_XL = StoreVariant(9002, "Black / XL", 2600)


class FakeStore:
    """A store catalogue answering from a dict; `down` makes every read StoreUnavailable."""

    def __init__(self, *products: StoreProduct, down: bool = False) -> None:
        self.products = {p.id: p for p in products}
        self.down = down
        self.reads: list[int] = []

    async def status(self) -> StoreStatus:
        return StoreStatus("connected", "Connected", shop_name="Shop", domain="shop.example.com")

    async def product(self, product_id: int) -> StoreProduct:
        self.reads.append(product_id)
        if self.down:
            raise StoreUnavailable("down")
        try:
            return self.products[product_id]
        except KeyError:
            raise NotFoundError("Product Not Found") from None

    async def products_by_id(self, product_ids: Sequence[int]) -> dict[int, StoreProduct]:
        self.reads.extend(product_ids)
        if self.down:
            raise StoreUnavailable("down")
        return {i: self.products[i] for i in product_ids if i in self.products}


# --------------------------------------------------------------------------- the line's source


def test_a_stored_cart_without_sources_loads_as_our_lines() -> None:
    raw = json.dumps([{"id": "tee-1", "name": "Classic Tee", "price": 24.99, "size": "M", "image": "", "quantity": 1}])
    (line,) = cart.load_cart(raw)
    assert line.source == "" and line.is_ours


def test_a_store_line_keeps_its_source_through_local_storage() -> None:
    raw = cart.dump_cart([OURS, STORE])
    items = json.loads(raw)
    assert "source" not in items[0]
    assert items[1]["source"] == "shopify"
    assert cart.load_cart(raw) == [OURS, STORE]


def test_an_entry_of_an_unknown_source_is_skipped() -> None:
    raw = json.dumps([{"id": "1", "name": "X", "price": 1, "size": "M", "quantity": 1, "source": "elsewhere"}])
    assert cart.load_cart(raw) == []


def test_the_same_id_and_size_from_two_sources_are_two_lines() -> None:
    mine = CartLine("101", "Crew Tee", 2400, "Black / M", "", 1)
    lines = cart.add_line(cart.add_line((), mine), STORE)
    assert len(lines) == 2
    lines = cart.add_line(lines, STORE)
    assert [line.quantity for line in lines] == [1, 2]


def test_quantity_buttons_and_remove_touch_only_the_line_of_that_source() -> None:
    mine = CartLine("101", "Crew Tee", 2400, "Black / M", "", 1)
    lines = (mine, STORE)
    assert cart.increment(lines, "101", "Black / M", "", SOURCE_STORE) == (mine, replace(STORE, quantity=2))
    assert cart.decrement(lines, "101", "Black / M") == lines
    assert cart.remove_line(lines, "101", "Black / M", "", SOURCE_STORE) == (mine,)
    assert cart.remove_line(lines, "101", "Black / M") == (STORE,)


def test_store_lines_merge_and_clamp_like_ours() -> None:
    lines = cart.add_line(cart.add_line((), replace(STORE, quantity=98)), replace(STORE, quantity=5))
    assert lines[0].quantity == cart.MAX_LINE_QUANTITY


def test_lines_split_by_source_in_cart_order() -> None:
    other = CartLine("7", "Cap", 1500, "Default Title", "", 1, "77", source=SOURCE_STORE)
    assert cart.split_by_source([STORE, OURS, other]) == ([OURS], [STORE, other])


# --------------------------------------------------------------------------- the store's variant gid


def test_a_store_line_keeps_its_variant_gid_in_local_storage() -> None:
    line = replace(STORE, variant_gid="gid://shopify/ProductVariant/9001")
    (stored,) = json.loads(cart.dump_cart([line]))
    assert stored["variantGid"] == "gid://shopify/ProductVariant/9001" and stored["variantId"] == "9001"
    assert cart.load_cart(cart.dump_cart([line])) == [line]


@pytest.mark.parametrize("value", ["gid://shopify/Product/9001", "9001", "gid://shopify/ProductVariant/x", 9001,
                                   "javascript:alert(1)"])
def test_a_stored_value_that_is_not_a_variant_gid_is_dropped(value: object) -> None:
    (stored,) = json.loads(cart.dump_cart([STORE]))
    stored["variantGid"] = value
    (line,) = cart.load_cart(json.dumps([stored]))
    assert line.variant_gid == "" and line.variant_id == "9001"


def test_the_checkout_line_is_the_gid_or_derived_from_the_numeric_id() -> None:
    with_gid = store_lines.checkout_line(replace(STORE, variant_gid="gid://shopify/ProductVariant/9001"))
    before_gids = store_lines.checkout_line(STORE)
    assert with_gid == before_gids
    assert (with_gid.variant_gid, with_gid.variant_id, with_gid.quantity) == ("gid://shopify/ProductVariant/9001",
                                                                             "9001", 1)
    assert store_lines.checkout_line(replace(STORE, variant_id=None)) is None


# --------------------------------------------------------------------------- our checkout


def _store_item() -> dict:
    return {"productId": "101", "name": "Crew Tee", "size": "Black / M", "price": 24.0, "quantity": 1,
            "source": "shopify"}


def test_an_order_with_a_store_line_is_refused_with_the_store_message() -> None:
    payload = order_payload(items=[_store_item()], subtotal=24.0)
    with pytest.raises(ValidationError) as refused:
        validate_order_payload(payload)
    assert refused.value.message == STORE_ITEMS_REFUSED
    assert refused.value.field_errors == {"items.0.source": STORE_ITEMS_REFUSED}


def test_the_checkout_form_orders_only_our_lines_of_a_mixed_cart() -> None:
    form = {"customerEmail": "ada@example.com", "customerName": "Ada Lovelace",
            **{f"shippingAddress.{k}": v for k, v in SHIPPING_ADDRESS.items()}}
    payload = checkout_payload(form, [OURS, STORE], same_as_shipping=True)
    assert [item["productId"] for item in payload["items"]] == ["tee-1"]
    assert payload["subtotal"] == 49.98
    validate_order_payload(payload)  # no store line reaches the order


def test_the_checkout_form_of_a_store_only_cart_is_refused_with_the_store_message() -> None:
    form = {"customerEmail": "ada@example.com", "customerName": "Ada Lovelace",
            **{f"shippingAddress.{k}": v for k, v in SHIPPING_ADDRESS.items()}}
    payload = checkout_payload(form, [STORE], same_as_shipping=True)
    with pytest.raises(ValidationError) as refused:
        validate_order_payload(payload)
    assert refused.value.message == STORE_ITEMS_REFUSED


# --------------------------------------------------------------------------- adding and repricing store lines


def test_a_store_line_takes_price_name_image_and_variant_title_from_the_store() -> None:
    line = asyncio.run(priced_store_line(FakeStore(_product(BLACK_M, BLACK_XL)), "101", "9002", 2))
    assert line == CartLine("101", "Crew Tee", 2600, "Black / XL", "https://cdn.example/t.png", 2, "9002",
                            source=SOURCE_STORE)
    assert options_text(line) == "Black / XL"


@pytest.mark.parametrize(("asked", "kept"), [(0, 1), (-3, 1), (500, 99), ("4", 4), ("lots", 1), (2.0, 2)])
def test_a_store_line_quantity_is_kept_within_1_to_99(asked: object, kept: int) -> None:
    line = asyncio.run(priced_store_line(FakeStore(_product(BLACK_M)), "101", "9001", asked))
    assert line.quantity == kept


@pytest.mark.parametrize(("product_id", "variant_id"), [("999", "9001"), ("101", "123"), ("abc", "9001")])
def test_an_unknown_store_product_or_variant_is_not_found(product_id: str, variant_id: str) -> None:
    with pytest.raises(NotFoundError):
        asyncio.run(priced_store_line(FakeStore(_product(BLACK_M)), product_id, variant_id, 1))


def test_a_variant_without_a_price_cannot_be_added() -> None:
    with pytest.raises(NotFoundError):
        store_line(_product(StoreVariant(9001, "Black / M", None)), "9001", 1)


def test_a_store_that_cannot_answer_is_reported() -> None:
    with pytest.raises(StoreUnavailable):
        asyncio.run(priced_store_line(FakeStore(down=True), "101", "9001", 1))


def test_store_lines_are_repriced_from_the_store_reading_each_product_once() -> None:
    store = FakeStore(_product(StoreVariant(9001, "Black / M", 2700), BLACK_XL, title="Crew Tee v2"))
    stale = [STORE, CartLine("101", "Crew Tee", 2600, "Black / XL", "", 1, "9002", source=SOURCE_STORE)]
    fresh, dropped = asyncio.run(repriced_store_lines(store, stale))
    assert dropped == 0 and store.reads == [101]
    assert [(line.name, line.price_cents, line.size) for line in fresh] == [
        ("Crew Tee v2", 2700, "Black / M"), ("Crew Tee v2", 2600, "Black / XL")]


def test_store_lines_whose_product_or_variant_is_gone_are_dropped() -> None:
    gone_variant = CartLine("101", "Crew Tee", 2400, "Red / S", "", 1, "555", source=SOURCE_STORE)
    gone_product = CartLine("202", "Old Cap", 1500, "Default Title", "", 1, "777", source=SOURCE_STORE)
    fresh, dropped = asyncio.run(
        repriced_store_lines(FakeStore(_product(BLACK_M)), [STORE, gone_variant, gone_product])
    )
    assert fresh == [STORE] and dropped == 2


def test_store_lines_are_not_repriced_while_the_store_is_down() -> None:
    with pytest.raises(StoreUnavailable):
        asyncio.run(repriced_store_lines(FakeStore(down=True), [STORE]))


def test_the_demo_catalogue_sells_nothing(tmp_path: Path) -> None:
    demo = DemoStoreCatalogue(media_dir=tmp_path, image_size=64)
    product = asyncio.run(demo.products(limit=1)).products[0]
    variant = product.variants[-1]
    with pytest.raises(ValidationError) as refused:
        asyncio.run(priced_store_line(demo, str(product.id), str(variant.id), 1))
    assert refused.value.message == DEMO_NOT_FOR_SALE == "Demo catalogue: this item cannot be bought here"


def test_a_demo_status_given_by_the_caller_refuses_the_line_without_reading_the_product() -> None:
    store = FakeStore(_product(BLACK_M))
    with pytest.raises(ValidationError):
        asyncio.run(priced_store_line(store, "101", "9001", 1, status=StoreStatus("demo", "Demo mode")))
    assert store.reads == []


@pytest.mark.parametrize(("status", "refusal"), [("demo", DEMO_NOT_FOR_SALE), ("connected", ""), ("error", "")])
def test_only_the_demo_catalogue_refuses_purchases(status: str, refusal: str) -> None:
    assert purchase_refusal(StoreStatus(status, "")) == refusal


# --------------------------------------------------------------------------- the cart page's figures


def _cart(*lines: CartLine, **store: str) -> CartState:
    state = CartState(_reflex_internal_init=True)  # type: ignore[call-arg]
    state.cart_json = cart.dump_cart(lines)
    for name, value in store.items():
        setattr(state, name, value)
    return state


def test_our_totals_count_only_our_lines() -> None:
    state = _cart(OURS, STORE)
    assert [row["id"] for row in state.rows] == ["tee-1"]
    assert [row["source"] for row in state.store_rows] == ["shopify"]
    assert state.subtotal == "$49.98"
    assert state.store_subtotal == "$24.00"
    assert state.total_quantity == 3


def test_a_store_only_cart_has_no_lines_of_ours() -> None:
    state = _cart(STORE)
    assert not state.has_own_lines and state.has_store_lines


def test_the_store_button_hands_the_lines_over_only_when_connected() -> None:
    connected = _cart(STORE, store_status="connected", store_name="Shop", store_domain="shop.example.com")
    assert connected.store_checkout_ready
    assert connected.store_checkout_note == ""
    assert connected.store_label == "Shop"
    no_variant = _cart(replace(STORE, variant_id=None), store_status="connected", store_message="Connected to Shop.")
    assert not no_variant.store_checkout_ready
    demo = _cart(STORE, store_status="demo", store_name="Northline Demo Shop")
    assert not demo.store_checkout_ready
    assert "connected Shopify store" in demo.store_checkout_note
