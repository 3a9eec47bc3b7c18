"""The Shopify Admin REST catalogue client against the fake Shopify server, over real HTTP on loopback.

The client's clock and sleep are a fake timeline shared with the fake's leaky bucket: nothing
really waits, and the waits the client asked for are read from `timeline.sleeps`.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable, Iterator
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    COLLECTIONS_FAILED,
    PRODUCT_FAILED,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    STATUS_CONNECTED,
    STATUS_ERROR,
    StoreCatalogue,
    StoreUnavailable,
)
from storefront.services.shopify.client import (
    USER_AGENT,
    ShopifyCatalogue,
    api_base,
    parse_call_limit,
)
from tests.fakes.shopify_server import (
    ARCHIVED_TITLE,
    CUSTOM_COLLECTIONS,
    DRAFT_TITLE,
    SHOP,
    SMART_COLLECTION,
    FakeShopifyServer,
)

TIMEOUT = 0.3
SLOW = 0.8
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
    """Run `body` with a fresh catalogue client (made inside the event loop, closed afterwards)."""
    options: dict[str, Any] = {"base_url": fake.base_url, "token": fake.token, "timeout": TIMEOUT,
                               "clock": timeline.clock, "sleep": timeline.sleep, **kwargs}

    async def main() -> T:
        async with ShopifyCatalogue(**options) as catalogue:
            return await body(catalogue)

    return asyncio.run(main())


def product_requests(fake: FakeShopifyServer) -> list:
    return [r for r in fake.requests_to("/products.json") if "/collections/" not in r.path]


# ------------------------------------------------------------------ transport


def test_requests_carry_the_token_header_accept_and_user_agent(fake, timeline) -> None:
    run(fake, timeline, lambda c: c.products(limit=5))
    (request,) = fake.requests
    assert request.path == "/admin/api/2023-07/products.json"
    assert request.headers["x-shopify-access-token"] == fake.token
    assert request.headers["accept"] == "application/json"
    assert request.headers["user-agent"] == USER_AGENT
    assert request.query == {"status": "active", "limit": "5"}


def test_the_client_satisfies_the_store_catalogue_protocol(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        typed: StoreCatalogue = catalogue
        assert typed is catalogue
    run(fake, timeline, body)


def test_the_base_url_comes_from_the_domain_and_version_or_the_override() -> None:
    assert api_base("shop.myshopify.com", "2023-07") == "https://shop.myshopify.com/admin/api/2023-07/"
    assert api_base("https://shop.myshopify.com/", "2024-01") == "https://shop.myshopify.com/admin/api/2024-01/"
    assert api_base("shop.myshopify.com", "2023-07", "http://127.0.0.1:8766/admin/api/2023-07") == \
        "http://127.0.0.1:8766/admin/api/2023-07/"
    settings = SimpleNamespace(shopify_store_domain="shop.myshopify.com", shopify_access_token="shpat_secret",
                               shopify_api_version="2023-07", shopify_api_base="")
    catalogue = ShopifyCatalogue.from_settings(settings)
    assert catalogue.base_url == "https://shop.myshopify.com/admin/api/2023-07/"
    assert "shpat_secret" not in repr(catalogue)
    asyncio.run(catalogue.aclose())
    faked = ShopifyCatalogue(SimpleNamespace(**{**vars(settings), "shopify_api_base": "http://127.0.0.1:1/admin/api/x"}))
    assert faked.base_url == "http://127.0.0.1:1/admin/api/x/"
    asyncio.run(faked.aclose())


def test_the_store_wiring_builds_the_client_from_settings(fake, monkeypatch) -> None:
    from storefront import wiring
    from storefront.config import Settings

    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", fake.domain)
    monkeypatch.setenv("SHOPIFY_ACCESS_TOKEN", fake.token)
    monkeypatch.setenv("SHOPIFY_API_BASE", fake.base_url)

    async def main() -> Any:
        catalogue = wiring.store_catalogue(Settings())
        assert isinstance(catalogue, ShopifyCatalogue)
        try:
            return await catalogue.status()
        finally:
            await catalogue.aclose()

    assert asyncio.run(main()).status == STATUS_CONNECTED


def test_settings_read_shopify_api_base(monkeypatch) -> None:
    from storefront.config import Settings

    monkeypatch.setenv("SHOPIFY_API_BASE", "http://127.0.0.1:8766/admin/api/2023-07/")
    assert Settings().shopify_api_base == "http://127.0.0.1:8766/admin/api/2023-07/"
    monkeypatch.delenv("SHOPIFY_API_BASE")
    assert Settings().shopify_api_base == ""


# ------------------------------------------------------------------ listing and pagination


def test_three_pages_of_ten_cover_every_active_product_once_and_send_no_filters_with_page_info(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> list:
        pages = []
        cursor = ""
        while True:
            page = await catalogue.products(limit=10, cursor=cursor)
            pages.append(page)
            if not page.next_cursor:
                return pages
            cursor = page.next_cursor
            assert len(pages) < 10, "pagination does not end"

    pages = run(fake, timeline, body)
    assert [len(p.products) for p in pages] == [10, 10, 10]
    ids = [p.id for page in pages for p in page.products]
    assert ids == [p["id"] for p in fake.active_products()]  # no repeats, no gaps, active only
    assert DRAFT_TITLE not in {p.title for page in pages for p in page.products}
    first, *follow_ups = product_requests(fake)
    assert first.query == {"status": "active", "limit": "10"}
    assert len(follow_ups) == 2
    for request in follow_ups:
        assert set(request.query) == {"page_info", "limit"}
        assert request.status == 200


def test_the_fake_refuses_filters_next_to_page_info_like_shopify(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(limit=10))
    import httpx

    response = httpx.get(f"{fake.base_url}products.json",
                         params={"page_info": page.next_cursor, "limit": 10, "status": "active"},
                         headers={"X-Shopify-Access-Token": fake.token})
    assert response.status_code == 400
    assert "status cannot be passed when page_info is present" in response.json()["status"]
    assert response.headers["X-Shopify-API-Version"] == "2023-07"
    assert parse_call_limit(response.headers["X-Shopify-Shop-Api-Call-Limit"]) is not None


def test_products_carry_prices_variants_images_and_tags(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(limit=1))
    (product,) = page.products
    assert product.title == "Nupe Founders Tee"
    assert product.price_cents == 2800
    assert [v.title for v in product.variants] == ["S", "M", "L", "XL"]
    assert product.option_names == ("Size",)
    assert product.tags == ("nupe", "tee")
    assert product.image is not None and product.image.src.startswith("https://cdn.shopify.com/")


def test_limit_is_clamped_to_1_and_250(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(limit=0)
        await catalogue.products(limit=1000)
    run(fake, timeline, body)
    assert [r.query["limit"] for r in product_requests(fake)] == ["1", "250"]
    assert all(r.status == 200 for r in fake.requests)


# ------------------------------------------------------------------ collections


def test_a_collection_page_is_its_active_products_in_collection_order_with_prices(fake, timeline) -> None:
    collection_id, _, _, titles = CUSTOM_COLLECTIONS[0]
    page = run(fake, timeline, lambda c: c.products(collection_id=collection_id, limit=50))
    assert [p.title for p in page.products] == [t for t in titles if t != DRAFT_TITLE]
    assert all(p.price_cents and p.variants for p in page.products)
    assert page.next_cursor == ""
    assert len(fake.requests_to(f"/collections/{collection_id}/products.json")) == 1
    (full,) = product_requests(fake)
    assert full.query["status"] == "active" and len(full.query["ids"].split(",")) == len(titles)


def test_a_collection_is_paged_with_page_info_on_its_own_path(fake, timeline) -> None:
    collection_id, _, _, titles = CUSTOM_COLLECTIONS[1]

    async def body(catalogue: ShopifyCatalogue) -> list[str]:
        first = await catalogue.products(collection_id=collection_id, limit=4)
        second = await catalogue.products(collection_id=collection_id, limit=4, cursor=first.next_cursor)
        assert second.next_cursor == ""
        return [p.title for p in first.products + second.products]

    assert run(fake, timeline, body) == list(titles)
    follow_up = fake.requests_to(f"/collections/{collection_id}/products.json")[1]
    assert set(follow_up.query) == {"page_info", "limit"}


def test_collections_merge_custom_and_smart_sorted_by_title(fake, timeline) -> None:
    collections = run(fake, timeline, lambda c: c.collections())
    assert [c.title for c in collections] == ["Caps", "Hoodies & Crewnecks", "Summer Drop"]
    assert {c.id for c in collections} == {CUSTOM_COLLECTIONS[0][0], CUSTOM_COLLECTIONS[1][0], SMART_COLLECTION[0]}


def test_a_smart_collection_lists_the_products_its_rule_selects(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(collection_id=SMART_COLLECTION[0], limit=50))
    assert page.products and all(p.title.endswith("Cap") for p in page.products)


def test_collections_failing_is_collections_failed(fake, timeline) -> None:
    fake.fail_with(503, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.collections())
    assert caught.value.message == COLLECTIONS_FAILED


# ------------------------------------------------------------------ search


def test_title_search_is_a_case_insensitive_substring_match(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(query="tEe", limit=50))
    titles = [p.title for p in page.products]
    expected = [p["title"] for p in fake.active_products() if "tee" in p["title"].casefold()]
    assert titles == expected
    assert "Kappa Chapter TEE" in titles and "Red Heritage T-Shirt" not in titles
    assert DRAFT_TITLE not in titles and ARCHIVED_TITLE not in titles
    assert all(p.price_cents for p in page.products)
    walk = product_requests(fake)[0]
    assert walk.query == {"status": "active", "limit": "250", "fields": "id,title"}
    assert "title" not in walk.query  # Shopify's title filter is a whole-title match: not used


def test_search_pages_with_its_own_cursor_without_repeats(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> list[str]:
        first = await catalogue.products(query="hoodie", limit=3)
        assert first.next_cursor.startswith("search:")
        second = await catalogue.products(query="hoodie", limit=3, cursor=first.next_cursor)
        assert second.next_cursor == ""
        return [p.title for p in first.products + second.products]

    titles = run(fake, timeline, body)
    assert titles == [p["title"] for p in fake.active_products() if "hoodie" in p["title"].casefold()]
    assert len(titles) == 5


def test_search_inside_a_collection(fake, timeline) -> None:
    collection_id = CUSTOM_COLLECTIONS[0][0]
    page = run(fake, timeline, lambda c: c.products(query="TEE", collection_id=collection_id))
    assert [p.title for p in page.products] == ["Zeta Blue Tee", "Nupe Founders Tee"]


def test_a_search_with_a_foreign_cursor_is_a_validation_error(fake, timeline) -> None:
    with pytest.raises(ValidationError):
        run(fake, timeline, lambda c: c.products(query="tee", cursor="not-ours"))


def test_a_search_cursor_without_its_query_is_a_validation_error(fake, timeline) -> None:
    with pytest.raises(ValidationError):
        run(fake, timeline, lambda c: c.products(cursor="search:10"))
    assert fake.requests == []


def test_a_429_holds_the_other_requests_of_the_client_too(fake, timeline) -> None:
    fake.fail_with(429, retry_after="2.0", path="/shop.json")

    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.status()
        await catalogue.products(limit=5)

    run(fake, timeline, body)
    assert timeline.sleeps == [2.0]
    assert [r.status for r in fake.requests] == [429, 200, 200]
    assert fake.requests[1].at == fake.requests[2].at == 1002.0


def test_search_walks_at_most_search_pages(fake, timeline) -> None:
    page = run(fake, timeline, lambda c: c.products(query="tee", limit=50), search_pages=1)
    assert page.products
    assert len([r for r in product_requests(fake) if r.query.get("fields") == "id,title"]) == 1


# ------------------------------------------------------------------ single product


def test_a_product_is_read_by_id(fake, timeline) -> None:
    wanted = fake.active_products()[6]
    product = run(fake, timeline, lambda c: c.product(wanted["id"]))
    assert product.id == wanted["id"] and product.title == "Kappa Diamond Tee" and product.price_cents == 2900


def test_an_unknown_product_is_not_found(fake, timeline) -> None:
    with pytest.raises(NotFoundError) as caught:
        run(fake, timeline, lambda c: c.product(123))
    assert caught.value.message == PRODUCT_NOT_FOUND
    assert fake.requests[0].status == 404


def test_a_draft_product_is_not_found(fake, timeline) -> None:
    draft = next(p for p in fake.products.values() if p["status"] == "draft")
    with pytest.raises(NotFoundError):
        run(fake, timeline, lambda c: c.product(draft["id"]))


async def _outcomes(catalogue: ShopifyCatalogue, ids: list[int]) -> list[str]:
    """Ask for each id in turn: 'found' or 'missing'."""
    outcomes = []
    for product_id in ids:
        try:
            await catalogue.product(product_id)
            outcomes.append("found")
        except NotFoundError:
            outcomes.append("missing")
    return outcomes


def test_an_unknown_product_is_asked_for_once_a_minute(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> list[str]:
        first = await _outcomes(catalogue, [123, 123, 123])
        timeline.now += 61  # past missing_ttl: the store may sell it by now
        return first + await _outcomes(catalogue, [123])

    assert run(fake, timeline, body) == ["missing"] * 4
    assert len(fake.requests_to("/products/123.json")) == 2


def test_the_unknown_ids_remembered_are_bounded(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> list[str]:
        return await _outcomes(catalogue, [1, 2, 3, 1, 3])

    assert run(fake, timeline, body, missing_size=2) == ["missing"] * 5
    # 1 was the oldest of three and left the two remembered; 3 was still there.
    assert [len(fake.requests_to(f"/products/{n}.json")) for n in (1, 2, 3)] == [2, 1, 1]


def test_a_cart_of_store_products_is_read_in_one_request(fake, timeline) -> None:
    ids = [p["id"] for p in fake.active_products()]

    async def body(catalogue: ShopifyCatalogue) -> tuple[dict, list[str]]:
        found = await catalogue.products_by_id([*ids, 987654321])
        return found, await _outcomes(catalogue, [987654321])

    found, later = run(fake, timeline, body)
    assert sorted(found) == sorted(ids) and later == ["missing"]
    (request,) = fake.requests
    assert request.path.endswith("/products.json") and request.query["ids"].split(",") == [*map(str, ids), "987654321"]


def test_a_failing_product_read_is_product_failed(fake, timeline) -> None:
    fake.fail_with(500, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.product(fake.active_products()[0]["id"]))
    assert caught.value.message == PRODUCT_FAILED


# ------------------------------------------------------------------ status


def test_status_is_connected_with_the_shop_name_and_domain(fake, timeline) -> None:
    status = run(fake, timeline, lambda c: c.status())
    assert status.status == STATUS_CONNECTED
    assert status.shop_name == SHOP["name"] and status.domain == SHOP["domain"]
    assert SHOP["name"] in status.message


def test_a_wrong_token_makes_status_error_without_retrying_or_leaking_the_token(fake, timeline) -> None:
    status = run(fake, timeline, lambda c: c.status(), token="shpat_wrong")
    assert status.status == STATUS_ERROR
    assert "401" in status.message and "SHOPIFY_ACCESS_TOKEN" in status.message
    assert "shpat_wrong" not in status.message
    assert len(fake.requests) == 1 and fake.requests[0].status == 401


def test_a_wrong_token_on_products_is_products_failed(fake, timeline) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products(), token="shpat_wrong")
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details["status"] == 401
    assert "Invalid API key" in caught.value.details["errors"]


def test_status_never_raises_when_shopify_is_down(fake, timeline) -> None:
    fake.fail_with(503, times=None)
    status = run(fake, timeline, lambda c: c.status())
    assert status.status == STATUS_ERROR and "503" in status.message


def test_status_is_never_cached(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.status()
        await catalogue.status()
    run(fake, timeline, body)
    assert len(fake.requests_to("/shop.json")) == 2


# ------------------------------------------------------------------ limits, retries, failures


def test_a_429_waits_the_retry_after_it_was_told_then_succeeds(fake, timeline) -> None:
    fake.fail_with(429, retry_after="2.5")
    page = run(fake, timeline, lambda c: c.products(limit=10))
    assert len(page.products) == 10
    assert timeline.sleeps == [2.5]
    assert [r.status for r in fake.requests] == [429, 200]


def test_a_429_without_retry_after_waits_one_second(fake, timeline) -> None:
    fake.fail_with(429)
    run(fake, timeline, lambda c: c.products(limit=10))
    assert timeline.sleeps == [1.0]


def test_a_429_that_never_ends_is_store_unavailable_after_bounded_attempts(fake, timeline) -> None:
    fake.fail_with(429, retry_after="2.0", times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products(), max_attempts=3)
    assert caught.value.message == PRODUCTS_FAILED
    assert len(fake.requests) == 3 and timeline.sleeps == [2.0, 2.0]


def test_a_5xx_is_retried_with_backoff(fake, timeline) -> None:
    fake.fail_with(503, times=2)
    page = run(fake, timeline, lambda c: c.products(limit=10))
    assert len(page.products) == 10
    assert timeline.sleeps == [0.5, 1.0]


def test_a_persistent_5xx_is_store_unavailable_with_products_failed(fake, timeline) -> None:
    fake.fail_with(500, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details["status"] == 500
    assert len(fake.requests) == 4  # max_attempts
    assert timeline.sleeps == [0.5, 1.0, 2.0]


def test_a_timeout_is_store_unavailable_at_once(fake, timeline) -> None:
    fake.answer_slowly(SLOW, times=None)
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED
    assert caught.value.details == {"error": "timeout"}
    assert len(fake.requests) == 1


def test_a_malformed_body_is_store_unavailable(fake, timeline) -> None:
    fake.answer_malformed()
    with pytest.raises(StoreUnavailable) as caught:
        run(fake, timeline, lambda c: c.products())
    assert caught.value.message == PRODUCTS_FAILED


def test_a_body_without_its_resource_key_is_store_unavailable(fake, timeline) -> None:
    fake.fail_with(200, body={"items": []})
    with pytest.raises(StoreUnavailable):
        run(fake, timeline, lambda c: c.products())


def test_an_unreachable_store_is_store_unavailable(timeline) -> None:
    with FakeShopifyServer() as gone:
        base = gone.base_url
    options = {"base_url": base, "token": "shpat_x", "clock": timeline.clock, "sleep": timeline.sleep,
               "timeout": TIMEOUT, "max_attempts": 2}

    async def main() -> None:
        async with ShopifyCatalogue(**options) as catalogue:
            await catalogue.products()

    with pytest.raises(StoreUnavailable):
        asyncio.run(main())
    assert timeline.sleeps == [0.5]


def test_the_client_slows_down_when_the_bucket_is_nearly_full_and_never_meets_a_429(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        for product in fake.active_products():  # 30 uncached reads in a burst
            await catalogue.product(product["id"])
        for product in fake.active_products():
            await catalogue.product(product["id"])

    run(fake, timeline, body, cache_ttl=0)
    assert len(fake.requests) == 60
    assert all(r.status == 200 for r in fake.requests)
    assert timeline.sleeps, "the client should have waited for the bucket to leak"
    # never waited before the bucket passed 40 - headroom 8 = 32 calls
    assert all(r.at == 1000.0 for r in fake.requests[:32])


# ------------------------------------------------------------------ cache


def test_a_repeated_call_is_answered_from_the_cache(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        first = await catalogue.products(limit=10)
        again = await catalogue.products(limit=10)
        assert again == first
        await catalogue.product(first.products[0].id)
        await catalogue.product(first.products[0].id)
        await catalogue.collections()
        await catalogue.collections()
    run(fake, timeline, body)
    assert len(product_requests(fake)) == 1
    assert len(fake.requests_to(f"/products/{fake.active_products()[0]['id']}.json")) == 1
    assert len(fake.requests_to("/custom_collections.json")) == 1
    assert len(fake.requests_to("/smart_collections.json")) == 1


def test_a_repeated_search_walks_the_titles_once(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(query="tee")
        await catalogue.products(query="TEE ")
    run(fake, timeline, body)
    assert len(product_requests(fake)) == 2  # one walk of titles, one read of the matches


def test_the_cache_expires_after_its_ttl(fake, timeline) -> None:
    async def body(catalogue: ShopifyCatalogue) -> None:
        await catalogue.products(limit=10)
        timeline.now += 61
        await catalogue.products(limit=10)
    run(fake, timeline, body, cache_ttl=60)
    assert len(product_requests(fake)) == 2


def test_a_failure_is_not_cached(fake, timeline) -> None:
    fake.fail_with(500, times=4)

    async def body(catalogue: ShopifyCatalogue) -> None:
        with pytest.raises(StoreUnavailable):
            await catalogue.products(limit=10)
        page = await catalogue.products(limit=10)
        assert len(page.products) == 10
    run(fake, timeline, body)


# ------------------------------------------------------------------ the fake itself


def test_the_fake_page_info_is_opaque_and_links_previous(fake, timeline) -> None:
    import httpx

    headers = {"X-Shopify-Access-Token": fake.token}
    first = httpx.get(f"{fake.base_url}products.json", params={"limit": 10, "status": "active"}, headers=headers)
    assert 'rel="next"' in first.headers["Link"] and 'rel="previous"' not in first.headers["Link"]
    second = httpx.get(first.links["next"]["url"], headers=headers)
    assert 'rel="previous"' in second.headers["Link"]
    back = httpx.get(second.links["previous"]["url"], headers=headers)
    assert [p["id"] for p in back.json()["products"]] == [p["id"] for p in first.json()["products"]]
    token = first.links["next"]["url"].split("page_info=")[1]
    json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))  # opaque to clients, not random
    assert all(isinstance(p["id"], int) and isinstance(p["variants"][0]["price"], str)
               and isinstance(p["tags"], str) for p in first.json()["products"])
    assert httpx.get(f"{fake.base_url}products.json", params={"limit": 251}, headers=headers).status_code == 400
    assert len(httpx.get(f"{fake.base_url}products.json", headers=headers).json()["products"]) == 32
    assert "Link" not in httpx.get(f"{fake.base_url}products.json", headers=headers).headers
