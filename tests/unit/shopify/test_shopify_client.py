"""The Shopify GraphQL catalogue client against the fake Shopify server, over real HTTP on loopback.

The client's clock and sleep are a fake timeline shared with the fake's Admin cost bucket: nothing
really waits, and the waits the client asked for are read from `timeline.sleeps`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterator
from types import SimpleNamespace
from typing import Any, TypeVar

import httpx
import pytest

from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify import ids
from storefront.services.shopify.catalogue import (
    CHECKOUT_FAILED,
    COLLECTIONS_FAILED,
    INVALID_CURSOR,
    PRODUCT_FAILED,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    STATUS_CONNECTED,
    STATUS_ERROR,
    CheckoutLine,
    StoreCatalogue,
    StoreUnavailable,
)
from storefront.services.shopify.client import (
    ADMIN_ADVICE,
    DEFAULT_API_VERSION,
    USER_AGENT,
    ShopifyCatalogue,
    shop_root,
)
from storefront.services.shopify.graphql import SECURITY_ADVICE, NotCached, cache_only, set_buyer_ip
from storefront.services.shopify.queries import quoted_search_value
from tests.fakes.shopify_server import (
    ARCHIVED_TITLE,
    CUSTOM_COLLECTIONS,
    DRAFT_TITLE,
    SHOP,
    SMART_COLLECTION,
    SUPPORTED_VERSIONS,
    FakeShopifyServer,
)

#: Generous: a 250-product page from the fake must not time out on a loaded machine.
TIMEOUT = 10.0
#: The timeout test's own limit, well under the fake's slow answer.
SHORT_TIMEOUT = 0.5
SLOW = 2.0
HOSTILE = 'tee" OR title:*'
T = TypeVar("T")


class FakeTimeline:
    """A clock that only moves when something sleeps; every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def timeline() -> FakeTimeline:
    return FakeTimeline()


@pytest.fixture
def fake(timeline: FakeTimeline) -> Iterator[FakeShopifyServer]:
    with FakeShopifyServer(clock=timeline.clock) as server:
        yield server


def run(fake: FakeShopifyServer, timeline: FakeTimeline, body: Callable[[ShopifyCatalogue], Awaitable[T]],
        **kwargs: Any) -> T:
    """Run `body` with a fresh catalogue client (made inside the event loop, closed afterwards);
    the Storefront token unless `admin_token` or another token is given."""
    options: dict[str, Any] = {"shop_root": fake.base_url, "timeout": TIMEOUT, "clock": timeline.clock,
                               "sleep": timeline.sleep, **kwargs}
    if not {"storefront_token", "private_token", "admin_token"} & set(kwargs):
        options["storefront_token"] = fake.token

    async def main() -> T:
        async with ShopifyCatalogue(**options) as catalogue:
            return await body(catalogue)

    return asyncio.run(main())


def catalogue_requests(fake: FakeShopifyServer, api: str = "storefront", containing: str = "") -> list:
    return fake.requests_to(api, containing)


async def walk(catalogue: ShopifyCatalogue, **kwargs: Any) -> list[int]:
    """Every product id of a listing, page by page."""
    seen: list[int] = []
    cursor = ""
    while True:
        page = await catalogue.products(cursor=cursor, **kwargs)
        seen.extend(p.id for p in page.products)
        cursor = page.next_cursor
        if not cursor:
            return seen


# ------------------------------------------------------------------ transport and settings


def test_requests_post_graphql_with_the_storefront_token_and_variables(fake, timeline) -> None:
    run(fake, timeline, lambda c: c.products(limit=5))
    (request,) = fake.requests
    assert (request.method, request.path) == ("POST", f"/api/{DEFAULT_API_VERSION}/graphql.json")
    assert request.headers["x-shopify-storefront-access-token"] == fake.token
    assert "x-shopify-access-token" not in request.headers and "shopify-storefront-private-token" not in request.headers
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"] == USER_AGENT
    assert request.variables["first"] == 5 and request.variables["after"] is None
    assert request.status == 200


def test_the_private_token_is_sent_in_its_own_header_and_wins(fake, timeline) -> None:
    run(fake, timeline, lambda c: c.products(limit=1), private_token=fake.private_token, storefront_token="unused")
    (request,) = fake.requests
    assert request.headers["shopify-storefront-private-token"] == fake.private_token
    assert "x-shopify-storefront-access-token" not in request.headers


