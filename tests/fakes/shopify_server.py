"""A fake Shopify Admin REST API (read side) on loopback that follows ../shared/contracts/shopify.md.

Real HTTP (stdlib `ThreadingHTTPServer` in a thread) over an in-memory shop seeded with a small
apparel catalogue (30 active products, one draft, one archived; two custom collections and one smart
collection). What it models (contract §8): the `X-Shopify-Access-Token` check (401 with Shopify's
string error), resource-key envelopes, integer ids, decimal-string prices, comma-string tags, `limit`
(default 50, max 250), cursor pages through a `Link` header (rel="next"/"previous") with an opaque
`page_info`, 400 when filters accompany `page_info`, the leaky bucket (40, leaking 2 a second on an
injectable clock) reported in `X-Shopify-Shop-Api-Call-Limit` on every reply and enforced with 429,
the `X-Shopify-API-Version` echo, trimmed products from `/collections/{id}/products.json`, and
injectable faults (429 with Retry-After, 5xx, slow answers, malformed JSON). Every request is logged.

    with FakeShopifyServer() as fake:
        catalogue = ShopifyCatalogue(base_url=fake.base_url, token=fake.token)

or the `shopify_server` fixture; standalone, to try the pages by hand:

    .venv/bin/python -m tests.fakes.shopify_server --port 8766
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer

DEFAULT_TOKEN = "shpat_fake0000000000000000000000000"
DEFAULT_VERSION = "2023-07"
DEFAULT_PORT = 8766
BUCKET_SIZE = 40
LEAK_PER_SECOND = 2.0
DEFAULT_LIMIT = 50
MAX_LIMIT = 250
UNAUTHORIZED = {"errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"}
NOT_FOUND = {"errors": "Not Found"}
THROTTLED = {"errors": "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service."}
PAGINATION_DOC = "See https://shopify.dev/api/usage/pagination-rest for more information."
#: Parameters allowed next to page_info (contract §4); any other one answers 400.
PAGE_INFO_PARAMS = frozenset({"page_info", "limit", "fields"})
SHOP = {
    "id": 548380009, "name": "Fake Greek Threads", "email": "owner@fake-greek-threads.example",
    "domain": "shop.fake-greek-threads.example", "myshopify_domain": "fake-greek-threads.myshopify.com",
    "currency": "USD", "money_format": "${{amount}}", "money_with_currency_format": "${{amount}} USD",
    "iana_timezone": "America/New_York", "timezone": "(GMT-05:00) Eastern Time (US & Canada)",
    "country_code": "US", "primary_locale": "en", "plan_name": "basic", "plan_display_name": "Basic",
    "weight_unit": "lb", "taxes_included": False, "password_enabled": False, "has_storefront": True,
}
STAMP = "2024-01-02T08:59:11-05:00"
#: (title, product_type, tags, price, sizes) of the active products, in id order.
SEED: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("Nupe Founders Tee", "T-Shirt", "nupe, tee", "28.00", ("S", "M", "L", "XL")),
    ("Nupe Crest Hoodie", "Hoodie", "nupe, hoodie", "54.00", ("S", "M", "L", "XL")),
    ("Nupe Script Crewneck", "Sweatshirt", "nupe, crewneck", "46.00", ("M", "L", "XL")),
    ("Nupe Diamond Cap", "Hat", "nupe, cap", "24.00", ()),
    ("Nupe Cane Tee", "T-Shirt", "nupe, tee", "29.50", ("S", "M", "L")),
    ("Nupe Yacht Polo", "Polo", "nupe", "39.99", ("M", "L", "XL")),
    ("Kappa Diamond Tee", "T-Shirt", "kappa, tee", "29.00", ("S", "M", "L", "XL")),
    ("Kappa Script Hoodie", "Hoodie", "kappa, hoodie", "55.00", ("S", "M", "L")),
    ("Kappa Line Crewneck", "Sweatshirt", "kappa, crewneck", "45.00", ("M", "L")),
    ("Kappa Crimson Cap", "Hat", "kappa, cap", "22.00", ()),
    ("Kappa Chapter TEE", "T-Shirt", "kappa, tee", "27.00", ("S", "M", "L")),
    ("Kappa Kane Jacket", "Jacket", "kappa", "89.00", ("M", "L", "XL")),
    ("Red Line Tee", "T-Shirt", "red, tee", "25.00", ("S", "M", "L", "XL")),
    ("Red Chapter Hoodie", "Hoodie", "red, hoodie", "52.00", ("S", "M", "L")),
    ("Red Founders Crewneck", "Sweatshirt", "red, crewneck", "44.00", ("M", "L", "XL")),
    ("Red Pearl Cap", "Hat", "red, cap", "23.00", ()),
    ("Red Elephant Tote", "Bag", "red", "18.00", ()),
    ("Red Heritage T-Shirt", "T-Shirt", "red, tee", "26.00", ("S", "M", "L")),
    ("Zeta Blue Tee", "T-Shirt", "zeta, tee", "28.00", ("S", "M", "L", "XL")),
    ("Zeta Dove Hoodie", "Hoodie", "zeta, hoodie", "53.00", ("S", "M", "L")),
    ("Zeta Finer Crewneck", "Sweatshirt", "zeta, crewneck", "45.50", ("M", "L")),
    ("Zeta Royal Cap", "Hat", "zeta, cap", "24.00", ()),
    ("Zeta Stiletto Tee", "T-Shirt", "zeta, tee", "27.50", ("S", "M", "L")),
    ("Zeta Centennial Scarf", "Accessory", "zeta", "19.99", ()),
    ("Poodle Strut Tee", "T-Shirt", "poodle, tee", "26.00", ("S", "M", "L", "XL")),
    ("Poodle Gold Hoodie", "Hoodie", "poodle, hoodie", "56.00", ("S", "M", "L")),
    ("Poodle Pearl Crewneck", "Sweatshirt", "poodle, crewneck", "47.00", ("M", "L", "XL")),
    ("Poodle Sorority Cap", "Hat", "poodle, cap", "21.00", ()),
    ("Poodle Steppin Tee", "T-Shirt", "poodle, tee", "28.50", ("S", "M", "L")),
    ("Poodle Charm Bracelet", "Accessory", "poodle", "15.00", ()),
)
FIRST_PRODUCT_ID = 7_981_230_000_001
FIRST_VARIANT_ID = 44_210_000_000_001
DRAFT_TITLE = "Nupe Sample Tee (draft)"
ARCHIVED_TITLE = "Kappa Retired Tee"
#: Custom collections and the titles of their products (collection order); the first holds the draft.
CUSTOM_COLLECTIONS = (
    (482865238, "Summer Drop", "summer-drop",
     ("Zeta Blue Tee", DRAFT_TITLE, "Nupe Founders Tee", "Red Elephant Tote", "Poodle Gold Hoodie")),
    (482865239, "Hoodies & Crewnecks", "hoodies-crewnecks",
     ("Nupe Crest Hoodie", "Kappa Script Hoodie", "Red Chapter Hoodie", "Zeta Dove Hoodie", "Poodle Gold Hoodie",
      "Nupe Script Crewneck", "Kappa Line Crewneck")),
)
SMART_COLLECTION = (1063001322, "Caps", "caps", {"column": "title", "relation": "ends_with", "condition": "Cap"})


def _product(index: int, title: str, product_type: str, tags: str, price: str, sizes: tuple[str, ...],
             status: str = "active") -> dict[str, Any]:
    product_id = FIRST_PRODUCT_ID + index
    handle = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    option_values = list(sizes) or ["Default Title"]
    variants = [
        {
            "id": FIRST_VARIANT_ID + index * 10 + n, "product_id": product_id,
            "title": value, "price": price, "compare_at_price": None,
            "sku": f"{handle[:12].upper()}-{value[:2].upper()}", "position": n + 1,
            "option1": value, "option2": None, "option3": None,
            "inventory_quantity": 10 + n, "old_inventory_quantity": 10 + n, "inventory_management": "shopify",
            "inventory_policy": "deny", "inventory_item_id": 46_000_000_000_000 + index * 10 + n,
            "fulfillment_service": "manual", "taxable": True, "barcode": None, "grams": 180, "weight": 0.4,
            "weight_unit": "lb", "image_id": None, "requires_shipping": True,
            "presentment_prices": [{"price": {"amount": price, "currency_code": "USD"}, "compare_at_price": None}],
            "created_at": STAMP, "updated_at": STAMP,
            "admin_graphql_api_id": f"gid://shopify/ProductVariant/{FIRST_VARIANT_ID + index * 10 + n}",
        }
        for n, value in enumerate(option_values)
    ]
    images = [
        {
            "id": 39_000_000_000_000 + index * 10 + n, "product_id": product_id, "position": n + 1,
            "alt": title if n == 0 else None,
            "src": f"https://cdn.shopify.com/s/files/1/0548/3800/products/{handle}-{n + 1}.png?v=1704203951",
            "width": 1200, "height": 1200, "variant_ids": [], "created_at": STAMP, "updated_at": STAMP,
            "admin_graphql_api_id": f"gid://shopify/ProductImage/{39_000_000_000_000 + index * 10 + n}",
        }
        for n in range(2)
    ]
    return {
        "id": product_id, "title": title, "body_html": f"<p>{title}, printed on demand.</p>",
        "vendor": "Fake Greek Threads", "product_type": product_type, "created_at": STAMP, "handle": handle,
        "updated_at": STAMP, "published_at": STAMP if status == "active" else None, "template_suffix": None,
        "published_scope": "web", "tags": tags, "status": status,
        "admin_graphql_api_id": f"gid://shopify/Product/{product_id}",
        "variants": variants,
        "options": [{"id": 10_000_000_000 + index, "product_id": product_id,
                     "name": "Size" if sizes else "Title", "position": 1, "values": option_values}],
        "images": images, "image": images[0],
    }


def seed_products() -> dict[int, dict[str, Any]]:
    """The seeded catalogue by id: the 30 active products of SEED, then one draft and one archived."""
    rows = [(*row, "active") for row in SEED]
    rows.append((DRAFT_TITLE, "T-Shirt", "nupe, tee", "30.00", ("S", "M"), "draft"))
    rows.append((ARCHIVED_TITLE, "T-Shirt", "kappa, tee", "20.00", ("M",), "archived"))
    products = [_product(i, *row) for i, row in enumerate(rows)]
    return {p["id"]: p for p in products}


def _collection(collection_id: int, title: str, handle: str) -> dict[str, Any]:
    return {
        "id": collection_id, "handle": handle, "title": title, "updated_at": STAMP,
        "body_html": f"<p>{title}</p>", "published_at": STAMP, "sort_order": "manual",
        "template_suffix": None, "published_scope": "web",
        "admin_graphql_api_id": f"gid://shopify/Collection/{collection_id}",
    }


#: The keys /collections/{id}/products.json leaves out (contract §3).
TRIMMED_KEYS = ("variants", "status")


class _Reject(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


@dataclass
class Fault:
    """One injected misbehaviour for the next `times` matching requests (None: until cleared)."""

    kind: str  # "status", "slow" or "malformed"
    status: int = 500
    retry_after: str | None = None
    delay: float = 0.0
    body: Any = None
    path: str | None = None  # a substring of the request path
    times: int | None = 1


@dataclass
class RecordedRequest:
    """What the fake received (path without the /admin/api/{v} prefix kept whole) and what it answered."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    at: float
    status: int = 0


