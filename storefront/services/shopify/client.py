"""The store catalogue read from the Shopify Admin REST API (facts: ../shared/contracts/shopify.md).

`ShopifyCatalogue` implements `StoreCatalogue` over one `httpx.AsyncClient`:

- **Address and headers.** `{SHOPIFY_API_BASE}` or `https://{SHOPIFY_STORE_DOMAIN}/admin/api/{SHOPIFY_API_VERSION}/`;
  every request carries `X-Shopify-Access-Token`, `Accept: application/json` and a `User-Agent`. The
  token is never logged nor put in an error (messages and `details` carry Shopify's status and body only).
- **Listing.** Active products only (`status=active`). The cursor handed out is Shopify's opaque
  `page_info` from the `Link` header's rel="next"; a follow-up call sends only `page_info` and
  `limit` (Shopify answers 400 to any filter next to `page_info`), on the same path as the first
  call (`products.json`, or `collections/{id}/products.json` when the caller passes the same
  `collection_id` again). Collection pages come trimmed (no variants, no status), so their ids are
  read again from `products.json?ids=…&status=active` for prices; drafts and archived products of a
  collection are dropped, which may make such a page shorter than `limit`.
- **Title search.** Shopify's `title` filter matches a whole title, not a part of it, so the
  protocol's "title contains the query, case-insensitive" is done here: the active products (or
  the collection's products) are walked in pages of 250 with `fields=id,title` (at most
  `search_pages` pages, 2 000 products by default; beyond that the search is partial and says so
  in the log), the titles are matched with `casefold()`, and the page of matches is read in full
  with `products.json?ids=…`. The cursor of a search is then our own (`search:<offset>`), not a
  `page_info`; a repeated search inside the cache lifetime costs no request for the walk.
- **Cache.** Every successful GET answer is kept for `cache_ttl` seconds (default 30; 0 turns it
  off), keyed by the request URL, at most `cache_size` entries, so a busy storefront does not drain
  the bucket. `status()` always asks Shopify (it is the configuration check; callers read it through
  `health.StoreHealth`, which asks once a minute). An id `product()` found missing (404, or not
  active) is remembered for `missing_ttl` seconds (default 60), at most `missing_size` ids.
- **Limits.** After each answer `X-Shopify-Shop-Api-Call-Limit` ("used/size") is read; when the
  bucket is nearly full (more than `bucket_headroom` used) the next request waits for it to leak
  (`leak_per_second`, 2 on standard plans) back under that mark. A 429 waits `Retry-After` (float
  seconds, 1 when absent, at most `MAX_RETRY_AFTER`) and is retried; 5xx and connection failures
  are retried with exponential backoff; both at most `max_attempts` times in all, then
  `StoreUnavailable`. A timeout is not retried (a shopper is waiting): `StoreUnavailable` at once.
  A malformed body (not JSON, or without its resource key) is `StoreUnavailable` too.
- **Errors.** Methods raise `StoreUnavailable` with the page's message (`PRODUCTS_FAILED`,
  `COLLECTIONS_FAILED`, `PRODUCT_FAILED`); `product()` raises `NotFoundError(PRODUCT_NOT_FOUND)` for
  an unknown id and for a product that is not active. `status()` never raises.

The clock and the sleep are injected so tests run on a fake timeline (no real waiting).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Self
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from storefront.services.catalog.text_search import search_text
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify.catalogue import (
    COLLECTIONS_FAILED,
    MAX_PAGE_SIZE,
    PRODUCT_FAILED,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    STATUS_CONNECTED,
    STATUS_ERROR,
    StoreCollection,
    StorePage,
    StoreProduct,
    StoreStatus,
    StoreUnavailable,
    parse_product,
)

log = logging.getLogger(__name__)

DEFAULT_API_VERSION = "2023-07"
USER_AGENT = "storefront-shopify-catalogue/1.0 (Python; httpx)"
#: A Retry-After larger than this is treated as this (a shopper is waiting on the page).
MAX_RETRY_AFTER = 10.0
DEFAULT_RETRY_AFTER = 1.0
SEARCH_CURSOR_PREFIX = "search:"
#: Pages of collections read at most (250 each).
COLLECTION_PAGES = 4

Sleep = Callable[[float], Awaitable[None]]


class _NotFound(Exception):
    """Shopify answered 404 (turned into NotFoundError by the caller that knows what was missing)."""


def api_base(domain: str, version: str = DEFAULT_API_VERSION, override: str = "") -> str:
    """The Admin API root ending in "/": `override` when set, else https://{domain}/admin/api/{version}/."""
    if override.strip():
        base = override.strip()
    else:
        host = domain.strip().removeprefix("https://").removeprefix("http://").strip("/")
        base = f"https://{host}/admin/api/{version.strip() or DEFAULT_API_VERSION}/"
    return base if base.endswith("/") else base + "/"