def test_with_the_private_token_each_request_names_its_shopper(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        set_buyer_ip("203.0.113.7")
        await catalogue.products(limit=1)
        set_buyer_ip("not an address")
        await catalogue.products(limit=2)

    run(fake, timeline, body, private_token=fake.private_token)
    assert [r.headers.get("shopify-storefront-buyer-ip") for r in fake.requests] == ["203.0.113.7", None]


def test_the_public_token_never_sends_a_buyer_ip(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        set_buyer_ip("203.0.113.7")
        await catalogue.products(limit=1)

    run(fake, timeline, body)
    assert "shopify-storefront-buyer-ip" not in fake.requests[0].headers


def test_the_client_satisfies_the_store_catalogue_protocol(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        typed: StoreCatalogue = catalogue
        assert typed is catalogue
    run(fake, timeline, body)


def test_the_shop_root_comes_from_the_domain_or_the_override() -> None:
    assert shop_root("shop.myshopify.com") == "https://shop.myshopify.com"
    assert shop_root("https://shop.myshopify.com/") == "https://shop.myshopify.com"
    assert shop_root("shop.myshopify.com", "http://127.0.0.1:8766/") == "http://127.0.0.1:8766"
    settings = SimpleNamespace(shopify_store_domain="shop.myshopify.com", shopify_storefront_token="sf_secret",
                               shopify_storefront_private_token="", shopify_access_token="",
                               shopify_api_version="2026-07", shopify_api_base="")
    catalogue = ShopifyCatalogue.from_settings(settings)
    assert catalogue.endpoint == "https://shop.myshopify.com/api/2026-07/graphql.json"
    assert "sf_secret" not in repr(catalogue)
    asyncio.run(catalogue.aclose())
    admin = ShopifyCatalogue(SimpleNamespace(**{**vars(settings), "shopify_storefront_token": "",
                                                "shopify_access_token": "shpat_x",
                                                "shopify_api_base": "http://127.0.0.1:1"}))
    assert admin.endpoint == "http://127.0.0.1:1/admin/api/2026-07/graphql.json" and admin.admin
    asyncio.run(admin.aclose())


def test_the_store_wiring_builds_the_storefront_client_from_settings(fake, monkeypatch) -> None:
    from storefront import wiring
    from storefront.config import Settings

    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", fake.domain)
    monkeypatch.setenv("SHOPIFY_STOREFRONT_TOKEN", fake.token)
    monkeypatch.setenv("SHOPIFY_ACCESS_TOKEN", "")
    monkeypatch.setenv("SHOPIFY_API_BASE", fake.base_url)

    async def main() -> Any:
        catalogue = wiring.store_catalogue(Settings())
        assert isinstance(catalogue, ShopifyCatalogue) and not catalogue.admin
        try:
            return await catalogue.status()
        finally:
            await catalogue.aclose()

    assert asyncio.run(main()).status == STATUS_CONNECTED
    assert [r.api for r in fake.requests] == ["storefront"]


def test_without_a_token_the_wiring_keeps_the_demo(monkeypatch) -> None:
    from storefront import wiring
    from storefront.config import Settings
    from storefront.services.shopify.demo import DemoStoreCatalogue

    for name in ("SHOPIFY_STOREFRONT_TOKEN", "SHOPIFY_STOREFRONT_PRIVATE_TOKEN", "SHOPIFY_ACCESS_TOKEN"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", "shop.myshopify.com")
    assert isinstance(wiring.store_catalogue(Settings()), DemoStoreCatalogue)


def test_settings_default_to_a_supported_version_and_refuse_a_malformed_one(monkeypatch) -> None:
    from storefront.config import Settings, SettingsError

    monkeypatch.delenv("SHOPIFY_API_VERSION", raising=False)
    assert Settings().shopify_api_version == DEFAULT_API_VERSION == SUPPORTED_VERSIONS[-1]
    monkeypatch.setenv("SHOPIFY_API_BASE", "http://127.0.0.1:8766")
    assert Settings().shopify_api_base == "http://127.0.0.1:8766"
    monkeypatch.setenv("SHOPIFY_API_VERSION", "2026-13")
    with pytest.raises(SettingsError) as caught:
        Settings()
    assert "SHOPIFY_API_VERSION" in str(caught.value).upper()


def test_a_retired_version_is_logged_with_the_version_that_served(fake, timeline, caplog) -> None:
    caplog.set_level(logging.WARNING, "storefront.services.shopify.graphql")

    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(limit=1)
        await catalogue.products(limit=2)

    run(fake, timeline, body, version="2023-07")
    assert fake.requests[0].path == "/api/2023-07/graphql.json"
    warnings = [r.getMessage() for r in caplog.records if "served API version" in r.getMessage()]
    assert len(warnings) == 1 and SUPPORTED_VERSIONS[0] in warnings[0] and "2023-07" in warnings[0]


def test_the_asked_version_served_is_not_logged(fake, timeline, caplog) -> None:
    caplog.set_level(logging.WARNING, "storefront.services.shopify.graphql")
    run(fake, timeline, lambda c: c.products(limit=1))
    assert not [r for r in caplog.records if "served API version" in r.getMessage()]


# ------------------------------------------------------------------ listing and pagination


def test_600_products_page_through_with_no_repeat_and_no_gap(fake, timeline) -> None:
    added = fake.add_products(570)
    expected = [p["id"] for p in fake.active_products()]
    assert len(expected) == 600 and set(added) <= set(expected)

    seen = run(fake, timeline, lambda c: walk(c, limit=250))
    assert seen == expected
    assert len(fake.requests) == 3
    cursors = [r.variables["after"] for r in fake.requests]
    assert cursors[0] is None and all(isinstance(c, str) and c for c in cursors[1:])
    assert len(set(cursors[1:])) == 2


def test_small_pages_walk_the_same_products_in_the_same_order(fake, timeline) -> None:
    fake.add_products(40)
    seen = run(fake, timeline, lambda c: walk(c, limit=24))
    assert seen == [p["id"] for p in fake.active_products()]
    assert len(seen) == len(set(seen)) == 70


def test_drafts_and_archived_products_are_never_listed(fake, timeline) -> None:
    titles = run(fake, timeline, lambda c: walk(c, limit=250))
    names = {fake.products[i]["title"] for i in titles}
    assert DRAFT_TITLE not in names and ARCHIVED_TITLE not in names


def test_products_carry_gids_numeric_ids_prices_variants_images_and_tags(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(limit=3))
    product = page.products[0]
    raw = fake.active_products()[0]
    assert product.id == raw["id"] and product.gid == f"gid://shopify/Product/{raw['id']}"
    assert product.handle == raw["handle"] and product.title == raw["title"]
    assert product.tags == tuple(t.strip() for t in raw["tags"].split(","))
    assert product.price_cents == 2800
    assert [v.id for v in product.variants] == [v["id"] for v in raw["variants"]]
    assert product.variants[0].gid == f"gid://shopify/ProductVariant/{raw['variants'][0]['id']}"
    assert product.variants[0].options == (raw["variants"][0]["option1"],)
    assert product.option_names == ("Size",)
    image = product.image
    assert image is not None and image.src == raw["images"][0]["src"] and image.width == 1200
    assert [w for w, _ in image.renditions] == [320, 640, 960]
    assert all(url != image.src for _, url in image.renditions)  # Shopify's transformed addresses, not ours


def test_limit_is_clamped_to_1_and_250(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(limit=0)
        await catalogue.products(limit=1000)
    run(fake, timeline, body)
    assert [r.variables["first"] for r in fake.requests] == [1, 250]


def test_a_cursor_shopify_refuses_is_a_validation_error_in_our_words(fake, timeline) -> None:
    with pytest.raises(ValidationError) as caught:
        run(fake, timeline, lambda c: c.products(cursor="not-a-cursor"))
    assert caught.value.message == INVALID_CURSOR and caught.value.field_errors == {"cursor": INVALID_CURSOR}


# ------------------------------------------------------------------ collections


def test_collections_are_sorted_by_title_with_their_gids(fake, timeline) -> None:
    collections = run(fake, timeline, lambda c: c.collections())
    expected = sorted([(cid, title) for cid, title, _, _ in CUSTOM_COLLECTIONS] +
                      [(SMART_COLLECTION[0], SMART_COLLECTION[1])], key=lambda c: c[1].casefold())
    assert [(c.id, c.title) for c in collections] == expected
    assert all(c.gid == ids.shopify_gid(ids.COLLECTION, c.id) for c in collections)


def test_a_collection_page_is_its_visible_products_in_collection_order(fake, timeline) -> None:
    cid, _, _, titles = CUSTOM_COLLECTIONS[0]
    page = run(fake, timeline, lambda c: c.products(collection_id=cid))
    assert [p.title for p in page.products] == [t for t in titles if t != DRAFT_TITLE]
    assert all(p.price_cents for p in page.products)


def test_a_smart_collection_lists_the_products_its_rule_selects(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(collection_id=SMART_COLLECTION[0]))
    assert page.products and all(p.title.endswith("Cap") for p in page.products)


def test_an_unknown_collection_is_an_empty_page(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(collection_id=999))
    assert page.products == () and page.next_cursor == ""


def test_a_collection_is_paged_with_its_own_cursor(fake, timeline) -> None:
    cid = CUSTOM_COLLECTIONS[1][0]
    seen = run(fake, timeline, lambda c: walk(c, collection_id=cid, limit=3))
    assert [fake.products[i]["title"] for i in seen] == list(CUSTOM_COLLECTIONS[1][3])


def test_collections_failing_is_collections_failed(fake, timeline) -> None:
    fake.fail_with(500, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.collections())
    assert caught.value.message == COLLECTIONS_FAILED


# ------------------------------------------------------------------ search


def test_title_search_is_a_case_insensitive_substring_match(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(query="  TEE "))
    expected = [p["title"] for p in fake.active_products() if "tee" in p["title"].casefold()]
    assert [p.title for p in page.products] == expected and len(expected) > 5
    (request,) = fake.requests
    assert request.variables["query"] == 'title:"TEE"'


def test_a_hostile_search_finds_only_titles_containing_that_text(fake, timeline) -> None:
    (hostile_id,) = fake.add_products(1, title=f'Retro {HOSTILE} Shirt')
    page = run(fake, timeline, lambda c: c.products(query=HOSTILE))
    assert [p.id for p in page.products] == [hostile_id]
    (request,) = fake.requests
    assert HOSTILE not in request.query  # the text travels as a variable, never in the document
    assert request.variables["query"] == 'title:"tee\\" OR title\\:*"'


@pytest.mark.parametrize("text", ['") OR (title:', "\\", "vendor:Acme", "a:b (c) \"d\""])
def test_search_syntax_in_the_text_never_widens_the_search(fake, timeline, text: str) -> None:
    page = run(fake, timeline, lambda c: c.products(query=text))
    assert page.products == ()


def test_the_search_value_escapes_quotes_backslashes_colons_and_parentheses() -> None:
    assert quoted_search_value('a"b\\c:d(e)') == '"a\\"b\\\\c\\:d\\(e\\)"'


def test_search_pages_with_shopifys_cursor_without_repeats(fake, timeline) -> None:
    fake.add_products(30, title="Paged Tee")
    seen = run(fake, timeline, lambda c: walk(c, query="paged", limit=7))
    assert len(seen) == len(set(seen)) == 30


def test_search_inside_a_collection(fake, timeline) -> None:
    cid, _, _, titles = CUSTOM_COLLECTIONS[1]
    page = run(fake, timeline, lambda c: c.products(query="HOODIE", collection_id=cid))
    assert [p.title for p in page.products] == [t for t in titles if "hoodie" in t.casefold()]


def test_a_collection_search_pages_with_its_own_cursor(fake, timeline) -> None:
    cid, _, _, titles = CUSTOM_COLLECTIONS[1]
    seen = run(fake, timeline, lambda c: walk(c, query="e", collection_id=cid, limit=2))
    assert [fake.products[i]["title"] for i in seen] == [t for t in titles if "e" in t.casefold()]


def test_a_search_cursor_without_its_search_is_a_validation_error(fake, timeline) -> None:
    with pytest.raises(ValidationError):
        run(fake, timeline, lambda c: c.products(cursor="search:5"))


# ------------------------------------------------------------------ one product, many variants


def test_a_product_is_read_by_id(fake, timeline) -> None:
    raw = fake.active_products()[3]
    product = run(fake, timeline, lambda c: c.product(raw["id"]))
    assert product.title == raw["title"] and product.id == raw["id"]
    (request,) = fake.requests
    assert request.variables["id"] == f"gid://shopify/Product/{raw['id']}"


def test_a_product_with_300_variants_shows_them_all(fake, timeline) -> None:
    raw = fake.active_products()[0]
    variant_ids = fake.set_variant_count(raw["id"], 300)
    product = run(fake, timeline, lambda c: c.product(raw["id"]))
    assert [v.id for v in product.variants] == variant_ids
    assert product.option_names == ("Size", "Colour")
    assert product.variants[-1].options == ("6XL", "Colour 030")
    assert len(fake.requests) == 2  # 250, then the rest after the first page's cursor


def test_a_product_with_2000_variants_is_read_in_pages_of_250(fake, timeline) -> None:
    raw = fake.active_products()[0]
    variant_ids = fake.set_variant_count(raw["id"], 2000)
    product = run(fake, timeline, lambda c: c.product(raw["id"]))
    assert [v.id for v in product.variants] == variant_ids
    assert len(fake.requests) == 8


def test_an_unknown_or_unpublished_product_is_not_found_and_remembered(fake, timeline) -> None:
    draft = next(p for p in fake.products.values() if p["title"] == DRAFT_TITLE)

    async def body(catalogue: ShopifyCatalogue) -> None:
        for product_id in (123, draft["id"], 123):
            with pytest.raises(NotFoundError) as caught:
                await catalogue.product(product_id)
            assert caught.value.message == PRODUCT_NOT_FOUND

    run(fake, timeline, body, cache_ttl=0)
    assert len(fake.requests) == 2  # the second ask for 123 was remembered


def test_a_cart_of_store_products_is_read_together_with_every_variant(fake, timeline) -> None:
    first, second = fake.active_products()[:2]
    fake.set_variant_count(second["id"], 300)
    found = run(fake, timeline, lambda c: c.products_by_id([first["id"], second["id"], 42, first["id"]]))
    assert sorted(found) == sorted([first["id"], second["id"]])
    assert len(found[second["id"]].variants) == 300
    nodes = catalogue_requests(fake, containing="nodes(ids:")
    assert len(nodes) == 1 and len(nodes[0].variables["ids"]) == 3


def test_a_failing_product_read_is_product_failed(fake, timeline) -> None:
    fake.fail_with(500, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.product(fake.active_products()[0]["id"]))
    assert caught.value.message == PRODUCT_FAILED


# ------------------------------------------------------------------ status


def test_status_is_connected_with_the_shop_name_and_domain(fake, timeline) -> None:
    status = run(fake, timeline, lambda c: c.status())
    assert status.status == STATUS_CONNECTED
    assert status.shop_name == SHOP["name"] and status.domain == fake.domain
    assert SHOP["name"] in status.message


def test_a_wrong_token_makes_status_error_without_retrying_or_leaking_the_token(fake, timeline) -> None:
    status = run(fake, timeline, lambda c: c.status(), storefront_token="sf_wrong")
    assert status.status == STATUS_ERROR
    assert "401" in status.message and "SHOPIFY_STOREFRONT_TOKEN" in status.message
    assert "sf_wrong" not in status.message
    assert len(fake.requests) == 1 and fake.requests[0].status == 401


def test_a_wrong_private_token_is_refused_403(fake, timeline) -> None:
    status = run(fake, timeline, lambda c: c.status(), private_token="shpss_wrong")
    assert status.status == STATUS_ERROR and "403" in status.message


def test_a_wrong_token_on_products_is_products_failed(fake, timeline) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products(), storefront_token="sf_wrong")
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details["status"] == 401


def test_status_never_raises_when_shopify_is_down(fake, timeline) -> None:
    fake.fail_with(500, times=None)
    status = run(fake, timeline, lambda c: c.status())
    assert status.status == STATUS_ERROR and "500" in status.message


def test_status_is_never_cached(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.status()
        await catalogue.status()
    run(fake, timeline, body)
    assert len(catalogue_requests(fake, containing="shop {")) == 2


# ------------------------------------------------------------------ throttling, retries, failures


def test_throttled_then_success_waits_and_succeeds(fake, timeline) -> None:
    fake.throttle(times=2)
    page = run(fake, timeline, lambda c: c.products(limit=10))
    assert len(page.products) == 10
    assert timeline.sleeps == [0.5, 1.0]
    assert [r.status for r in fake.requests] == [200, 200, 200]


def test_throttled_for_ever_is_products_failed_after_bounded_attempts(fake, timeline) -> None:
    fake.throttle(times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products(), max_attempts=3)
    assert caught.value.message == PRODUCTS_FAILED and caught.value.details["code"] == "THROTTLED"
    assert len(fake.requests) == 3 and timeline.sleeps == [0.5, 1.0]


def test_a_430_is_not_retried_and_the_log_says_why(fake, timeline, caplog) -> None:
    caplog.set_level(logging.WARNING, "storefront.services.shopify.graphql")
    fake.fail_with(430, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED and caught.value.details["status"] == 430
    assert len(fake.requests) == 1 and timeline.sleeps == []
    assert any(SECURITY_ADVICE in r.getMessage() for r in caplog.records)


def test_a_429_waits_the_retry_after_it_was_told_then_succeeds(fake, timeline) -> None:
    fake.fail_with(429, retry_after="2.5")
    page = run(fake, timeline, lambda c: c.products(limit=10))
    assert len(page.products) == 10
    assert timeline.sleeps == [2.5]


def test_a_503_without_retry_after_waits_one_second(fake, timeline) -> None:
    fake.fail_with(503)
    run(fake, timeline, lambda c: c.products(limit=10))
    assert timeline.sleeps == [1.0]


def test_a_5xx_is_retried_with_backoff(fake, timeline) -> None:
    fake.fail_with(500, times=2)
    page = run(fake, timeline, lambda c: c.products(limit=10))
    assert len(page.products) == 10
    assert timeline.sleeps == [0.5, 1.0]


def test_a_persistent_5xx_is_store_unavailable_with_products_failed(fake, timeline) -> None:
    fake.fail_with(502, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details["status"] == 502
    assert len(fake.requests) == 4  # max_attempts
    assert timeline.sleeps == [0.5, 1.0, 2.0]


def test_graphql_errors_with_http_200_are_store_unavailable(fake, timeline) -> None:
    fake.fail_with(200, body={"errors": [{"message": "Internal error. Looks like something went wrong on our end.",
                                          "extensions": {"code": "INTERNAL_SERVER_ERROR"}}]})
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.details["codes"] == ["INTERNAL_SERVER_ERROR"]
    assert len(fake.requests) == 1


def test_a_timeout_is_store_unavailable_at_once(fake, timeline) -> None:
    fake.answer_slowly(SLOW, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products(), timeout=SHORT_TIMEOUT)
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details == {"error": "timeout"}
    assert len(fake.requests) == 1


def test_a_malformed_body_is_store_unavailable(fake, timeline) -> None:
    fake.answer_malformed()
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED and caught.value.details["error"] == "malformed JSON"


def test_an_answer_without_the_connection_is_store_unavailable(fake, timeline) -> None:
    fake.fail_with(200, body={"data": {"items": []}})
    with pytest.raises(StoreUnavailable):
        run(fake, timeline, lambda c: c.products())


def test_an_unreachable_store_is_store_unavailable(timeline) -> None:
    with FakeShopifyServer() as gone:
        root = gone.base_url

    async def main() -> None:
        async with ShopifyCatalogue(shop_root=root, storefront_token="x", clock=timeline.clock, sleep=timeline.sleep,
                                    timeout=TIMEOUT, max_attempts=2) as catalogue:
            await catalogue.products()

    with pytest.raises(StoreUnavailable):
        asyncio.run(main())
    assert timeline.sleeps == [0.5]


# ------------------------------------------------------------------ cache


def test_a_repeated_call_is_answered_from_the_cache(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        first = await catalogue.products(limit=10)
        assert await catalogue.products(limit=10) == first
        await catalogue.product(first.products[0].id)
        await catalogue.product(first.products[0].id)
        await catalogue.collections()
        await catalogue.collections()
    run(fake, timeline, body)
    assert len(fake.requests) == 3


def test_cache_only_answers_from_the_cache_and_never_asks_the_store(fake, timeline) -> None:
    """The first HTML reads the store only from the cache (storefront/web/first_view.py): no page waits on it."""
    async def body(catalogue: ShopifyCatalogue) -> None:
        with cache_only(), pytest.raises(NotCached):
            await catalogue.products(limit=10)
        assert fake.requests == []
        first = await catalogue.products(limit=10)
        with cache_only():
            assert await catalogue.products(limit=10) == first
            with pytest.raises(NotCached):
                await catalogue.product(first.products[0].id)
        timeline.now += 61
        with cache_only(), pytest.raises(NotCached):  # an expired answer is not an answer
            await catalogue.products(limit=10)
    run(fake, timeline, body, cache_ttl=60)
    assert len(fake.requests) == 1


def test_the_cache_expires_after_its_ttl(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(limit=10)
        timeline.now += 61
        await catalogue.products(limit=10)
    run(fake, timeline, body, cache_ttl=60)
    assert len(fake.requests) == 2


def test_a_failure_is_not_cached(fake, timeline) -> None:
    fake.fail_with(500, times=4)

    async def body(catalogue: ShopifyCatalogue) -> None:
        with pytest.raises(StoreUnavailable):
            await catalogue.products(limit=10)
        page = await catalogue.products(limit=10)
        assert len(page.products) == 10
    run(fake, timeline, body)


# ------------------------------------------------------------------ the cart handoff


def _line(fake: FakeShopifyServer, index: int, quantity: int, label: str = "") -> CheckoutLine:
    variant = fake.active_products()[index]["variants"][0]
    return CheckoutLine(f"gid://shopify/ProductVariant/{variant['id']}", str(variant["id"]), quantity,
                        label or f"Line {index}")


def test_checkout_creates_a_cart_holding_the_lines_and_answers_its_checkout_url(fake, timeline) -> None:
    lines = [_line(fake, 0, 2), _line(fake, 3, 1)]
    handoff = run(fake, timeline, lambda c: c.checkout(lines))
    assert handoff.problems == ()
    assert handoff.checkout_url.startswith(f"{fake.base_url}/cart/c/")
    (token,) = fake.carts
    assert fake.cart_lines(token) == [(int(lines[0].variant_id), 2), (int(lines[1].variant_id), 1)]
    (request,) = catalogue_requests(fake, containing="cartCreate")
    assert request.variables["lines"] == [{"merchandiseId": lines[0].variant_gid, "quantity": 2},
                                          {"merchandiseId": lines[1].variant_gid, "quantity": 1}]
    page = httpx.get(handoff.checkout_url)
    assert page.status_code == 200 and "x 2" in page.text


def test_a_sold_out_line_is_reported_in_plain_words_and_gives_no_checkout(fake, timeline) -> None:
    sold_out = _line(fake, 0, 1, "Nupe Founders Tee - S")
    fake.set_stock(int(sold_out.variant_id), 0)
    handoff = run(fake, timeline, lambda c: c.checkout([sold_out, _line(fake, 2, 1)]))
    assert handoff.checkout_url == ""
    assert handoff.problems == ("Nupe Founders Tee - S is sold out. Please remove it from your cart.",)


def test_a_quantity_over_stock_says_how_many_are_left(fake, timeline) -> None:
    line = _line(fake, 0, 5, "Nupe Founders Tee - S")
    fake.set_stock(int(line.variant_id), 2)
    handoff = run(fake, timeline, lambda c: c.checkout([line]))
    assert handoff.problems == ("Nupe Founders Tee - S: only 2 left in stock. Please lower the quantity.",)


def test_a_variant_the_store_no_longer_sells_is_a_user_error_in_plain_words(fake, timeline) -> None:
    gone = CheckoutLine("gid://shopify/ProductVariant/12345", "12345", 1, "Old Cap - Default Title")
    handoff = run(fake, timeline, lambda c: c.checkout([_line(fake, 0, 1), gone]))
    assert handoff.checkout_url == "" and not fake.carts
    assert handoff.problems == (
        "Old Cap - Default Title is no longer sold by the store. Please remove it from your cart.",
    )


def test_a_failing_checkout_is_checkout_failed(fake, timeline) -> None:
    fake.fail_with(500, times=None, match="cartCreate")
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.checkout([_line(fake, 0, 1)]))
    assert caught.value.message == CHECKOUT_FAILED


def test_checkout_is_never_cached(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        first = await catalogue.checkout([_line(fake, 0, 1)])
        second = await catalogue.checkout([_line(fake, 0, 1)])
        assert first.checkout_url != second.checkout_url
    run(fake, timeline, body)
    assert len(fake.carts) == 2


# ------------------------------------------------------------------ the Admin-token fallback


def test_only_an_admin_token_reads_the_admin_graphql_api_and_logs_its_advice(fake, timeline, caplog) -> None:
    caplog.set_level(logging.WARNING, "storefront.services.shopify.client")
    seen = run(fake, timeline, lambda c: walk(c, limit=24), admin_token=fake.admin_token)
    assert seen == [p["id"] for p in fake.active_products()]  # active only, drafts and archived left out
    assert all(r.api == "admin" and r.path == f"/admin/api/{DEFAULT_API_VERSION}/graphql.json" for r in fake.requests)
    assert all(r.headers["x-shopify-access-token"] == fake.admin_token for r in fake.requests)
    assert all("status:active" in r.variables["query"] for r in fake.requests)
    assert [r.getMessage() for r in caplog.records if r.getMessage() == ADMIN_ADVICE]
    assert "SHOPIFY_STOREFRONT_TOKEN" in ADMIN_ADVICE


def test_the_admin_fallback_reads_products_collections_search_and_many_variants(fake, timeline) -> None:
    raw = fake.active_products()[0]
    fake.set_variant_count(raw["id"], 300)
    draft = next(p for p in fake.products.values() if p["title"] == DRAFT_TITLE)

    async def body(catalogue: ShopifyCatalogue) -> None:
        product = await catalogue.product(raw["id"])
        assert len(product.variants) == 300 and product.variants[0].price_cents == 3000
        assert product.image is not None and product.image.renditions
        with pytest.raises(NotFoundError):
            await catalogue.product(draft["id"])
        cid, _, _, titles = CUSTOM_COLLECTIONS[0]
        page = await catalogue.products(collection_id=cid)
        assert [p.title for p in page.products] == [t for t in titles if t != DRAFT_TITLE]
        found = await catalogue.products(query="cap")
        assert found.products and all("cap" in p.title.casefold() for p in found.products)
        by_id = await catalogue.products_by_id([raw["id"], draft["id"]])
        assert list(by_id) == [raw["id"]] and len(by_id[raw["id"]].variants) == 300
        status = await catalogue.status()
        assert status.status == STATUS_CONNECTED and status.shop_name == SHOP["name"]

    run(fake, timeline, body, admin_token=fake.admin_token)
    assert all(r.cost <= 1000 and r.status == 200 for r in fake.requests)
    assert all("errors" not in json.dumps(r.extra) for r in fake.requests)


def test_the_admin_fallback_waits_for_its_cost_bucket_instead_of_failing(fake, timeline) -> None:
    fake.cost_available = 10.0  # nearly drained: the first query is THROTTLED with the bucket's state
    page = run(fake, timeline, lambda c: c.products(limit=24), admin_token=fake.admin_token)
    assert len(page.products) == 24
    throttled, served = fake.requests
    assert throttled.cost > 10 and served.status == 200
    # it waited what the bucket needed to refill to the query's cost at 100 points a second
    assert timeline.sleeps == [pytest.approx((throttled.cost - 10) / 100.0, abs=0.02)]


def test_an_admin_throttle_without_a_cost_to_wait_for_backs_off(fake, timeline) -> None:
    fake.throttle(times=1, api="admin")  # THROTTLED whose extensions ask for no points
    page = run(fake, timeline, lambda c: c.products(limit=5), admin_token=fake.admin_token)
    assert len(page.products) == 5 and timeline.sleeps == [0.5]


def test_the_admin_fallback_hands_over_a_cart_permalink(fake, timeline) -> None:
    lines = [_line(fake, 0, 2), _line(fake, 1, 1)]
    handoff = run(fake, timeline, lambda c: c.checkout(lines), admin_token=fake.admin_token)
    assert handoff.checkout_url == f"https://{fake.domain}/cart/{lines[0].variant_id}:2,{lines[1].variant_id}:1"


# ------------------------------------------------------------------ ids


def test_numeric_ids_come_from_gids_of_the_right_kind_only() -> None:
    assert ids.numeric_id("gid://shopify/ProductVariant/44210000000001", ids.VARIANT) == 44210000000001
    assert ids.numeric_id("gid://shopify/Cart/1?key=x", "Cart") == 1
    for bad, kind in (("gid://shopify/Product/1", ids.VARIANT), ("Z2lkOi8vc2hvcGlmeS9Qcm9kdWN0LzE=", ids.PRODUCT),
                      ("gid://shopify/Product/99999999999999999999", ids.PRODUCT), ("12", ids.PRODUCT)):
        with pytest.raises(ValueError):
            ids.numeric_id(bad, kind)
    assert ids.shopify_gid(ids.PRODUCT, "12") == "gid://shopify/Product/12"
    with pytest.raises(ValueError):
        ids.shopify_gid(ids.PRODUCT, 0)


# ------------------------------------------------------------------ the fake itself


def test_the_fake_parses_queries_and_answers_graphql_errors_like_shopify(fake) -> None:
    headers = {"X-Shopify-Storefront-Access-Token": fake.token}
    unknown = httpx.post(fake.storefront_url, json={"query": "{ products(first: 1) { nodes { price } } }"},
                         headers=headers)
    assert unknown.status_code == 200 and "price" in unknown.json()["errors"][0]["message"]
    no_first = httpx.post(fake.storefront_url, json={"query": "{ products { nodes { id } } }"}, headers=headers)
    assert no_first.json()["errors"][0]["message"] == "you must provide one of first or last"
    too_many = httpx.post(fake.storefront_url, json={"query": "{ products(first: 251) { nodes { id } } }"},
                          headers=headers)
    assert too_many.json()["errors"]
    numeric = httpx.post(fake.storefront_url, json={"query": '{ product(id: "12") { id } }'}, headers=headers)
    assert "Invalid global id" in numeric.json()["errors"][0]["message"]
    assert httpx.post(fake.storefront_url, json={}, headers=headers).status_code == 400
    answer = httpx.post(fake.storefront_url, json={"query": "{ products(first: 2) { edges { cursor node { id } } "
                                                            "pageInfo { hasNextPage hasPreviousPage endCursor } } }"},
                        headers=headers)
    assert "Link" not in answer.headers and "X-Shopify-Shop-Api-Call-Limit" not in answer.headers
    assert answer.headers["X-Request-ID"] and answer.headers["X-Shopify-API-Version"] == fake.version
    products = answer.json()["data"]["products"]
    assert products["pageInfo"]["hasNextPage"] and not products["pageInfo"]["hasPreviousPage"]
    assert products["edges"][-1]["cursor"] == products["pageInfo"]["endCursor"]


def test_the_fake_withholds_tags_from_a_tokenless_call(fake) -> None:
    answer = httpx.post(fake.storefront_url, json={"query": "{ products(first: 1) { nodes { id tags } } }"}).json()
    assert answer["errors"][0]["extensions"]["code"] == "ACCESS_DENIED"