def encode_page_info(state: dict[str, Any]) -> str:
    """Opaque to clients, like Shopify's: URL-safe base64 of the filters and the edge id."""
    return base64.urlsafe_b64encode(json.dumps(state, sort_keys=True).encode()).decode().rstrip("=")


def decode_page_info(token: str) -> dict[str, Any]:
    try:
        state = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except ValueError:
        raise _Reject(400, {"errors": {"page_info": ["Invalid value."]}}) from None
    if not isinstance(state, dict) or state.get("direction") not in ("next", "prev"):
        raise _Reject(400, {"errors": {"page_info": ["Invalid value."]}})
    return state


class FakeShopify:
    """The fake's state and behaviour, independent of HTTP (the server wraps it)."""

    def __init__(self, token: str = DEFAULT_TOKEN, *, clock: Callable[[], float] = time.monotonic,
                 enforce_bucket: bool = True, served_version: str | None = None) -> None:
        self.token = token
        self.clock = clock
        self.enforce_bucket = enforce_bucket
        #: The version announced in X-Shopify-API-Version (None: the one asked for; set it to model fall-forward).
        self.served_version = served_version
        self.shop = copy.deepcopy(SHOP)
        self.products = seed_products()
        by_title = {p["title"]: p["id"] for p in self.products.values()}
        self.custom_collections = [_collection(cid, title, handle) for cid, title, handle, _ in CUSTOM_COLLECTIONS]
        #: collection id -> product ids in collection order (the collects).
        self.collects: dict[int, list[int]] = {cid: [by_title[t] for t in titles]
                                               for cid, _, _, titles in CUSTOM_COLLECTIONS}
        sid, stitle, shandle, rule = SMART_COLLECTION
        self.smart_collections = [{**_collection(sid, stitle, shandle), "rules": [rule], "disjunctive": False}]
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self.lock = threading.RLock()
        self._bucket_used = 0.0
        self._bucket_at: float | None = None

    # ------------------------------------------------------------------ test controls

    def fail_with(self, status: int = 500, *, retry_after: str | None = None, body: Any = None,
                  times: int | None = 1, path: str | None = None) -> Fault:
        """Answer the next `times` matching requests with `status` (a 429 carries Shopify's throttle body)."""
        if body is None:
            body = THROTTLED if status == 429 else {"errors": "Internal Server Error"}
        return self._inject(Fault("status", status, retry_after, body=body, times=times, path=path))

    def answer_slowly(self, delay: float, *, times: int | None = 1, path: str | None = None) -> Fault:
        """Hold the next matching answers `delay` seconds (longer than the client's timeout, say)."""
        return self._inject(Fault("slow", delay=delay, times=times, path=path))

    def answer_malformed(self, *, times: int | None = 1, path: str | None = None) -> Fault:
        """Answer the next matching requests 200 with a truncated JSON body."""
        return self._inject(Fault("malformed", status=200, times=times, path=path))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def requests_to(self, path_part: str) -> list[RecordedRequest]:
        """The logged requests whose path contains `path_part` (e.g. "/products.json")."""
        with self.lock:
            return [r for r in self.requests if path_part in r.path]

    def active_products(self) -> list[dict[str, Any]]:
        return [p for _, p in sorted(self.products.items()) if p["status"] == "active"]

    def _inject(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.append(fault)
        return fault

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.path is None or fault.path in path:
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    # ------------------------------------------------------------------ leaky bucket (contract §5)

    def _leak(self) -> None:
        now = self.clock()
        if self._bucket_at is not None:
            self._bucket_used = max(0.0, self._bucket_used - (now - self._bucket_at) * LEAK_PER_SECOND)
        self._bucket_at = now

    def take_call(self) -> bool:
        """Count one call; False when the bucket is full (Shopify answers 429)."""
        with self.lock:
            self._leak()
            if self.enforce_bucket and self._bucket_used + 1 > BUCKET_SIZE:
                return False
            self._bucket_used = min(float(BUCKET_SIZE), self._bucket_used + 1)
            return True

    def call_limit(self) -> str:
        with self.lock:
            self._leak()
            return f"{int(self._bucket_used + 0.999)}/{BUCKET_SIZE}"

    # ------------------------------------------------------------------ routes

    def handle(self, method: str, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """Route one authenticated request: (status, JSON body, extra headers)."""
        if method != "GET":
            return 404, NOT_FOUND, {}
        for pattern, name in _ROUTES:
            match = pattern.match(path)
            if match:
                try:
                    with self.lock:
                        return getattr(self, f"_{name}")(query, **match.groupdict())
                except _Reject as reject:
                    return reject.status, reject.body, {}
        return 404, NOT_FOUND, {}

    @staticmethod
    def _limit(query: dict[str, str]) -> int:
        raw = query.get("limit", str(DEFAULT_LIMIT))
        if not raw.isdigit() or int(raw) < 1:
            raise _Reject(400, {"errors": {"limit": ["must be a positive integer"]}})
        if int(raw) > MAX_LIMIT:
            raise _Reject(400, {"errors": {"limit": [f"must be less than or equal to {MAX_LIMIT}"]}})
        return int(raw)

    @staticmethod
    def _fields(items: list[dict[str, Any]], query: dict[str, str]) -> list[dict[str, Any]]:
        fields = [f.strip() for f in query.get("fields", "").split(",") if f.strip()]
        if not fields:
            return copy.deepcopy(items)
        return [{k: copy.deepcopy(v) for k, v in item.items() if k in fields} for item in items]

    def _page(self, path: str, query: dict[str, str], items_for: Callable[[dict[str, str]], list[dict[str, Any]]],
              ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """One cursor page of `items_for(filters)` and its Link header (contract §4)."""
        limit = self._limit(query)
        if "page_info" in query:
            extra = sorted(set(query) - PAGE_INFO_PARAMS)
            if extra:
                raise _Reject(400, {extra[0]: f"{extra[0]} cannot be passed when page_info is present. {PAGINATION_DOC}"})
            state = decode_page_info(query["page_info"])
            filters: dict[str, str] = state.get("filters") or {}
        else:
            state = {}
            filters = {k: v for k, v in query.items() if k not in ("limit", "fields")}
        items = items_for(filters)
        if state.get("direction") == "next":
            start = int(state["index"]) + 1
        elif state.get("direction") == "prev":
            start = max(0, int(state["index"]) - limit)
        else:
            start = 0
        page = items[start:start + limit]
        links = []
        keep = {k: query[k] for k in ("fields",) if k in query}
        if start + limit < len(items):
            token = encode_page_info({"filters": filters, "direction": "next", "index": start + len(page) - 1,
                                      "last_id": page[-1]["id"]})
            links.append((token, "next"))
        if start > 0:
            token = encode_page_info({"filters": filters, "direction": "prev", "index": start,
                                      "first_id": page[0]["id"] if page else None})
            links.append((token, "previous"))
        headers = {}
        if links:
            headers["Link"] = ", ".join(
                f'<{{base}}{path}?{urlencode({"limit": limit, **keep, "page_info": token})}>; rel="{rel}"'
                for token, rel in links
            )
        return page, headers

    def _filtered_products(self, filters: dict[str, str]) -> list[dict[str, Any]]:
        products = [p for _, p in sorted(self.products.items())]
        if "ids" in filters:
            wanted = {int(i) for i in filters["ids"].split(",") if i.strip().isdigit()}
            products = [p for p in products if p["id"] in wanted]
        if "status" in filters:
            statuses = {s.strip() for s in filters["status"].split(",")}
            products = [p for p in products if p["status"] in statuses]
        if "title" in filters:  # Shopify matches the title as a whole (not a substring search)
            products = [p for p in products if p["title"].casefold() == filters["title"].casefold()]
        if "product_type" in filters:
            products = [p for p in products if p["product_type"] == filters["product_type"]]
        if "since_id" in filters and filters["since_id"].isdigit():
            products = [p for p in products if p["id"] > int(filters["since_id"])]
        if "collection_id" in filters:
            members = set(self._collection_product_ids(int(filters["collection_id"])) or [])
            products = [p for p in products if p["id"] in members]
        return products

    def _collection_product_ids(self, collection_id: int) -> list[int] | None:
        if collection_id in self.collects:
            return list(self.collects[collection_id])
        for smart in self.smart_collections:
            if smart["id"] == collection_id:
                return [p["id"] for _, p in sorted(self.products.items()) if _matches_rules(p, smart)]
        return None

    def _products(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        page, headers = self._page("/products.json", query, self._filtered_products)
        return 200, {"products": self._fields(page, query)}, headers

    def _products_count(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        filters = {k: v for k, v in query.items() if k not in ("limit", "fields", "page_info")}
        return 200, {"count": len(self._filtered_products(filters))}, {}

    def _product(self, query: dict[str, str], pid: str) -> tuple[int, Any, dict[str, str]]:
        product = self.products.get(int(pid))
        if product is None:
            return 404, NOT_FOUND, {}
        return 200, {"product": self._fields([product], query)[0]}, {}

    def _collection_products(self, query: dict[str, str], cid: str) -> tuple[int, Any, dict[str, str]]:
        ids = self._collection_product_ids(int(cid))
        if ids is None:
            return 404, NOT_FOUND, {}
        trimmed = [{k: v for k, v in self.products[i].items() if k not in TRIMMED_KEYS} for i in ids]
        page, headers = self._page(f"/collections/{cid}/products.json", query, lambda _filters: trimmed)
        return 200, {"products": self._fields(page, query)}, headers

    def _collection(self, query: dict[str, str], cid: str) -> tuple[int, Any, dict[str, str]]:
        for kind, collections in (("custom", self.custom_collections), ("smart", self.smart_collections)):
            for collection in collections:
                if collection["id"] == int(cid):
                    count = len(self._collection_product_ids(int(cid)) or [])
                    return 200, {"collection": {**copy.deepcopy(collection), "collection_type": kind,
                                                "products_count": count}}, {}
        return 404, NOT_FOUND, {}

    def _collections_of(self, collections: list[dict[str, Any]]) -> Callable[[dict[str, str]], list[dict[str, Any]]]:
        def items_for(filters: dict[str, str]) -> list[dict[str, Any]]:
            items = sorted(collections, key=lambda c: c["id"])
            if filters.get("published_status") == "published":
                items = [c for c in items if c["published_at"]]
            elif filters.get("published_status") == "unpublished":
                items = [c for c in items if not c["published_at"]]
            if "ids" in filters:
                wanted = {int(i) for i in filters["ids"].split(",") if i.strip().isdigit()}
                items = [c for c in items if c["id"] in wanted]
            return items
        return items_for

    def _custom_collections(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        page, headers = self._page("/custom_collections.json", query, self._collections_of(self.custom_collections))
        return 200, {"custom_collections": self._fields(page, query)}, headers

    def _smart_collections(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        page, headers = self._page("/smart_collections.json", query, self._collections_of(self.smart_collections))
        return 200, {"smart_collections": self._fields(page, query)}, headers

    def _shop(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        return 200, {"shop": self._fields([self.shop], query)[0]}, {}


def _matches_rules(product: dict[str, Any], smart: dict[str, Any]) -> bool:
    results = []
    for rule in smart["rules"]:
        value = str(product.get(rule["column"], "")).casefold()
        condition = str(rule["condition"]).casefold()
        results.append({
            "equals": value == condition, "contains": condition in value,
            "starts_with": value.startswith(condition), "ends_with": value.endswith(condition),
        }.get(rule["relation"], False))
    return product["status"] == "active" and (any(results) if smart.get("disjunctive") else all(results))


_ROUTES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"^{pattern}\.json$"), name)
    for pattern, name in (
        (r"/products", "products"),
        (r"/products/count", "products_count"),
        (r"/products/(?P<pid>\d+)", "product"),
        (r"/collections/(?P<cid>\d+)/products", "collection_products"),
        (r"/collections/(?P<cid>\d+)", "collection"),
        (r"/custom_collections", "custom_collections"),
        (r"/smart_collections", "smart_collections"),
        (r"/shop", "shop"),
    )
]
_API_PREFIX = re.compile(r"^/admin/api/(?P<version>[^/]+)(?P<rest>/.*)$")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        fake = self.server.fake
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest(self.command, url.path, query, headers, fake.clock())
        with fake.lock:
            fake.requests.append(record)
        prefix = _API_PREFIX.match(url.path)
        version = prefix.group("version") if prefix else DEFAULT_VERSION
        extra = {"X-Shopify-API-Version": fake.served_version or version}
        if headers.get("x-shopify-access-token") != fake.token:
            return self._reply(record, 401, UNAUTHORIZED, extra)
        if prefix is None:
            return self._reply(record, 404, NOT_FOUND, extra)
        rest = prefix.group("rest")
        fault = fake.take_fault(rest)
        if fault is not None and fault.kind == "status":
            if fault.retry_after is not None:
                extra["Retry-After"] = fault.retry_after
            return self._reply(record, fault.status, fault.body, extra)
        if fault is not None and fault.kind == "malformed":
            return self._reply(record, 200, None, extra, raw_body=b'{"products": [{"id": 79812300')
        if not fake.take_call():
            return self._reply(record, 429, THROTTLED, {**extra, "Retry-After": "1.0"})
        status, body, route_headers = fake.handle(self.command, rest, query)
        if "Link" in route_headers:
            base = f"http://{self.headers.get('Host') or '127.0.0.1'}/admin/api/{version}"
            route_headers["Link"] = route_headers["Link"].replace("{base}", base)
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
        self._reply(record, status, body, {**extra, **route_headers})

    def _reply(self, record: RecordedRequest, status: int, body: Any, headers: dict[str, str],
               raw_body: bytes | None = None) -> None:
        payload = raw_body if raw_body is not None else json.dumps(body).encode()
        record.status = status
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("X-Shopify-Shop-Api-Call-Limit", self.server.fake.call_limit())
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_POST = do_PUT = do_DELETE = do_GET



class FakeShopifyServer(FakeShopify, LoopbackServer):
    """FakeShopify served over HTTP on 127.0.0.1; `base_url` is the /admin/api/{version}/ root."""

    def __init__(self, token: str = DEFAULT_TOKEN, *, version: str = DEFAULT_VERSION, **kwargs: Any) -> None:
        super().__init__(token, **kwargs)
        self.version = version

    @property
    def domain(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"http://{self.domain}/admin/api/{self.version}/"

    def start(self, port: int = 0) -> FakeShopifyServer:
        self.serve(_Handler, port, "fake-shopify")
        return self



@pytest.fixture
def shopify_server() -> Iterator[FakeShopifyServer]:
    """A running fake Shopify with the seeded catalogue, stopped afterwards."""
    with FakeShopifyServer() as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake Shopify Admin REST API (read side) on loopback.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--token", default=DEFAULT_TOKEN)
    args = parser.parse_args(argv)
    fake = FakeShopifyServer(args.token).start(args.port)
    print(f"Fake Shopify shop {fake.shop['name']!r} with {len(fake.active_products())} active products at {fake.base_url}")
    print(f"Access token: {fake.token}")
    print("Try a page by hand:")
    print(f"  curl -i -H 'X-Shopify-Access-Token: {fake.token}' '{fake.base_url}products.json?limit=10&status=active'")
    print("Run the store against it with:")
    print(f"  SHOPIFY_STORE_DOMAIN={fake.domain} SHOPIFY_ACCESS_TOKEN={fake.token} SHOPIFY_API_BASE={fake.base_url} make run")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
