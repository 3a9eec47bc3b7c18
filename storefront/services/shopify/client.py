"""The store catalogue read from Shopify's GraphQL APIs (facts: ../shared/contracts/shopify-storefront.md).

`ShopifyCatalogue` implements `StoreCatalogue` over one `graphql.ShopifyGraphQL` endpoint:

- **Which API.** The Storefront API (`{root}/api/{version}/graphql.json`) with
  `SHOPIFY_STOREFRONT_PRIVATE_TOKEN` (header `Shopify-Storefront-Private-Token`, server-side only,
  preferred; each request then names its shopper in `Shopify-Storefront-Buyer-IP`) or
  `SHOPIFY_STOREFRONT_TOKEN` (header `X-Shopify-Storefront-Access-Token`). When only
  the legacy Admin token `SHOPIFY_ACCESS_TOKEN` is set, the Admin GraphQL API
  (`{root}/admin/api/{version}/graphql.json`, header `X-Shopify-Access-Token`), active products
  only, with its cost-based throttling; the log then advises a storefront token. `{root}` is
  `SHOPIFY_API_BASE` or `https://{SHOPIFY_STORE_DOMAIN}`.
- **Listing.** `products(first:, after:)` in id order; the cursor handed out is Shopify's own
  `endCursor`, opaque. A collection's page is `collection(id:){products(first:, after:)}`.
  The Admin API is asked for at most `ADMIN_PAGE` products at a time (its single-query cost cap),
  so a page there may be shorter than asked.
- **Title search.** "Title contains the text, case-insensitive": the shopper's text is passed as a
  GraphQL variable inside Shopify's search syntax as one quoted value, `title:"..."`, with `\\`,
  `"`, `:`, `(` and `)` backslash-escaped, so quotes, colons and `OR` in the text never change the
  query's meaning. Inside a collection (whose `products` takes no `query`), the collection's titles
  are walked in pages of 250 (at most `search_pages` pages), matched here, and the page read with
  `nodes(ids:)`; that cursor is our own (`search:<offset>`).
- **Variants.** List pages carry each product's first variants (what a card shows); `product()` and
  `products_by_id()` page every variant (250 a request; a product may have 2,048).
- **Images.** Each image comes with Shopify's resized renditions (`url(transform: {maxWidth})` at
  320/640/960 px), never built by hand.
- **Ids.** Products, variants and collections keep their gid; the numeric id the routes and cart
  items use is derived by `ids.numeric_id`. A product page opened by its numeric id asks for the
  gid of that number (`ids.shopify_gid`).
- **Cart handoff.** `checkout()` runs `cartCreate` with the lines' variant gids (Storefront) and
  answers the cart's `checkoutUrl` with its `userErrors` and stock `warnings` in plain words. The
  Admin API has no carts: there it answers the store's cart permalink.
- **Errors.** Methods raise `StoreUnavailable` with the page's message (`PRODUCTS_FAILED`,
  `COLLECTIONS_FAILED`, `PRODUCT_FAILED`, `CHECKOUT_FAILED`); `product()` raises
  `NotFoundError(PRODUCT_NOT_FOUND)` for an unknown id (remembered `missing_ttl` seconds).
  `status()` never raises.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Self

import httpx

from storefront.services.catalog.text_search import search_text
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.shopify import ids
from storefront.services.shopify.answers import (
    checkout_problems,
    connection_page,
    parse_graphql_product,
    refuses_cursor,
)
from storefront.services.shopify.catalogue import (
    CHECKOUT_FAILED,
    COLLECTIONS_FAILED,
    INVALID_CURSOR,
    MAX_PAGE_SIZE,
    PRODUCT_FAILED,
    PRODUCT_NOT_FOUND,
    PRODUCTS_FAILED,
    STATUS_CONNECTED,
    STATUS_ERROR,
    CheckoutLine,
    StoreCheckout,
    StoreCollection,
    StorePage,
    StoreProduct,
    StoreStatus,
    StoreUnavailable,
)
from storefront.services.shopify.graphql import ShopifyGraphQL, Sleep
from storefront.services.shopify.queries import IMAGES, Dialect

log = logging.getLogger(__name__)

#: The latest stable version in November 2026, supported until 2027-10-01 (contract §0).
DEFAULT_API_VERSION = "2026-10"
USER_AGENT = "storefront-shopify-catalogue/2.0 (Python; httpx)"
SEARCH_CURSOR_PREFIX = "search:"
#: A plain host name (and port): the only thing a cart permalink is built on.
_HOST = re.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?::\d{1,5})?"
)
#: Pages of collections read at most (250 each).
COLLECTION_PAGES = 4
ADMIN_ADVICE = (
    "Shopify: only SHOPIFY_ACCESS_TOKEN (an Admin API token, full read access to the shop's admin) is set, so "
    "the store catalogue reads the Admin GraphQL API and the cart hands over a permalink. Create a Storefront "
    "API token (the Headless channel, or an app with the unauthenticated_read_product_listings scope) and set "
    "SHOPIFY_STOREFRONT_PRIVATE_TOKEN or SHOPIFY_STOREFRONT_TOKEN instead; SHOPIFY_ACCESS_TOKEN support will be "
    "removed in a later release."
)

def shop_root(domain: str, override: str = "") -> str:
    """The shop's root without a trailing "/": `override` when set, else https://{domain}."""
    if override.strip():
        return override.strip().rstrip("/")
    host = domain.strip().removeprefix("https://").removeprefix("http://").strip("/")
    return f"https://{host}"


