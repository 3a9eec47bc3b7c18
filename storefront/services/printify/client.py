"""The real Printify REST API v1 client (facts: ../shared/contracts/printify.md).

Design: one async core, one thin synchronous facade, no logic written twice.

- `PrintifyClient` (over `httpx.AsyncClient`) owns everything: the endpoint methods, the pacing
  that keeps us inside Printify's limits (600 requests a minute overall, 100 a minute for the
  catalogue, 200 publishes per 30 minutes: callers wait, they are never refused), the retries
  (429 and 5xx/timeouts with exponential backoff and jitter) and the mapping of failures to the
  typed errors of `errors.py`, each carrying Printify's error body in `details`.
- `SyncPrintifyClient` satisfies the synchronous `PrintProvider` protocol by running the very same
  coroutines on a private event loop in one background thread. Each of its methods is a one-line
  `_blocking(PrintifyClient.method)`, so there is exactly one request/parse/retry layer. A private
  loop (rather than `asyncio.run` per call) keeps one connection pool and one pacer for every call,
  and works whether or not the calling thread already runs an event loop.

Retries never repeat a call that may already have taken effect: a POST that creates something or
moves it on (create order/product, upload, publish, send to production, cancel) is resent only when
Printify certainly did not process it (a 429, or a connection that never opened). After a timeout or
a 5xx such a call raises `ProviderOutcomeUnknown`. `create_order(..., idempotent=True)` is the guarded
form: with an `external_id` it looks for the order among the shop's recent orders
(`metadata.shop_order_id`) before each resend, because Printify does not promise to refuse a
duplicate external id.

The clock, the sleep and the random source are injected so tests pace and back off on a fake timeline.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

import httpx

from storefront.services.platform.metrics import external_call
from storefront.services.printify.errors import (
    ProviderError,
    ProviderNotFound,
    ProviderOutcomeUnknown,
    ProviderRateLimited,
    ProviderUnauthorized,
    ProviderUnavailable,
)
from storefront.services.printify.pacing import RequestPacer
from storefront.services.printify.provider import MAX_PAGE_LIMIT, PUBLISH_EVERYTHING

DEFAULT_API_BASE = "https://api.printify.com/v1/"
USER_AGENT = "storefront-printify-client/1.0 (Python; httpx)"
JSON_CONTENT_TYPE = "application/json;charset=utf-8"
#: How many pages of recent orders (of MAX_PAGE_LIMIT) a guarded create_order searches.
ORDER_LOOKUP_PAGES = 4
#: A Retry-After larger than this is treated as this (a bad header must not park a worker for hours).
MAX_RETRY_AFTER = 300.0
_IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE"})

Sleep = Callable[[float], Awaitable[None]]
P = ParamSpec("P")
T = TypeVar("T")


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a Retry-After header (delta seconds or HTTP date), or None when absent or unreadable."""
    raw = response.headers.get("Retry-After", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            moment = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = (moment - datetime.now(UTC)).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _error_body(response: httpx.Response) -> Any:
    """The provider's error body: parsed JSON, else the raw text under "body"."""
    try:
        return response.json()
    except ValueError:
        return {"body": response.text[:2000]}


def _error_message(body: Any, fallback: str) -> str:
    if isinstance(body, dict):
        for key in ("message", "error"):
            if isinstance(body.get(key), str) and body[key]:
                return body[key]
    return fallback


def _error_code(body: Any) -> int | None:
    code = body.get("code") if isinstance(body, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def http_error(response: httpx.Response, *, outcome_unknown: bool = False) -> ProviderError:
    """The typed error for a failed response, carrying the provider's body in `details`."""
    status = response.status_code
    body = _error_body(response)
    message = _error_message(body, f"Printify answered HTTP {status}")
    code = _error_code(body)
    if status in (401, 403):
        return ProviderUnauthorized(message, status=status, code=code, details=body)
    if status == 404:
        return ProviderNotFound(message, status=status, code=code, details=body)
    if status == 429:
        return ProviderRateLimited(message, retry_after=_retry_after(response), status=status, code=code, details=body)
    if status >= 500:
        error_type = ProviderOutcomeUnknown if outcome_unknown else ProviderUnavailable
        return error_type(message, status=status, code=code, details=body)
    return ProviderError(message, status=status, code=code, details=body)


def _decode(response: httpx.Response) -> Any:
    """The JSON of a successful response ({} when empty); malformed JSON is ProviderUnavailable."""
    if not response.content.strip():
        return {}
    try:
        return response.json()
    except ValueError:
        raise ProviderUnavailable(
            "Printify answered malformed JSON",
            status=response.status_code,
            details={"body": response.text[:2000]},
        ) from None


class PrintifyClient:
    """Async Printify API client with pacing, retries and typed errors (see the module docstring)."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str = DEFAULT_API_BASE,
        timeout: float = 30.0,
        max_attempts: int = 5,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        pacer: RequestPacer | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.pacer = pacer or RequestPacer()
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._http = httpx.AsyncClient(
            base_url=base_url if base_url.endswith("/") else base_url + "/",
            timeout=timeout,
            transport=transport,
            headers={
                "Authorization": f"Bearer {token}",
                "User-Agent": user_agent,
                "Accept": "application/json",
            },
        )

    @classmethod
    def from_settings(cls, settings: Any, **kwargs: Any) -> PrintifyClient:
        """A client for PRINTIFY_API_TOKEN at PRINTIFY_API_BASE."""
        return cls(settings.printify_api_token, base_url=settings.printify_api_base or DEFAULT_API_BASE, **kwargs)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ request core

    def backoff(self, attempt: int) -> float:
        """Delay before retry number `attempt` (1-based): exponential, capped, half of it jittered."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    async def _pace(self, kind: str) -> None:
        wait = self.pacer.reserve(kind, self._clock())
        if wait > 0:
            await self._sleep(wait)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        kind: str = "default",
        idempotent: bool | None = None,
    ) -> Any:
        """Send one API call (paced, retried when safe) and return its decoded JSON."""
        if idempotent is None:
            idempotent = method.upper() in _IDEMPOTENT_METHODS
        headers = {"Content-Type": JSON_CONTENT_TYPE} if body is not None else None
        content = json.dumps(body).encode() if body is not None else None
        query = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self.max_attempts
            await self._pace(kind)
            try:
                with external_call("printify") as call:
                    response = await self._http.request(method, path, params=query, content=content, headers=headers)
                    call["failed"] = response.status_code >= 400
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                # The request never reached Printify: resending cannot duplicate anything.
                if last:
                    raise ProviderUnavailable(f"Printify unreachable: {exc}", details={"error": str(exc)}) from exc
                await self._sleep(self.backoff(attempt))
                continue
            except httpx.TransportError as exc:
                if not idempotent:
                    raise ProviderOutcomeUnknown(
                        f"No answer from Printify; the {method} may have taken effect: {exc!r}",
                        details={"error": repr(exc)},
                    ) from exc
                if last:
                    raise ProviderUnavailable(
                        f"No answer from Printify: {exc!r}", details={"error": repr(exc)}
                    ) from exc
                await self._sleep(self.backoff(attempt))
                continue

            status = response.status_code
            if status == 429:
                if last:
                    raise http_error(response)
                wait = _retry_after(response)
                self.pacer.pause_until(self._clock() + (wait if wait is not None else self.backoff(attempt)))
                continue
            if status >= 500:
                if not idempotent or last:
                    raise http_error(response, outcome_unknown=not idempotent)
                await self._sleep(self.backoff(attempt))
                continue
            if status >= 400:
                raise http_error(response)
            return _decode(response)

    # ------------------------------------------------------------------ shops

    async def list_shops(self) -> list[dict]:
        """All shops of the account: [{id, title, sales_channel}]."""
        return await self.request("GET", "shops.json")

    # ------------------------------------------------------------------ products

    async def list_products(self, shop_id: int, page: int = 1, limit: int = MAX_PAGE_LIMIT) -> dict:
        """One page of the shop's products in Printify's pagination envelope."""
        return await self.request("GET", f"shops/{shop_id}/products.json", params={"page": page, "limit": limit})

    async def all_products(self, shop_id: int, limit: int = MAX_PAGE_LIMIT) -> list[dict]:
        """Every product of the shop, page after page (at most MAX_PAGE_LIMIT a page)."""
        return await self._all_pages(f"shops/{shop_id}/products.json", min(limit, MAX_PAGE_LIMIT))

    async def _all_pages(self, path: str, limit: int, params: dict[str, Any] | None = None) -> list[dict]:
        items: list[dict] = []
        page = 1
        while True:
            envelope = await self.request("GET", path, params={**(params or {}), "page": page, "limit": limit})
            items.extend(envelope.get("data") or [])
            if not envelope.get("next_page_url") or page >= int(envelope.get("last_page") or page):
                return items
            page += 1

    async def get_product(self, shop_id: int, product_id: str) -> dict:
        return await self.request("GET", f"shops/{shop_id}/products/{product_id}.json")

    async def create_product(self, shop_id: int, body: dict) -> dict:
        """Create a product (contract §6); never resent after an unknown outcome (it would be a second product)."""
        return await self.request("POST", f"shops/{shop_id}/products.json", body=body, idempotent=False)

    async def update_product(self, shop_id: int, product_id: str, changes: dict) -> dict:
        return await self.request("PUT", f"shops/{shop_id}/products/{product_id}.json", body=changes)

    async def delete_product(self, shop_id: int, product_id: str) -> dict:
        return await self.request("DELETE", f"shops/{shop_id}/products/{product_id}.json")

    async def publish_product(self, shop_id: int, product_id: str, body: dict | None = None) -> dict:
        """Start a publish (paced to 200 per 30 minutes); the product stays locked until succeeded/failed."""
        return await self.request(
            "POST",
            f"shops/{shop_id}/products/{product_id}/publish.json",
            body=dict(PUBLISH_EVERYTHING) if body is None else body,
            kind="publish",
            idempotent=False,
        )

    async def publishing_succeeded(self, shop_id: int, product_id: str, external: dict) -> dict:
        return await self.request(
            "POST",
            f"shops/{shop_id}/products/{product_id}/publishing_succeeded.json",
            body={"external": external},
            idempotent=True,
        )

    async def publishing_failed(self, shop_id: int, product_id: str, reason: str) -> dict:
        return await self.request(
            "POST",
            f"shops/{shop_id}/products/{product_id}/publishing_failed.json",
            body={"reason": reason},
            idempotent=True,
        )

    async def unpublish_product(self, shop_id: int, product_id: str) -> dict:
        return await self.request(
            "POST", f"shops/{shop_id}/products/{product_id}/unpublish.json", body={}, idempotent=True
        )

    # ------------------------------------------------------------------ orders

    async def list_orders(
        self,
        shop_id: int,
        page: int = 1,
        limit: int = MAX_PAGE_LIMIT,
        *,
        status: str | None = None,
        sku: str | None = None,
    ) -> dict:
        """One page of the shop's orders (newest first) in Printify's pagination envelope."""
        params = {"page": page, "limit": limit, "status": status, "sku": sku}
        return await self.request("GET", f"shops/{shop_id}/orders.json", params=params)

    async def find_order_by_external_id(
        self, shop_id: int, external_id: str, pages: int = ORDER_LOOKUP_PAGES
    ) -> dict | None:
        """The recent order whose `metadata.shop_order_id` is `external_id`, or None."""
        for page in range(1, pages + 1):
            envelope = await self.list_orders(shop_id, page)
            for order in envelope.get("data") or []:
                if (order.get("metadata") or {}).get("shop_order_id") == external_id:
                    return order
            if not envelope.get("next_page_url"):
                return None
        return None

    async def create_order(self, shop_id: int, order: dict, *, idempotent: bool = False) -> dict:
        """Submit an order (contract §7); returns {"id": ...}.

        By default a timeout or 5xx raises ProviderOutcomeUnknown instead of risking a second order.
        `idempotent=True` means the caller guards it: with an `external_id` the client looks the
        order up before each resend; without one it resends on the caller's word."""
        path = f"shops/{shop_id}/orders.json"
        external_id = order.get("external_id") if isinstance(order, dict) else None
        if not idempotent:
            return await self.request("POST", path, body=order, idempotent=False)
        if not external_id:
            return await self.request("POST", path, body=order, idempotent=True)

        async def existing() -> dict | None:
            found = await self.find_order_by_external_id(shop_id, external_id)
            return None if found is None else {"id": found["id"]}

        return await self._post_once(path, order, existing)

    async def _post_once(self, path: str, body: dict, existing: Callable[[], Awaitable[dict | None]]) -> dict:
        """POST something that must be made once: after an unknown outcome (a 5xx or a lost answer)
        `existing()` looks for what the lost request made, and the POST is resent only when it is
        not there; when the lookup itself fails the unknown outcome is raised (never resent blind)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self.request("POST", path, body=body, idempotent=False)
            except ProviderOutcomeUnknown as unknown:
                if attempt >= self.max_attempts:
                    raise
                try:
                    found = await existing()
                except ProviderError:
                    raise unknown from None
                if found is not None:
                    return found
                await self._sleep(self.backoff(attempt))

    async def get_order(self, shop_id: int, order_id: str) -> dict:
        return await self.request("GET", f"shops/{shop_id}/orders/{order_id}.json")

    async def send_to_production(self, shop_id: int, order_id: str) -> dict:
        """Approve an on-hold order for printing; a 400 with code 8502 while it is still pending."""
        return await self.request(
            "POST", f"shops/{shop_id}/orders/{order_id}/send_to_production.json", body={}, idempotent=False
        )

    async def cancel_order(self, shop_id: int, order_id: str) -> dict:
        """Cancel an order (only on-hold or payment-not-received ones)."""
        return await self.request("POST", f"shops/{shop_id}/orders/{order_id}/cancel.json", body={}, idempotent=False)

    async def shipping_cost(self, shop_id: int, body: dict) -> dict:
        """Quote shipping for {line_items, address_to}: {standard, express, priority, ...} in cents."""
        return await self.request("POST", f"shops/{shop_id}/orders/shipping.json", body=body, idempotent=True)

    # ------------------------------------------------------------------ catalogue

    async def list_blueprints(self) -> list[dict]:
        return await self.request("GET", "catalog/blueprints.json", kind="catalog")

    async def get_blueprint(self, blueprint_id: int) -> dict:
        return await self.request("GET", f"catalog/blueprints/{blueprint_id}.json", kind="catalog")

    async def blueprint_print_providers(self, blueprint_id: int) -> list[dict]:
        return await self.request("GET", f"catalog/blueprints/{blueprint_id}/print_providers.json", kind="catalog")

    async def catalog_variants(self, blueprint_id: int, print_provider_id: int) -> dict:
        """{id, title, variants: [...]} of a blueprint at a print provider."""
        path = f"catalog/blueprints/{blueprint_id}/print_providers/{print_provider_id}/variants.json"
        return await self.request("GET", path, kind="catalog")

    async def catalog_shipping(self, blueprint_id: int, print_provider_id: int) -> dict:
        path = f"catalog/blueprints/{blueprint_id}/print_providers/{print_provider_id}/shipping.json"
        return await self.request("GET", path, kind="catalog")

    # ------------------------------------------------------------------ uploads

    async def upload_image(self, file_name: str, *, url: str | None = None, contents: str | None = None) -> dict:
        """Upload an image by public URL or base64 `contents`; returns the upload object. A lost
        answer or a 5xx is resent only when no upload of that `file_name` is among the recent ones
        (name uploads by their content and a design is uploaded once)."""
        if (url is None) == (contents is None):
            raise ValueError("give exactly one of url or contents")
        body = {"file_name": file_name, **({"url": url} if url is not None else {"contents": contents})}
        return await self._post_once("uploads/images.json", body, lambda: self.find_upload(file_name))

    async def find_upload(self, file_name: str, pages: int = ORDER_LOOKUP_PAGES) -> dict | None:
        """The most recent upload named `file_name` among the newest pages of uploads, or None."""
        for page in range(1, pages + 1):
            envelope = await self.request("GET", "uploads.json", params={"page": page, "limit": MAX_PAGE_LIMIT})
            found = next((u for u in envelope.get("data") or [] if u.get("file_name") == file_name), None)
            if found is not None or not envelope.get("next_page_url"):
                return found
        return None


def _blocking(
    method: Callable[Concatenate[PrintifyClient, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[SyncPrintifyClient, P], T]:
    """A synchronous method running `method` of the wrapped async client on the facade's loop."""

    @functools.wraps(method)
    def call(self: SyncPrintifyClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(method(self.client, *args, **kwargs))

    return call


class SyncPrintifyClient:
    """PrintProvider over PrintifyClient: each call runs on a private event loop thread and blocks."""

    def __init__(self, token: str = "", *, client: PrintifyClient | None = None, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="printify-client", daemon=True)
        self._thread.start()
        self.client = client or PrintifyClient(token, **kwargs)

    @classmethod
    def from_settings(cls, settings: Any, **kwargs: Any) -> SyncPrintifyClient:
        return cls(client=PrintifyClient.from_settings(settings, **kwargs))

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        """Close the connection pool and stop the loop thread."""
        if self._loop.is_closed():
            return
        self._run(self.client.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    request = _blocking(PrintifyClient.request)
    list_shops = _blocking(PrintifyClient.list_shops)
    list_products = _blocking(PrintifyClient.list_products)
    all_products = _blocking(PrintifyClient.all_products)
    get_product = _blocking(PrintifyClient.get_product)
    create_product = _blocking(PrintifyClient.create_product)
    update_product = _blocking(PrintifyClient.update_product)
    delete_product = _blocking(PrintifyClient.delete_product)
    publish_product = _blocking(PrintifyClient.publish_product)
    publishing_succeeded = _blocking(PrintifyClient.publishing_succeeded)
    publishing_failed = _blocking(PrintifyClient.publishing_failed)
    unpublish_product = _blocking(PrintifyClient.unpublish_product)
    list_orders = _blocking(PrintifyClient.list_orders)
    find_order_by_external_id = _blocking(PrintifyClient.find_order_by_external_id)
    create_order = _blocking(PrintifyClient.create_order)
    get_order = _blocking(PrintifyClient.get_order)
    send_to_production = _blocking(PrintifyClient.send_to_production)
    cancel_order = _blocking(PrintifyClient.cancel_order)
    shipping_cost = _blocking(PrintifyClient.shipping_cost)
    list_blueprints = _blocking(PrintifyClient.list_blueprints)
    get_blueprint = _blocking(PrintifyClient.get_blueprint)
    blueprint_print_providers = _blocking(PrintifyClient.blueprint_print_providers)
    catalog_variants = _blocking(PrintifyClient.catalog_variants)
    catalog_shipping = _blocking(PrintifyClient.catalog_shipping)
    upload_image = _blocking(PrintifyClient.upload_image)
    find_upload = _blocking(PrintifyClient.find_upload)