def parse_call_limit(value: str | None) -> tuple[int, int] | None:
    """(used, size) from an X-Shopify-Shop-Api-Call-Limit header such as "32/40"; None when unreadable."""
    if not value:
        return None
    used, _, size = value.partition("/")
    try:
        used_n, size_n = int(used.strip()), int(size.strip())
    except ValueError:
        return None
    return (used_n, size_n) if size_n > 0 and used_n >= 0 else None


def retry_after_seconds(response: httpx.Response) -> float:
    """Seconds from Retry-After ("2.0"), DEFAULT_RETRY_AFTER when absent or unreadable, capped."""
    try:
        seconds = float(response.headers.get("Retry-After", "").strip())
    except ValueError:
        seconds = DEFAULT_RETRY_AFTER
    if not math.isfinite(seconds) or seconds < 0:
        seconds = DEFAULT_RETRY_AFTER
    return min(seconds, MAX_RETRY_AFTER)


def next_page_info(response: httpx.Response) -> str:
    """The page_info of the Link header's rel="next" ("" when there is no next page)."""
    link = response.links.get("next")
    if not link or not link.get("url"):
        return ""
    values = parse_qs(urlsplit(link["url"]).query).get("page_info")
    return values[0] if values else ""


def _error_body(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    return body.get("errors", body) if isinstance(body, dict) else body


def _clamp_limit(limit: int) -> int:
    return max(1, min(MAX_PAGE_SIZE, int(limit)))


class ShopifyCatalogue:
    """The StoreCatalogue of a Shopify shop, over the Admin REST API (see the module docstring)."""

    def __init__(
        self,
        settings: Any = None,
        *,
        base_url: str = "",
        token: str = "",
        timeout: float = 10.0,
        cache_ttl: float = 30.0,
        cache_size: int = 512,
        max_attempts: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        bucket_headroom: int = 8,
        leak_per_second: float = 2.0,
        search_pages: int = 8,
        missing_ttl: float = 60.0,
        missing_size: int = 1024,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        if settings is not None:  # ShopifyCatalogue(settings): the store's settings (wiring.store_catalogue)
            base_url = base_url or api_base(settings.shopify_store_domain, settings.shopify_api_version,
                                            getattr(settings, "shopify_api_base", ""))
            token = token or settings.shopify_access_token
        if not base_url:
            raise ValueError("ShopifyCatalogue needs settings or a base_url")
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.cache_ttl = max(0.0, cache_ttl)
        self.cache_size = max(1, cache_size)
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.bucket_headroom = max(0, bucket_headroom)
        self.leak_per_second = leak_per_second
        self.search_pages = max(1, search_pages)
        self._clock = clock
        self._sleep = sleep
        self._cache: OrderedDict[str, tuple[float, Any, str]] = OrderedDict()
        self.missing_ttl = max(0.0, missing_ttl)
        self.missing_size = max(1, missing_size)
        #: Product ids the store said it does not sell, until when (oldest first).
        self._missing: OrderedDict[int, float] = OrderedDict()
        self._ready_at = 0.0  # no request starts before this moment (bucket nearly full)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"X-Shopify-Access-Token": token, "Accept": "application/json", "User-Agent": user_agent},
        )

    @classmethod
    def from_settings(cls, settings: Any, **kwargs: Any) -> ShopifyCatalogue:
        """A catalogue for SHOPIFY_STORE_DOMAIN / SHOPIFY_ACCESS_TOKEN (SHOPIFY_API_BASE when set)."""
        return cls(settings, **kwargs)

    def __repr__(self) -> str:  # never show the token
        return f"ShopifyCatalogue(base_url={self.base_url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def clear_cache(self) -> None:
        self._cache.clear()
        self._missing.clear()

    def _known_missing(self, product_id: int) -> bool:
        until = self._missing.get(product_id)
        if until is None:
            return False
        if until > self._clock():
            return True
        del self._missing[product_id]
        return False

    def _note_missing(self, product_id: int) -> None:
        """Remember an id the store does not sell for `missing_ttl` (anyone may ask for any id, and
        each unknown one would otherwise cost a request); the oldest go past `missing_size`."""
        if self.missing_ttl <= 0:
            return
        self._missing[product_id] = self._clock() + self.missing_ttl
        self._missing.move_to_end(product_id)
        while len(self._missing) > self.missing_size:
            self._missing.popitem(last=False)

    # ------------------------------------------------------------------ request core

    def backoff(self, attempt: int) -> float:
        """Delay before retry number `attempt` (1-based) after a 5xx or a lost connection."""
        return min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))

    async def _wait_for_bucket(self) -> None:
        wait = self._ready_at - self._clock()
        if wait > 0:
            await self._sleep(wait)

    def _note_call_limit(self, response: httpx.Response) -> None:
        limit = parse_call_limit(response.headers.get("X-Shopify-Shop-Api-Call-Limit"))
        if limit is None or self.leak_per_second <= 0:
            return
        used, size = limit
        mark = max(0, size - self.bucket_headroom)
        if used > mark:
            self._ready_at = max(self._ready_at, self._clock() + (used - mark) / self.leak_per_second)

    def _cache_key(self, path: str, params: dict[str, Any]) -> str:
        return f"{self.base_url}{path}?{urlencode(sorted(params.items()))}"

    async def _get(self, path: str, params: dict[str, Any], key: str, failure: str, *,
                   use_cache: bool = True) -> tuple[Any, str]:
        """GET `path` and return (the value under the resource `key`, the next page_info)."""
        cache_key = self._cache_key(path, params)
        if use_cache and self.cache_ttl > 0:
            hit = self._cache.get(cache_key)
            if hit is not None and hit[0] > self._clock():
                self._cache.move_to_end(cache_key)
                return hit[1], hit[2]
        response = await self._send(path, params, failure)
        try:
            body = response.json()
        except ValueError:
            log.warning("Shopify answered malformed JSON for %s (HTTP %s)", path, response.status_code)
            raise StoreUnavailable(failure, details={"status": response.status_code, "error": "malformed JSON"}) from None
        if not isinstance(body, dict) or key not in body:
            log.warning("Shopify answered %s without its %r key", path, key)
            raise StoreUnavailable(failure, details={"status": response.status_code, "error": f"no {key!r} in the body"})
        value, cursor = body[key], next_page_info(response)
        if use_cache and self.cache_ttl > 0:
            self._cache[cache_key] = (self._clock() + self.cache_ttl, value, cursor)
            self._cache.move_to_end(cache_key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return value, cursor

    async def _send(self, path: str, params: dict[str, Any], failure: str) -> httpx.Response:
        """One GET, paced to the bucket and retried when that is worth it; a 2xx response or an error."""
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self.max_attempts
            await self._wait_for_bucket()
            try:
                response = await self._http.get(path, params=params)
            except httpx.TimeoutException as exc:
                log.warning("Shopify timed out on %s: %r", path, exc)
                raise StoreUnavailable(failure, details={"error": "timeout"}) from exc
            except httpx.TransportError as exc:
                if last:
                    log.warning("Shopify unreachable on %s: %r", path, exc)
                    raise StoreUnavailable(failure, details={"error": repr(exc)}) from exc
                await self._sleep(self.backoff(attempt))
                continue
            self._note_call_limit(response)
            status = response.status_code
            if status == 429:
                if last:
                    log.warning("Shopify kept throttling %s after %d attempts", path, attempt)
                    raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
                # Hold every request of this client (not only this one) until Shopify said to retry.
                self._ready_at = max(self._ready_at, self._clock() + retry_after_seconds(response))
                continue
            if status >= 500:
                if last:
                    log.warning("Shopify answered HTTP %s on %s after %d attempts", status, path, attempt)
                    raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
                await self._sleep(self.backoff(attempt))
                continue
            if status == 404:
                raise _NotFound(path)
            if status >= 400:
                log.warning("Shopify refused %s: HTTP %s %s", path, status, _error_body(response))
                raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
            return response

    # ------------------------------------------------------------------ StoreCatalogue

    async def status(self) -> StoreStatus:
        """GET /shop.json, uncached: 'connected' with the shop's name and domain, else 'error'. Never raises."""
        failure = "Could not reach the Shopify store. Please check SHOPIFY_STORE_DOMAIN and try again later."
        try:
            shop, _ = await self._get("shop.json", {}, "shop", failure, use_cache=False)
        except _NotFound:
            return StoreStatus(STATUS_ERROR, "Shopify answered 404 for the shop: check SHOPIFY_STORE_DOMAIN "
                                             "and SHOPIFY_API_VERSION.")
        except StoreUnavailable as error:
            http_status = error.details.get("status") if isinstance(error.details, dict) else None
            if http_status in (401, 403):
                return StoreStatus(STATUS_ERROR, f"Shopify refused the access token (HTTP {http_status}): check "
                                                 "SHOPIFY_ACCESS_TOKEN and that the app has the read_products scope.")
            if http_status == 402:
                return StoreStatus(STATUS_ERROR, "The Shopify store is frozen (HTTP 402): its bill is unpaid.")
            if http_status == 423:
                return StoreStatus(STATUS_ERROR, "The Shopify store is locked (HTTP 423).")
            reason = f" (HTTP {http_status})" if http_status else ""
            return StoreStatus(STATUS_ERROR, f"Could not reach the Shopify store{reason}. Please try again later.")
        except Exception:  # status() is a health check: it reports, it does not raise
            log.exception("Shopify status check failed")
            return StoreStatus(STATUS_ERROR, "Could not reach the Shopify store. Please try again later.")
        if not isinstance(shop, dict):
            return StoreStatus(STATUS_ERROR, "Shopify answered an unreadable shop.")
        name = str(shop.get("name") or "")
        domain = str(shop.get("domain") or shop.get("myshopify_domain") or "")
        return StoreStatus(STATUS_CONNECTED, f"Connected to {name or domain or 'the Shopify store'}.",
                           shop_name=name, domain=domain)

    async def products(
        self, *, query: str = "", collection_id: int | None = None, cursor: str = "", limit: int = 24
    ) -> StorePage:
        """Active products, newest id last; of one collection when given; titles containing `query`."""
        limit = _clamp_limit(limit)
        needle = search_text(query).casefold()
        try:
            if needle:
                return await self._search(needle, collection_id, cursor, limit)
            if cursor.startswith(SEARCH_CURSOR_PREFIX):
                raise ValidationError("This page belongs to a search; please search again.")
            if collection_id is not None:
                return await self._collection_page(collection_id, cursor, limit)
            params: dict[str, Any] = {"page_info": cursor, "limit": limit} if cursor else {"status": "active",
                                                                                             "limit": limit}
            raw, next_cursor = await self._get("products.json", params, "products", PRODUCTS_FAILED)
            return StorePage(self._parse_all(raw, PRODUCTS_FAILED), next_cursor)
        except _NotFound:
            if collection_id is not None:
                return StorePage((), "")  # the collection is gone: nothing in it
            raise StoreUnavailable(PRODUCTS_FAILED, details={"status": 404}) from None

    async def product(self, product_id: int) -> StoreProduct:
        """An active product; NotFoundError for one the store does not sell (remembered for
        `missing_ttl`, so asking again costs no request)."""
        product_id = int(product_id)
        if self._known_missing(product_id):
            raise NotFoundError(PRODUCT_NOT_FOUND)
        try:
            raw, _ = await self._get(f"products/{product_id}.json", {}, "product", PRODUCT_FAILED)
        except _NotFound:
            self._note_missing(product_id)
            raise NotFoundError(PRODUCT_NOT_FOUND) from None
        if not isinstance(raw, dict):
            raise StoreUnavailable(PRODUCT_FAILED, details={"error": "unreadable product"})
        if raw.get("status", "active") != "active":
            self._note_missing(product_id)
            raise NotFoundError(PRODUCT_NOT_FOUND)
        try:
            return parse_product(raw)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreUnavailable(PRODUCT_FAILED, details={"error": f"unreadable product: {exc!r}"}) from exc

    async def products_by_id(self, product_ids: Sequence[int]) -> dict[int, StoreProduct]:
        """The active products among `product_ids`, 250 to a request (`products.json?ids=`); ids
        remembered missing cost nothing, and those the answer leaves out are remembered so."""
        wanted = [i for i in dict.fromkeys(int(i) for i in product_ids) if not self._known_missing(i)]
        found: dict[int, StoreProduct] = {}
        for start in range(0, len(wanted), MAX_PAGE_SIZE):
            chunk = wanted[start:start + MAX_PAGE_SIZE]
            try:
                products = await self._full_products(chunk)
            except _NotFound:
                raise StoreUnavailable(PRODUCTS_FAILED, details={"status": 404}) from None
            found.update((product.id, product) for product in products)
            for product_id in chunk:
                if product_id not in found:
                    self._note_missing(product_id)
        return found

    async def collections(self) -> list[StoreCollection]:
        """Published custom and smart collections, merged and sorted by title."""
        found: dict[int, StoreCollection] = {}
        try:
            for path, key in (("custom_collections.json", "custom_collections"),
                              ("smart_collections.json", "smart_collections")):
                params: dict[str, Any] = {"limit": MAX_PAGE_SIZE, "published_status": "published"}
                for _ in range(COLLECTION_PAGES):
                    raw, page_info = await self._get(path, params, key, COLLECTIONS_FAILED)
                    if not isinstance(raw, list):
                        raise StoreUnavailable(COLLECTIONS_FAILED, details={"error": f"{key} is not a list"})
                    for item in raw:
                        try:
                            found[int(item["id"])] = StoreCollection(int(item["id"]), str(item["title"]))
                        except (KeyError, TypeError, ValueError):
                            log.warning("Skipped an unreadable Shopify collection")
                    if not page_info:
                        break
                    params = {"limit": MAX_PAGE_SIZE, "page_info": page_info}
        except _NotFound:
            raise StoreUnavailable(COLLECTIONS_FAILED, details={"status": 404}) from None
        return sorted(found.values(), key=lambda c: (c.title.casefold(), c.id))

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _parse_all(raw: Any, failure: str) -> tuple[StoreProduct, ...]:
        """Products of a list answer; an unreadable item is skipped (logged), a non-list is an error."""
        if not isinstance(raw, list):
            raise StoreUnavailable(failure, details={"error": "products is not a list"})
        products = []
        for item in raw:
            try:
                products.append(parse_product(item))
            except (KeyError, TypeError, ValueError, AttributeError):
                log.warning("Skipped an unreadable Shopify product")
        return tuple(products)

    async def _full_products(self, ids: list[int]) -> tuple[StoreProduct, ...]:
        """The active products of `ids` (at most 250) with variants, in the order of `ids`."""
        if not ids:
            return ()
        params = {"ids": ",".join(str(i) for i in ids), "status": "active", "limit": MAX_PAGE_SIZE}
        raw, _ = await self._get("products.json", params, "products", PRODUCTS_FAILED)
        by_id = {p.id: p for p in self._parse_all(raw, PRODUCTS_FAILED)}
        return tuple(by_id[i] for i in ids if i in by_id)

    @staticmethod
    def _ids(raw: Any) -> list[int]:
        if not isinstance(raw, list):
            raise StoreUnavailable(PRODUCTS_FAILED, details={"error": "products is not a list"})
        ids = []
        for item in raw:
            try:
                ids.append(int(item["id"]))
            except (KeyError, TypeError, ValueError):
                log.warning("Skipped an unreadable Shopify product")
        return ids

    async def _collection_page(self, collection_id: int, cursor: str, limit: int) -> StorePage:
        path = f"collections/{int(collection_id)}/products.json"
        params: dict[str, Any] = {"page_info": cursor, "limit": limit} if cursor else {"limit": limit}
        raw, next_cursor = await self._get(path, params, "products", PRODUCTS_FAILED)
        return StorePage(await self._full_products(self._ids(raw)), next_cursor)

    async def _search(self, needle: str, collection_id: int | None, cursor: str, limit: int) -> StorePage:
        """Title search done here (see the module docstring): walk the titles, match, read the page."""
        offset = 0
        if cursor:
            raw_offset = cursor.removeprefix(SEARCH_CURSOR_PREFIX)
            if not cursor.startswith(SEARCH_CURSOR_PREFIX) or not raw_offset.isdigit():
                raise ValidationError("This search page is no longer available; please search again.")
            offset = int(raw_offset)
        matches = [pid for pid, title in await self._titles(collection_id) if needle in title.casefold()]
        page_ids = matches[offset:offset + limit]
        end = offset + len(page_ids)
        products = await self._full_products(page_ids)
        return StorePage(products, f"{SEARCH_CURSOR_PREFIX}{end}" if end < len(matches) else "")

    async def _titles(self, collection_id: int | None) -> list[tuple[int, str]]:
        """(id, title) of the active products (or the collection's products), at most search_pages pages."""
        if collection_id is None:
            path = "products.json"
            params: dict[str, Any] = {"status": "active", "limit": MAX_PAGE_SIZE, "fields": "id,title"}
        else:
            path = f"collections/{int(collection_id)}/products.json"
            params = {"limit": MAX_PAGE_SIZE, "fields": "id,title"}
        titles: list[tuple[int, str]] = []
        for _ in range(self.search_pages):
            raw, page_info = await self._get(path, params, "products", PRODUCTS_FAILED)
            if not isinstance(raw, list):
                raise StoreUnavailable(PRODUCTS_FAILED, details={"error": "products is not a list"})
            for item in raw:
                try:
                    titles.append((int(item["id"]), str(item["title"])))
                except (KeyError, TypeError, ValueError):
                    log.warning("Skipped an unreadable Shopify product")
            if not page_info:
                return titles
            params = {"page_info": page_info, "limit": MAX_PAGE_SIZE, "fields": "id,title"}
        log.warning("Shopify title search read only the first %d products (search_pages=%d): results are partial",
                    len(titles), self.search_pages)
        return titles
