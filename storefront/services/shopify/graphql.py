"""One Shopify GraphQL endpoint over HTTP (facts: ../shared/contracts/shopify-storefront.md).

`ShopifyGraphQL.execute` posts `{"query", "variables"}` and returns the answer's `data`, or raises
`StoreUnavailable` with the caller's message for people (the toast) and Shopify's status and
errors in `details`. Tokens are never logged nor put in an error.

- **Errors with HTTP 200.** Shopify answers most errors 200 with `errors[]`: `THROTTLED` is waited
  out and retried; `ACCESS_DENIED` next to data (a scope the token lacks, say for `tags`) is
  logged and the data kept; anything else is `StoreUnavailable`.
- **HTTP errors.** 429 and 503 wait `Retry-After` (float seconds, `DEFAULT_RETRY_AFTER` when
  absent, at most `MAX_RETRY_AFTER`) and are retried, as Shopify's own clients do; other 5xx and
  connection failures are retried with exponential backoff; 430 (Shopify's security rejection)
  is not retried and the log says why it happens; 400/401/402/403/404/423 are not retried.
  Attempts are bounded (`max_attempts` in all). A timeout is not retried (a shopper is waiting).
  A body that is not JSON is `StoreUnavailable`.
- **Admin cost.** On the Admin API every answer carries `extensions.cost`; a request starts only
  when the bucket, restored at its `restoreRate`, holds the cost of the previous one, and a
  `THROTTLED` answer waits until it holds the cost the answer asked for.
- **Buyer.** With a private Storefront token every request names the shopper it is made for in
  `Shopify-Storefront-Buyer-IP` (`set_buyer_ip`, called where a shopper's request comes in), so
  Shopify's bot protection counts each shopper, not this server, as one client.
- **Versions.** When `X-Shopify-API-Version` differs from the version asked for (a retired version
  falls forward), the log says so once per served version.
- **Cache.** Successful answers are kept `cache_ttl` seconds (keyed by query and variables), at
  most `cache_size` of them; callers turn it off per call (status checks, mutations).

The clock and the sleep are injected so tests run on a fake timeline (no real waiting).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx

from storefront.services.shopify.catalogue import StoreUnavailable

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
#: A Retry-After larger than this is treated as this (a shopper is waiting on the page).
MAX_RETRY_AFTER = 10.0
DEFAULT_RETRY_AFTER = 1.0
SECURITY_REJECTION = 430
SECURITY_ADVICE = (
    "Shopify answered 430 (security rejection): its bot protection refused this server's requests. "
    "Server-side calls should use a private Storefront token (SHOPIFY_STOREFRONT_PRIVATE_TOKEN), "
    "and a server shared with other sites may be refused whatever it sends."
)


#: The address of the shopper the current task asks the store for ("" when unknown).
_BUYER_IP: ContextVar[str] = ContextVar("shopify_buyer_ip", default="")
BUYER_IP_HEADER = "Shopify-Storefront-Buyer-IP"


#: Set while a caller may use only answers already in the cache (the first HTML: no page waits on the store).
_CACHE_ONLY: ContextVar[bool] = ContextVar("shopify_cache_only", default=False)


class NotCached(Exception):
    """A request that `cache_only()` forbade: its answer was not in the cache."""


@contextmanager
def cache_only() -> Iterator[None]:
    """Inside, the catalogue answers from its cache or raises NotCached: it sends no request."""
    token = _CACHE_ONLY.set(True)
    try:
        yield
    finally:
        _CACHE_ONLY.reset(token)


def set_buyer_ip(address: str) -> None:
    """Name the shopper the store catalogue's next requests in this task (and the tasks it starts)
    are made for; anything that is not an IP address names nobody."""
    try:
        _BUYER_IP.set(str(ipaddress.ip_address((address or "").strip())))
    except ValueError:
        _BUYER_IP.set("")


def retry_after_seconds(response: httpx.Response) -> float:
    """Seconds from Retry-After ("2.0"), DEFAULT_RETRY_AFTER when absent or unreadable, capped."""
    try:
        seconds = float(response.headers.get("Retry-After", "").strip())
    except ValueError:
        seconds = DEFAULT_RETRY_AFTER
    if not math.isfinite(seconds) or seconds < 0:
        seconds = DEFAULT_RETRY_AFTER
    return min(seconds, MAX_RETRY_AFTER)


def _error_body(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    return body.get("errors", body) if isinstance(body, dict) else body


def error_codes(errors: Any) -> list[str]:
    """The `extensions.code` of each GraphQL error ("" for one without)."""
    codes = []
    for error in errors if isinstance(errors, list) else [errors]:
        extensions = error.get("extensions") if isinstance(error, dict) else None
        codes.append(str(extensions.get("code") or "") if isinstance(extensions, dict) else "")
    return codes


def error_messages(errors: Any) -> list[str]:
    if not isinstance(errors, list):
        return [str(errors)[:500]]
    return [str(e.get("message") if isinstance(e, dict) else e)[:500] for e in errors]


class ShopifyGraphQL:
    """POSTs to one GraphQL endpoint with its headers (see the module docstring)."""

    def __init__(
        self,
        endpoint: str,
        headers: dict[str, str],
        *,
        version: str,
        admin: bool = False,
        send_buyer_ip: bool = False,
        timeout: float = 10.0,
        max_attempts: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        cache_ttl: float = 30.0,
        cache_size: int = 512,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.version = version
        self.admin = admin
        self.send_buyer_ip = send_buyer_ip
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.cache_ttl = max(0.0, cache_ttl)
        self.cache_size = max(1, cache_size)
        self._clock = clock
        self._sleep = sleep
        self._cache: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
        self._ready_at = 0.0  # no request starts before this moment (Retry-After, Admin bucket)
        self._served_versions_logged: set[str] = set()
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport, headers=headers)

    async def aclose(self) -> None:
        await self._http.aclose()

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1` (exponential, capped)."""
        return min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))

    def _hold_until(self, moment: float) -> None:
        self._ready_at = max(self._ready_at, moment)

    async def _wait_until_ready(self) -> None:
        wait = self._ready_at - self._clock()
        if wait > 0:
            await self._sleep(wait)

    def _note_version(self, response: httpx.Response) -> None:
        served = response.headers.get("X-Shopify-API-Version", "").strip()
        if served and served != self.version and served not in self._served_versions_logged:
            self._served_versions_logged.add(served)
            log.warning("Shopify served API version %s although %s was asked for (SHOPIFY_API_VERSION): "
                        "the asked version is retired or unknown; set a supported one", served, self.version)
        deprecated = response.headers.get("X-Shopify-API-Deprecated-Reason", "").strip()
        if deprecated:
            log.warning("Shopify says this request used something deprecated: %s", deprecated[:300])

    def _note_cost(self, body: dict[str, Any]) -> None:
        """Admin API: hold the next request until the bucket holds this one's cost again."""
        cost = (body.get("extensions") or {}).get("cost") if isinstance(body.get("extensions"), dict) else None
        if not isinstance(cost, dict):
            return
        status: Any = cost.get("throttleStatus") or {}  # JSON; a wrong type fails float() below
        try:
            available = float(status.get("currentlyAvailable"))
            rate = float(status.get("restoreRate"))
            wanted = float(cost.get("requestedQueryCost") or 0)
        except (TypeError, ValueError):
            return
        if rate > 0 and wanted > available:
            self._hold_until(self._clock() + (wanted - available) / rate)

    async def execute(self, query: str, variables: dict[str, Any] | None, failure: str, *,
                      use_cache: bool = True) -> dict[str, Any]:
        """The `data` of one GraphQL request (see the module docstring); StoreUnavailable(failure)."""
        variables = variables or {}
        key = json.dumps([query, variables], sort_keys=True)
        if use_cache and self.cache_ttl > 0:
            hit = self._cache.get(key)
            if hit is not None and hit[0] > self._clock():
                self._cache.move_to_end(key)
                return hit[1]
        if _CACHE_ONLY.get():
            raise NotCached(key)
        data = await self._send(query, variables, failure)
        if use_cache and self.cache_ttl > 0:
            self._cache[key] = (self._clock() + self.cache_ttl, data)
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return data

    async def _send(self, query: str, variables: dict[str, Any], failure: str) -> dict[str, Any]:
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self.max_attempts
            await self._wait_until_ready()
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            if self.send_buyer_ip and _BUYER_IP.get():
                headers[BUYER_IP_HEADER] = _BUYER_IP.get()
            try:
                response = await self._http.post(self.endpoint, json={"query": query, "variables": variables},
                                                 headers=headers)
            except httpx.TimeoutException as exc:
                log.warning("Shopify timed out: %r", exc)
                raise StoreUnavailable(failure, details={"error": "timeout"}) from exc
            except httpx.TransportError as exc:
                if last:
                    log.warning("Shopify unreachable after %d attempts: %r", attempt, exc)
                    raise StoreUnavailable(failure, details={"error": repr(exc)}) from exc
                await self._sleep(self.backoff(attempt))
                continue
            self._note_version(response)
            status = response.status_code
            request_id = response.headers.get("X-Request-ID", "")
            if status in (429, 503):
                if last:
                    log.warning("Shopify answered HTTP %s %d times (request %s)", status, attempt, request_id)
                    raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
                self._hold_until(self._clock() + retry_after_seconds(response))
                continue
            if status == SECURITY_REJECTION:
                log.warning("%s (request %s)", SECURITY_ADVICE, request_id)
                raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
            if status >= 500:
                if last:
                    log.warning("Shopify answered HTTP %s %d times (request %s)", status, attempt, request_id)
                    raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
                await self._sleep(self.backoff(attempt))
                continue
            if status >= 400:
                log.warning("Shopify refused the request: HTTP %s %s (request %s)", status, _error_body(response),
                            request_id)
                raise StoreUnavailable(failure, details={"status": status, "errors": _error_body(response)})
            try:
                body = response.json()
            except ValueError:
                log.warning("Shopify answered malformed JSON (HTTP %s, request %s)", status, request_id)
                raise StoreUnavailable(failure, details={"status": status, "error": "malformed JSON"}) from None
            if not isinstance(body, dict):
                raise StoreUnavailable(failure, details={"status": status, "error": "the answer is not an object"})
            if self.admin:
                self._note_cost(body)
            errors = body.get("errors")
            data = body.get("data")
            if errors:
                codes = error_codes(errors)
                if "THROTTLED" in codes:
                    if last:
                        log.warning("Shopify kept throttling after %d attempts (request %s)", attempt, request_id)
                        raise StoreUnavailable(failure, details={"status": status, "errors": error_messages(errors),
                                                                 "code": "THROTTLED"})
                    if self._ready_at <= self._clock():  # no Admin cost said how long: back off
                        self._hold_until(self._clock() + self.backoff(attempt))
                    continue
                if isinstance(data, dict) and data and all(code == "ACCESS_DENIED" for code in codes):
                    log.warning("Shopify withheld fields the token has no scope for: %s", error_messages(errors))
                    return data
                log.warning("Shopify answered GraphQL errors %s: %s (request %s)", codes, error_messages(errors),
                            request_id)
                raise StoreUnavailable(failure, details={"status": status, "errors": error_messages(errors),
                                                         "codes": codes})
            if not isinstance(data, dict):
                raise StoreUnavailable(failure, details={"status": status, "error": "no data in the answer"})
            return data