def _clamp_limit(limit: int) -> int:
    return max(1, min(MAX_PAGE_SIZE, int(limit)))


class ShopifyCatalogue:
    """The StoreCatalogue of a Shopify shop over its GraphQL APIs (see the module docstring)."""

    def __init__(
        self,
        settings: Any = None,
        *,
        shop_root: str = "",
        storefront_token: str = "",
        private_token: str = "",
        admin_token: str = "",
        version: str = "",
        timeout: float = 10.0,
        cache_ttl: float = 30.0,
        cache_size: int = 512,
        max_attempts: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        search_pages: int = 8,
        missing_ttl: float = 60.0,
        missing_size: int = 1024,
        clock: Any = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        if settings is not None:  # ShopifyCatalogue(settings): the store's settings (wiring.store_catalogue)
            shop_root = shop_root or _root_of(settings.shopify_store_domain, settings.shopify_api_base)
            storefront_token = storefront_token or settings.shopify_storefront_token
            private_token = private_token or settings.shopify_storefront_private_token
            admin_token = admin_token or settings.shopify_access_token
            version = version or settings.shopify_api_version
        if not shop_root:
            raise ValueError("ShopifyCatalogue needs settings or a shop_root")
        if not (storefront_token or private_token or admin_token):
            raise ValueError("ShopifyCatalogue needs a Storefront or an Admin token")
        self.version = version.strip() or DEFAULT_API_VERSION
        self.admin = not (storefront_token or private_token)
        root = shop_root.rstrip("/")
        headers = {"User-Agent": user_agent}
        if self.admin:
            endpoint = f"{root}/admin/api/{self.version}/graphql.json"
            headers["X-Shopify-Access-Token"] = admin_token
            log.warning(ADMIN_ADVICE)
        else:
            endpoint = f"{root}/api/{self.version}/graphql.json"
            if private_token:
                headers["Shopify-Storefront-Private-Token"] = private_token
            else:
                headers["X-Shopify-Storefront-Access-Token"] = storefront_token
        self.endpoint = endpoint
        self.api = "admin" if self.admin else "storefront"
        self._dialect = Dialect(self.admin)
        self._clock = clock
        self._graphql = ShopifyGraphQL(
            endpoint,
            headers,
            version=self.version,
            admin=self.admin,
            send_buyer_ip=bool(private_token and not self.admin),
            timeout=timeout,
            max_attempts=max_attempts,
            backoff_base=backoff_base,
            backoff_cap=backoff_cap,
            cache_ttl=cache_ttl,
            cache_size=cache_size,
            clock=clock,
            sleep=sleep,
            transport=transport,
        )
        self.search_pages = max(1, search_pages)
        self.missing_ttl = max(0.0, missing_ttl)
        self.missing_size = max(1, missing_size)
        #: Product ids the store said it does not sell, until when (oldest first).
        self._missing: OrderedDict[int, float] = OrderedDict()
        #: Collection numeric id -> gid, as the store named them.
        self._collection_gids: dict[int, str] = {}
        self._domain = ""

    @classmethod
    def from_settings(cls, settings: Any, **kwargs: Any) -> ShopifyCatalogue:
        """A catalogue for SHOPIFY_STORE_DOMAIN and its tokens (SHOPIFY_API_BASE when set)."""
        return cls(settings, **kwargs)

    async def aclose(self) -> None:
        await self._graphql.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ missing ids

    def _known_missing(self, product_id: int) -> bool:
        until = self._missing.get(product_id)
        if until is None:
            return False
        if until > self._clock():
            return True
        del self._missing[product_id]
        return False

    def _note_missing(self, product_id: int) -> None:
        if self.missing_ttl <= 0:
            return
        self._missing[product_id] = self._clock() + self.missing_ttl
        self._missing.move_to_end(product_id)
        while len(self._missing) > self.missing_size:
            self._missing.popitem(last=False)

    # ------------------------------------------------------------------ StoreCatalogue

    async def status(self) -> StoreStatus:
        """The shop's name and primary domain, uncached: 'connected', else 'error'. Never raises."""
        failure = "Could not reach the Shopify store. Please check SHOPIFY_STORE_DOMAIN and try again later."
        tokens = "SHOPIFY_ACCESS_TOKEN" if self.admin else "SHOPIFY_STOREFRONT_TOKEN / SHOPIFY_STOREFRONT_PRIVATE_TOKEN"
        try:
            data = await self._graphql.execute(self._dialect.shop, None, failure, use_cache=False)
        except StoreUnavailable as error:
            details = error.details if isinstance(error.details, dict) else {}
            http_status = details.get("status")
            if http_status in (401, 403):
                scope = "read_products" if self.admin else "unauthenticated_read_product_listings"
                return StoreStatus(STATUS_ERROR, f"Shopify refused the access token (HTTP {http_status}): check "
                                                 f"{tokens} and that it has the {scope} scope.")
            if http_status == 402:
                return StoreStatus(STATUS_ERROR, "The Shopify store is frozen (HTTP 402): its bill is unpaid.")
            if http_status == 404:
                return StoreStatus(STATUS_ERROR, "Shopify answered 404 for the shop: check SHOPIFY_STORE_DOMAIN.")
            if http_status == 423:
                return StoreStatus(STATUS_ERROR, "The Shopify store is locked (HTTP 423).")
            if http_status == 430:
                return StoreStatus(STATUS_ERROR, "Shopify's bot protection refused this server (HTTP 430): use "
                                                 "SHOPIFY_STOREFRONT_PRIVATE_TOKEN.")
            reason = f" (HTTP {http_status})" if http_status and http_status != 200 else ""
            return StoreStatus(STATUS_ERROR, f"Could not reach the Shopify store{reason}. Please try again later.")
        except Exception:  # status() is a health check: it reports, it does not raise
            log.exception("Shopify status check failed")
            return StoreStatus(STATUS_ERROR, "Could not reach the Shopify store. Please try again later.")
        shop = data.get("shop")
        if not isinstance(shop, dict):
            return StoreStatus(STATUS_ERROR, "Shopify answered an unreadable shop.")
        name = str(shop.get("name") or "")
        primary = found if isinstance(found := shop.get("primaryDomain"), dict) else {}
        domain = str(primary.get("host") or shop.get("myshopifyDomain") or "")
        self._domain = domain
        return StoreStatus(STATUS_CONNECTED, f"Connected to {name or domain or 'the Shopify store'}.",
                           shop_name=name, domain=domain)

    async def products(
        self, *, query: str = "", collection_id: int | None = None, cursor: str = "", limit: int = 24
    ) -> StorePage:
        """Products in id order (a collection's in its order); of one collection when given; titles
        containing `query`."""
        limit = min(_clamp_limit(limit), self._dialect.max_page)
        needle = search_text(query)
        if cursor.startswith(SEARCH_CURSOR_PREFIX) and not (needle and collection_id is not None):
            raise ValidationError("This page belongs to a search; please search again.")
        if collection_id is not None:
            collection_gid = await self._collection_gid(int(collection_id))
            if not collection_gid:
                return StorePage((), "")  # no such collection: nothing in it
            if needle:
                return await self._search_collection(collection_gid, needle, cursor, limit)
            data = await self._page(self._dialect.collection_products, {
                "id": collection_gid, "first": limit, "after": cursor or None,
                "variants": self._dialect.list_variants, "images": self._dialect.list_images})
            collection = data.get("collection")
            if collection is None:
                return StorePage((), "")
            nodes, next_cursor = connection_page(collection.get("products"), PRODUCTS_FAILED)
        else:
            data = await self._page(self._dialect.products, {
                "first": limit, "after": cursor or None, "query": self._dialect.search(needle) or None,
                "variants": self._dialect.list_variants, "images": self._dialect.list_images})
            nodes, next_cursor = connection_page(data.get("products"), PRODUCTS_FAILED)
        return StorePage(self._parse_all(nodes, PRODUCTS_FAILED), next_cursor)

    async def _page(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """A page of products after the client's cursor; ValidationError(INVALID_CURSOR) when the
        store refuses that cursor, so a bad cursor is the client's 422, not a store outage."""
        try:
            return await self._graphql.execute(query, variables, PRODUCTS_FAILED)
        except StoreUnavailable as failure:
            if variables.get("after") and refuses_cursor(failure):
                raise ValidationError(INVALID_CURSOR, {"cursor": INVALID_CURSOR}) from None
            raise

    async def product(self, product_id: int) -> StoreProduct:
        """A product the store sells, every variant; NotFoundError for one it does not (remembered
        for `missing_ttl`, so asking again costs no request)."""
        product_id = int(product_id)
        if self._known_missing(product_id):
            raise NotFoundError(PRODUCT_NOT_FOUND)
        try:
            gid = ids.shopify_gid(ids.PRODUCT, product_id)
        except ValueError:
            raise NotFoundError(PRODUCT_NOT_FOUND) from None
        data = await self._graphql.execute(self._dialect.product, {"id": gid, "variants": self._dialect.full_variants,
                                                                   "images": IMAGES},
                                           PRODUCT_FAILED)
        raw = data.get("product")
        if not isinstance(raw, dict) or (self.admin and raw.get("status") != "ACTIVE"):
            self._note_missing(product_id)
            raise NotFoundError(PRODUCT_NOT_FOUND)
        return await self._complete(raw, PRODUCT_FAILED)

    async def products_by_id(self, product_ids: Sequence[int]) -> dict[int, StoreProduct]:
        """The products the store sells among `product_ids`, every variant, read with `nodes(ids:)`;
        ids remembered missing cost nothing, and those the answer leaves out are remembered so."""
        wanted = [i for i in dict.fromkeys(int(i) for i in product_ids) if not self._known_missing(i)]
        found: dict[int, StoreProduct] = {}
        chunk_size = self._dialect.nodes_chunk
        for start in range(0, len(wanted), chunk_size):
            chunk = wanted[start:start + chunk_size]
            gids = []
            for product_id in chunk:
                try:
                    gids.append(ids.shopify_gid(ids.PRODUCT, product_id))
                except ValueError:
                    self._note_missing(product_id)
            if gids:
                for product in await self._nodes(gids, PRODUCTS_FAILED):
                    found[product.id] = product
            for product_id in chunk:
                if product_id not in found:
                    self._note_missing(product_id)
        return found

    async def collections(self) -> list[StoreCollection]:
        """The collections the store publishes, sorted by title."""
        found: dict[int, StoreCollection] = {}
        after: str | None = None
        for _ in range(COLLECTION_PAGES):
            data = await self._graphql.execute(self._dialect.collections, {"after": after}, COLLECTIONS_FAILED)
            nodes, next_cursor = connection_page(data.get("collections"), COLLECTIONS_FAILED)
            for node in nodes:
                try:
                    gid = str(node["id"])
                    collection = StoreCollection(ids.numeric_id(gid, ids.COLLECTION), str(node["title"]), gid)
                except (KeyError, TypeError, ValueError):
                    log.warning("Skipped an unreadable Shopify collection")
                    continue
                found[collection.id] = collection
                self._collection_gids[collection.id] = gid
            if not next_cursor:
                break
            after = next_cursor
        return sorted(found.values(), key=lambda c: (c.title.casefold(), c.id))

    async def checkout(self, lines: Sequence[CheckoutLine]) -> StoreCheckout:
        """A Storefront cart holding `lines` (`cartCreate`) and its checkoutUrl; what the store refused
        or changed comes back in plain words, and then no address (the shopper fixes the cart first).
        The Admin API has no carts: there the store's cart permalink."""
        if not lines:
            raise ValidationError("There is nothing from the store to check out.")
        if self.admin:
            return await self._permalink(lines)
        mutation = """mutation StoreCheckout($lines: [CartLineInput!]) {
  cartCreate(input: {lines: $lines}) {
    cart { id checkoutUrl totalQuantity
      lines(first: 250) { nodes { quantity merchandise { ... on ProductVariant { id } } } } }
    userErrors { field message code }
    warnings { code message target }
  }
}"""
        variables = {"lines": [{"merchandiseId": line.variant_gid, "quantity": line.quantity} for line in lines]}
        data = await self._graphql.execute(mutation, variables, CHECKOUT_FAILED, use_cache=False)
        payload = data.get("cartCreate")
        if not isinstance(payload, dict):
            raise StoreUnavailable(CHECKOUT_FAILED, details={"error": "no cartCreate in the answer"})
        problems = checkout_problems(lines, payload)
        cart = payload.get("cart") if isinstance(payload.get("cart"), dict) else None
        url = str(cart.get("checkoutUrl") or "") if cart else ""
        if problems or not url:
            if not problems:
                raise StoreUnavailable(CHECKOUT_FAILED, details={"error": "no checkoutUrl"})
            log.info("Shopify refused or changed the checkout: %s", problems)
            return StoreCheckout("", tuple(problems))
        return StoreCheckout(url)

    # ------------------------------------------------------------------ helpers

    async def _permalink(self, lines: Sequence[CheckoutLine]) -> StoreCheckout:
        if not self._domain:
            status = await self.status()
            if status.status != STATUS_CONNECTED:
                raise StoreUnavailable(CHECKOUT_FAILED, details={"error": status.message})
        host = self._domain.lower() if _HOST.fullmatch(self._domain) else ""
        quantities: dict[str, int] = {}
        for line in lines:
            if line.variant_id.isdigit():
                quantities[line.variant_id] = quantities.get(line.variant_id, 0) + line.quantity
        if not host or not quantities:
            raise StoreUnavailable(CHECKOUT_FAILED, details={"error": "no permalink"})
        return StoreCheckout(f"https://{host}/cart/" + ",".join(f"{v}:{q}" for v, q in quantities.items()))

    def _parse_all(self, nodes: list[Any], failure: str) -> tuple[StoreProduct, ...]:
        """Products of a list answer; an unreadable one is skipped (logged)."""
        products = []
        for node in nodes:
            if not isinstance(node, dict) or (self.admin and node.get("status", "ACTIVE") != "ACTIVE"):
                continue
            try:
                products.append(parse_graphql_product(node))
            except (KeyError, TypeError, ValueError, AttributeError):
                log.warning("Skipped an unreadable Shopify product")
        return tuple(products)

    async def _complete(self, raw: dict[str, Any], failure: str) -> StoreProduct:
        """The product of `raw` with every variant (further pages read `full_variants` at a time)."""
        extra: list[dict[str, Any]] = []
        page = (raw.get("variants") or {}).get("pageInfo") or {}
        after = page.get("endCursor") if page.get("hasNextPage") else None
        while after:
            data = await self._graphql.execute(self._dialect.more_variants, {
                "id": raw["id"], "after": after, "variants": self._dialect.full_variants}, failure)
            product = data.get("product")
            if not isinstance(product, dict):
                break
            nodes, next_cursor = connection_page(product.get("variants"), failure)
            extra.extend(n for n in nodes if isinstance(n, dict))
            after = next_cursor or None
        try:
            return parse_graphql_product(raw, extra)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreUnavailable(failure, details={"error": f"unreadable product: {exc!r}"}) from exc

    async def _nodes(self, gids: list[str], failure: str) -> list[StoreProduct]:
        """The sold products among `gids` (one request, then their further variants), in that order."""
        data = await self._graphql.execute(self._dialect.nodes, {"ids": gids, "variants": self._dialect.full_variants,
                                                                "images": IMAGES},
                                           failure)
        nodes = data.get("nodes")
        if not isinstance(nodes, list):
            raise StoreUnavailable(failure, details={"error": "nodes is not a list"})
        products = []
        for node in nodes:
            if not isinstance(node, dict) or "id" not in node:
                continue
            if self.admin and node.get("status") != "ACTIVE":
                continue
            products.append(await self._complete(node, failure))
        return products

    async def _collection_gid(self, collection_id: int) -> str:
        """The gid of a collection as the store named it ("" for one it does not have)."""
        if collection_id not in self._collection_gids:
            await self.collections()
        return self._collection_gids.get(collection_id, "")

    async def _search_collection(self, collection_gid: str, needle: str, cursor: str, limit: int) -> StorePage:
        """Title search inside a collection (see the module docstring): walk the titles, match, read the page."""
        offset = 0
        if cursor:
            raw_offset = cursor.removeprefix(SEARCH_CURSOR_PREFIX)
            if not cursor.startswith(SEARCH_CURSOR_PREFIX) or not (raw_offset.isascii() and raw_offset.isdigit()):
                raise ValidationError("This search page is no longer available; please search again.")
            offset = int(raw_offset)
        folded = needle.casefold()
        matches: list[str] = []
        after: str | None = None
        for _ in range(self.search_pages):
            data = await self._graphql.execute(self._dialect.collection_titles, {"id": collection_gid, "after": after},
                                               PRODUCTS_FAILED)
            collection = data.get("collection")
            if not isinstance(collection, dict):
                return StorePage((), "")
            nodes, next_cursor = connection_page(collection.get("products"), PRODUCTS_FAILED)
            matches.extend(str(n["id"]) for n in nodes
                           if isinstance(n, dict) and folded in str(n.get("title") or "").casefold())
            if not next_cursor:
                break
            after = next_cursor
        else:
            log.warning("Shopify collection search read only the first %d pages (search_pages): results are partial",
                        self.search_pages)
        page_gids = matches[offset:offset + limit]
        end = offset + len(page_gids)
        products: list[StoreProduct] = []
        for start in range(0, len(page_gids), self._dialect.nodes_chunk):
            products.extend(await self._nodes(page_gids[start:start + self._dialect.nodes_chunk], PRODUCTS_FAILED))
        return StorePage(tuple(products), f"{SEARCH_CURSOR_PREFIX}{end}" if end < len(matches) else "")


def _root_of(domain: str, override: str) -> str:
    return shop_root(domain, override) if (domain.strip() or override.strip()) else ""
