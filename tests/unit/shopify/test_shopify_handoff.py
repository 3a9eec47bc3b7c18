"""'Checkout on <store>' on the service side: the cart's store lines handed to the fake Shopify's
cartCreate over real HTTP, as the cart page does it (services/orders/store_lines.store_checkout)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from storefront.services.orders import cart, store_lines
from storefront.services.platform.errors import ValidationError
from storefront.services.shopify.catalogue import StoreCheckout
from storefront.services.shopify.client import ShopifyCatalogue
from storefront.services.shopify.demo import DEMO_CHECKOUT, DemoStoreCatalogue
from tests.fakes.shopify_server import FakeShopifyServer


@pytest.fixture
def fake() -> Iterator[FakeShopifyServer]:
    with FakeShopifyServer() as server:
        yield server


def handoff(fake: FakeShopifyServer, lines: list[cart.CartLine], **kwargs: Any) -> StoreCheckout:
    async def main() -> StoreCheckout:
        options = kwargs or {"storefront_token": fake.token}
        async with ShopifyCatalogue(shop_root=fake.base_url, **options) as catalogue:
            return await store_lines.store_checkout(catalogue, lines)
    return asyncio.run(main())


def priced_lines(fake: FakeShopifyServer, *picks: tuple[int, int, int]) -> list[cart.CartLine]:
    """Cart lines priced by the store as the product page adds them: (product index, variant index, quantity)."""
    async def main() -> list[cart.CartLine]:
        async with ShopifyCatalogue(shop_root=fake.base_url, storefront_token=fake.token) as catalogue:
            status = await catalogue.status()
            lines = []
            for index, variant, quantity in picks:
                raw = fake.active_products()[index]
                lines.append(await store_lines.priced_store_line(catalogue, raw["id"], raw["variants"][variant]["id"],
                                                                 quantity, status=status))
            return lines
    return asyncio.run(main())


def test_the_store_lines_become_a_shopify_cart_whose_checkout_holds_them(fake) -> None:
    ours = cart.CartLine("tee-1", "Classic Tee", 2499, "M", "", 1)
    lines = priced_lines(fake, (0, 1, 2), (4, 0, 1))
    assert all(line.variant_gid.startswith("gid://shopify/ProductVariant/") for line in lines)
    result = handoff(fake, [ours, *lines])
    assert result.problems == ()
    (token,) = fake.carts
    assert fake.cart_lines(token) == [(int(line.variant_id or 0), line.quantity) for line in lines]
    page = httpx.get(result.checkout_url)
    assert page.status_code == 200
    assert (
        f"{lines[0].name} - {lines[0].size} x 2" in page.text and f"{lines[1].name} - {lines[1].size} x 1" in page.text
    )


def test_a_line_stored_before_gids_is_handed_over_by_its_numeric_id(fake) -> None:
    (line,) = priced_lines(fake, (2, 0, 3))
    legacy = cart.load_cart(cart.dump_cart([line]).replace(f',"variantGid":"{line.variant_gid}"', ""))
    assert legacy[0].variant_gid == ""
    result = handoff(fake, legacy)
    assert result.checkout_url and fake.cart_lines(next(iter(fake.carts))) == [(int(line.variant_id or 0), 3)]


def test_a_sold_out_line_shows_the_reason_and_opens_no_checkout(fake) -> None:
    sold_out, fine = priced_lines(fake, (0, 0, 1), (1, 0, 1))
    fake.set_stock(int(sold_out.variant_id or 0), 0)
    result = handoff(fake, [sold_out, fine])
    assert result.checkout_url == ""
    assert result.problems == (f"{sold_out.name} - {sold_out.size} is sold out. Please remove it from your cart.",)


def test_the_admin_fallback_hands_over_the_store_cart_permalink(fake) -> None:
    (line,) = priced_lines(fake, (0, 0, 2))
    result = handoff(fake, [line], admin_token=fake.admin_token)
    assert result.checkout_url == f"https://{fake.domain}/cart/{line.variant_id}:2"
    assert not fake.carts


def test_nothing_from_the_store_is_refused_before_any_request(fake) -> None:
    with pytest.raises(ValidationError) as caught:
        handoff(fake, [cart.CartLine("tee-1", "Classic Tee", 2499, "M", "", 1)])
    assert caught.value.message == store_lines.NOTHING_TO_CHECK_OUT
    assert fake.requests == []


def test_the_demo_catalogue_sells_nothing(tmp_path: Path) -> None:
    line = cart.CartLine("1", "Tee", 2400, "M", "", 1, "44123456000001", source=cart.SOURCE_STORE)
    with pytest.raises(ValidationError) as caught:
        asyncio.run(store_lines.store_checkout(DemoStoreCatalogue(media_dir=tmp_path), [line]))
    assert caught.value.message == DEMO_CHECKOUT
