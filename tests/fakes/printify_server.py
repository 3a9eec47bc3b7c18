"""A fake Printify API v1 on loopback that follows ../shared/contracts/printify.md.

Real HTTP (stdlib `ThreadingHTTPServer` in a thread), in-memory shops, products, orders and uploads,
a Bearer token check, optional rate limits on an injectable clock, injectable faults (429 with and
without Retry-After, 5xx, slow answers, malformed JSON) and a helper that delivers signed webhooks.

    with FakePrintifyServer() as fake:
        client = PrintifyClient(fake.token, base_url=fake.base_url)

or the `printify_server` fixture (import it into a test module or conftest).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import io
import json
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from storefront.services.printify.demo_catalogue import (
    CATALOGUE_BLUEPRINTS,
    CATALOGUE_PRINT_PROVIDERS,
    catalogue_variants,
    format_timestamp,
    variant_cost,
)
from storefront.services.printify.errors import ProviderError
from storefront.services.printify.provider import (
    DEFAULT_PAGE_LIMIT,
    PRODUCT_LOCKED,
    PRODUCT_LOCKED_CODE,
    paginate,
    validation_error,
)
from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer

DEFAULT_TOKEN = "fake-printify-token"
DEFAULT_SHOP = {"id": 4242, "title": "Fake Printify Shop", "sales_channel": "custom_integration"}
OPERATION_FAILED_CODE = 8502
#: Test control (not part of Printify's API): POST {"external_id": ...} ships that order.
CONTROL_SHIP_PATH = "/_control/ship"
#: Product mockups (Printify's image CDN in the real world) are served under this path.
MOCKUPS_PATH = "/mockups/"
NOT_FOUND = {"error": "Not found"}
UNAUTHENTICATED = {"message": "Unauthenticated."}
CANCELLABLE = ("on-hold", "payment-not-received")
REQUIRED_ADDRESS = ("first_name", "last_name", "country", "address1", "city", "zip")


class FakeHttpError(Exception):
    """Answer `status` with `body` (raised by route handlers)."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


def _error_body(code: int, message: str, reason: str) -> dict[str, Any]:
    """Printify's error body shape (contract §9)."""
    return {"status": "error", "code": code, "message": message, "errors": {"reason": reason, "code": code}}


def _validation(reason: str) -> FakeHttpError:
    error = validation_error(reason)
    return FakeHttpError(400, error.details)


@dataclass
class Fault:
    """One injected misbehaviour; `times=None` keeps it until cleared."""

    kind: str  # "status", "after" (processed, then `status`), "slow" or "malformed"
    status: int = 500
    retry_after: str | None = None
    delay: float = 0.0
    body: Any = None
    method: str | None = None
    path: str | None = None  # a substring of the request path
    times: int | None = 1

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (self.path is None or self.path in path)


@dataclass
class RecordedRequest:
    """What the fake received, with the fake clock's time and the status it answered."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float
    status: int = 0

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class _Limit:
    limit: int
    window: float
    hits: list[float] = field(default_factory=list)

    def allow(self, now: float) -> bool:
        self.hits = [t for t in self.hits if t > now - self.window]
        if len(self.hits) >= self.limit:
            return False
        self.hits.append(now)
        return True


def make_product(shop_id: int, title: str, *, product_id: str | None = None, price: int = 2500,
                 blueprint_id: int = 384, print_provider_id: int = 29, sizes: tuple[str, ...] = ("S", "M", "L"),
                 colours: tuple[str, ...] = ("White",), visible: bool = True) -> dict[str, Any]:
    """A Printify-shaped product (contract §5) for seeding the fake."""
    catalogue = [
        v for v in catalogue_variants(blueprint_id)
        if v["options"]["color"] in colours and v["options"]["size"] in sizes
    ]
    return _product_from_variants(
        shop_id, product_id or secrets.token_hex(12), title, "", [], blueprint_id, print_provider_id,
        [(v, price, True) for v in catalogue], visible=visible,
    )


def _product_from_variants(shop_id: int, product_id: str, title: str, description: str, tags: list[str],
                           blueprint_id: int, print_provider_id: int,
                           chosen: list[tuple[dict, int, bool]], *, visible: bool = False,
                           print_areas: list | None = None) -> dict[str, Any]:
    colours = list(dict.fromkeys(v["options"]["color"] for v, _, _ in chosen))
    sizes = list(dict.fromkeys(v["options"]["size"] for v, _, _ in chosen))
    colour_ids = {c: 500 + i for i, c in enumerate(colours)}
    size_ids = {s: 1000 + i for i, s in enumerate(sizes)}
    variants = [
        {
            "id": v["id"],
            "sku": f"{product_id[:8].upper()}-{v['id']}",
            "cost": variant_cost(blueprint_id, print_provider_id, v["options"]["size"]),
            "price": price,
            "title": v["title"],
            "grams": 170,
            "is_enabled": enabled,
            "is_default": i == 0,
            "is_available": True,
            "is_printify_express_eligible": False,
            "options": [colour_ids[v["options"]["color"]], size_ids[v["options"]["size"]]],
        }
        for i, (v, price, enabled) in enumerate(chosen)
    ]
    now = format_timestamp(datetime.now(UTC))
    return {
        "id": product_id,
        "title": title,
        "description": description,
        "safety_information": "",
        "tags": tags,
        "options": [
            {"name": "Colors", "type": "color", "values": [{"id": i, "title": c} for c, i in colour_ids.items()]},
            {"name": "Sizes", "type": "size", "values": [{"id": i, "title": s} for s, i in size_ids.items()]},
        ],
        "variants": variants,
        "images": [
            {
                "src": f"https://images-api.printify.com/mockup/{product_id}/{colour}.jpg",
                "variant_ids": [v["id"] for v, _, _ in chosen if v["options"]["color"] == colour],
                "position": "front",
                "is_default": i == 0,
                "is_selected_for_publishing": True,
                "order": None,
            }
            for i, colour in enumerate(colours)
        ],
        "created_at": now,
        "updated_at": now,
        "visible": visible,
        "is_locked": False,
        "blueprint_id": blueprint_id,
        "user_id": 1,
        "shop_id": shop_id,
        "print_provider_id": print_provider_id,
        "print_areas": print_areas or [],
        "print_details": {"print_on_side": "off"},
        "sales_channel_properties": [],
        "is_printify_express_eligible": False,
        "is_printify_express_enabled": False,
        "is_economy_shipping_eligible": False,
        "is_economy_shipping_enabled": False,
    }


def sign_webhook(body: bytes, secret: str) -> str:
    """The X-Pfy-Signature value for `body`: "sha256=" + hex HMAC-SHA256 of the raw bytes."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def webhook_event(topic: str, resource_id: str | int, resource_type: str, data: dict | None,
                  *, event_id: str | None = None) -> dict[str, Any]:
    """A webhook envelope (contract §8)."""
    return {
        "id": event_id or str(uuid.uuid4()),
        "type": topic,
        "created_at": format_timestamp(datetime.now(UTC)),
        "resource": {"id": resource_id, "type": resource_type, "data": data},
    }


def deliver_webhook(url: str, event: dict[str, Any], secret: str | None, *, signature: str | None = None,
                    timeout: float = 5.0) -> httpx.Response:
    """POST `event` to `url` like Printify: raw JSON body signed with `secret` (or the given `signature`)."""
    body = json.dumps(event).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "Printify-Webhooks"}
    if signature is not None:
        headers["X-Pfy-Signature"] = signature
    elif secret is not None:
        headers["X-Pfy-Signature"] = sign_webhook(body, secret)
    return httpx.post(url, content=body, headers=headers, timeout=timeout)


_Route = tuple[str, re.Pattern[str], str]
_ROUTES: list[_Route] = [
    (method, re.compile(rf"^/v1/{pattern}\.json$"), handler)
    for method, pattern, handler in (
        ("GET", r"shops", "list_shops"),
        ("GET", r"shops/(?P<sid>\d+)/products", "list_products"),
        ("POST", r"shops/(?P<sid>\d+)/products", "create_product"),
        ("GET", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)", "get_product"),
        ("PUT", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)", "update_product"),
        ("DELETE", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)", "delete_product"),
        ("POST", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)/publish", "publish"),
        ("POST", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)/publishing_succeeded", "publishing_succeeded"),
        ("POST", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)/publishing_failed", "publishing_failed"),
        ("POST", r"shops/(?P<sid>\d+)/products/(?P<pid>\w+)/unpublish", "unpublish"),
        ("GET", r"shops/(?P<sid>\d+)/orders", "list_orders"),
        ("POST", r"shops/(?P<sid>\d+)/orders", "create_order"),
        ("POST", r"shops/(?P<sid>\d+)/orders/shipping", "shipping_cost"),
        ("GET", r"shops/(?P<sid>\d+)/orders/(?P<oid>\w+)", "get_order"),
        ("POST", r"shops/(?P<sid>\d+)/orders/(?P<oid>\w+)/send_to_production", "send_to_production"),
        ("POST", r"shops/(?P<sid>\d+)/orders/(?P<oid>\w+)/cancel", "cancel_order"),
        ("GET", r"catalog/blueprints", "list_blueprints"),
        ("GET", r"catalog/blueprints/(?P<bp>\d+)", "get_blueprint"),
        ("GET", r"catalog/blueprints/(?P<bp>\d+)/print_providers", "blueprint_providers"),
        ("GET", r"catalog/blueprints/(?P<bp>\d+)/print_providers/(?P<pp>\d+)/variants", "catalog_variants"),
        ("GET", r"uploads", "list_uploads"),
        ("GET", r"uploads/(?P<uid>\w+)", "get_upload"),
        ("POST", r"uploads/images", "upload_image"),
    )
]


class FakePrintify:
    """The fake's state and behaviour, independent of HTTP (the server wraps it)."""

    def __init__(self, token: str = DEFAULT_TOKEN, *, shops: list[dict] | None = None,
                 clock: Callable[[], float] = time.monotonic, rate_limit: bool = False,
                 costing_seconds: float = 0.0) -> None:
        self.token = token
        self.clock = clock
        self.rate_limit = rate_limit
        #: How long a new order stays "pending" (cost calculation) before it is "on-hold".
        self.costing_seconds = costing_seconds
        self.shops: list[dict] = copy.deepcopy(shops if shops is not None else [DEFAULT_SHOP])
        self.products: dict[int, dict[str, dict]] = {s["id"]: {} for s in self.shops}
        self.orders: dict[int, dict[str, dict]] = {s["id"]: {} for s in self.shops}
        self.uploads: dict[str, dict] = {}
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self._order_created_at: dict[str, float] = {}
        self._limits = {"overall": _Limit(600, 60.0), "catalog": _Limit(100, 60.0), "publish": _Limit(200, 1800.0)}
        self.lock = threading.RLock()
        #: Where product mockups are served ("http://127.0.0.1:<port>/mockups"); None keeps Printify's URLs.
        self.image_base: str | None = None
        #: Where `ship()` delivers its signed order:shipment:created webhook, and the secret that signs it.
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        self._mockups: dict[str, bytes] = {}

    @property
    def shop_id(self) -> int:
        return self.shops[0]["id"]

    # ------------------------------------------------------------------ test controls

    def add_product(self, title: str, *, shop_id: int | None = None, **kwargs: Any) -> dict:
        """Seed a product (newest first in listings); returns a copy."""
        shop_id = shop_id or self.shop_id
        product = make_product(shop_id, title, **kwargs)
        if self.image_base is not None:
            for image in product["images"]:
                colour = image["src"].rsplit("/", 1)[-1].removesuffix(".jpg")
                image["src"] = f"{self.image_base}/{product['id']}/{colour}.png"
        with self.lock:
            self.products[shop_id][product["id"]] = product
        return copy.deepcopy(product)

    def remove_product(self, product_id: str, *, shop_id: int | None = None) -> None:
        with self.lock:
            del self.products[shop_id or self.shop_id][product_id]

    def all_orders(self, shop_id: int | None = None) -> list[dict]:
        with self.lock:
            return copy.deepcopy(list(self.orders[shop_id or self.shop_id].values()))

    def set_order_status(self, order_id: str, status: str, *, shop_id: int | None = None) -> dict:
        with self.lock:
            order = self.orders[shop_id or self.shop_id][order_id]
            order["status"] = status
            return copy.deepcopy(order)

    def add_shipment(self, order_id: str, carrier: str = "usps", number: str = "9400111899223197428490",
                     url: str | None = None, *, shop_id: int | None = None) -> dict:
        """Ship every line of an order (status fulfilled) with one tracked parcel."""
        with self.lock:
            order = self.orders[shop_id or self.shop_id][order_id]
            now = format_timestamp(datetime.now(UTC))
            order["shipments"].append({
                "carrier": carrier, "number": number, "delivered_at": None,
                "url": url or f"https://tools.usps.com/go/TrackConfirmAction?tLabels={number}",
            })
            order["status"] = "fulfilled"
            order["fulfilled_at"] = now
            for line in order["line_items"]:
                line.update(status="fulfilled", fulfilled_at=now)
            return copy.deepcopy(order)

    def ship(self, external_id: str, *, shop_id: int | None = None) -> dict:
        """Ship the order whose metadata.shop_order_id is `external_id` and, when a webhook URL is set,
        deliver the signed order:shipment:created event to it; returns the shipped order."""
        with self.lock:
            orders = self.orders[shop_id or self.shop_id]
            found = next((o for o in orders.values() if o["metadata"].get("shop_order_id") == external_id), None)
            if found is None:
                raise FakeHttpError(404, NOT_FOUND)
        order = self.add_shipment(found["id"], shop_id=shop_id)
        if self.webhook_url:
            shipment = order["shipments"][-1]
            data = {
                "shop_id": shop_id or self.shop_id,
                "shipped_at": order["fulfilled_at"],
                "carrier": {"code": shipment["carrier"], "tracking_number": shipment["number"],
                            "tracking_url": shipment["url"]},
                "skus": [line["metadata"]["sku"] for line in order["line_items"]],
            }
            self.deliver_webhook(self.webhook_url, "order:shipment:created", order["id"], data,
                                 secret=self.webhook_secret)
        return order

    def mockup(self, path: str) -> bytes | None:
        """The PNG for /mockups/<product id>/<colour>.png: the product's garment in that colour."""
        match = re.fullmatch(r"/mockups/(\w+)/([\w-]+)\.png", path)
        if match is None:
            return None
        if path not in self._mockups:
            from storefront.services.media.demo_images import (
                render_garment,  # Pillow, only when images are asked for
            )
            from storefront.services.printify.demo_catalogue import COLOURS

            colours = {name.lower().replace(" ", "-"): hex_ for name, hex_ in COLOURS.items()}
            primary = colours.get(match.group(2).lower(), "#dddddd")
            with self.lock:
                product = next((p for shop in self.products.values() for p in shop.values()
                                if p["id"] == match.group(1)), None)
            label = "".join(word[0] for word in (product or {}).get("title", "Fake").split()[:3]).upper()
            image = render_garment("tee", primary, "#777777", label, size=600)
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            self._mockups[path] = buffer.getvalue()
        return self._mockups[path]

    def inject(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.append(fault)
        return fault

    def fail_with(self, status: int = 500, *, retry_after: str | None = None, body: Any = None,
                  times: int | None = 1, method: str | None = None, path: str | None = None) -> Fault:
        """Answer the next `times` matching requests with `status` (a 429 gets no Retry-After unless given)."""
        if body is None:
            body = {"status": "error", "code": status, "message": "Too Many Attempts." if status == 429
                    else "Internal server error."}
        return self.inject(Fault("status", status, retry_after, body=body, times=times, method=method, path=path))

    def fail_after_processing(self, status: int = 502, *, times: int | None = 1, method: str | None = None,
                              path: str | None = None) -> Fault:
        """Handle the next matching requests, then answer `status` (a gateway losing the answer)."""
        body = {"status": "error", "code": status, "message": "Bad gateway."}
        return self.inject(Fault("after", status, body=body, times=times, method=method, path=path))

    def answer_slowly(self, delay: float, *, times: int | None = 1, method: str | None = None,
                      path: str | None = None) -> Fault:
        """Handle the next matching requests normally but hold the answer `delay` seconds."""
        return self.inject(Fault("slow", delay=delay, times=times, method=method, path=path))

    def answer_malformed(self, *, times: int | None = 1, method: str | None = None, path: str | None = None) -> Fault:
        """Answer the next matching requests 200 with a body that is not JSON."""
        return self.inject(Fault("malformed", status=200, times=times, method=method, path=path))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def requests_to(self, method: str, path_part: str) -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.method == method and path_part in r.path]

    def deliver_webhook(self, url: str, topic: str, resource_id: str | int, data: dict | None = None, *,
                        secret: str | None, resource_type: str | None = None, signature: str | None = None,
                        event_id: str | None = None) -> httpx.Response:
        """Deliver a signed event about this shop to `url`; `data` defaults to {"shop_id": ...}."""
        kind = resource_type or topic.split(":")[0]
        event = webhook_event(topic, resource_id, kind, {"shop_id": self.shop_id} if data is None else data,
                              event_id=event_id)
        return deliver_webhook(url, event, secret, signature=signature)

    # ------------------------------------------------------------------ dispatch

    def take_fault(self, method: str, path: str, *, mockups: bool = False) -> Fault | None:
        """The first fault matching the request (used up once its `times` run out). A mockup
        request only meets faults whose path names the mockups."""
        with self.lock:
            for fault in self.faults:
                if mockups and not (fault.path and fault.path.startswith(MOCKUPS_PATH)):
                    continue
                if fault.matches(method, path):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    def check_limits(self, method: str, path: str) -> bool:
        """False when a rate limit refuses this request (contract §2)."""
        if not self.rate_limit:
            return True
        now = self.clock()
        with self.lock:
            if not self._limits["overall"].allow(now):
                return False
            if "/catalog/" in path and not self._limits["catalog"].allow(now):
                return False
            if path.endswith("/publish.json") and not self._limits["publish"].allow(now):
                return False
        return True

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        """Route one authenticated request; returns (status, JSON body)."""
        for route_method, pattern, name in _ROUTES:
            match = pattern.match(path)
            if match and route_method == method:
                try:
                    with self.lock:
                        return getattr(self, f"_{name}")(query=query, body=body, **match.groupdict())
                except FakeHttpError as error:
                    return error.status, error.body
                except ProviderError as error:  # paginate() and validation_error() speak ProviderError
                    return error.status or 400, error.details
        return 404, NOT_FOUND

    # ------------------------------------------------------------------ routes (called with the lock held)

    def _shop(self, sid: str) -> int:
        shop_id = int(sid)
        if shop_id not in self.products:
            raise FakeHttpError(404, NOT_FOUND)
        return shop_id

    def _product(self, sid: str, pid: str) -> dict:
        product = self.products[self._shop(sid)].get(pid)
        if product is None:
            raise FakeHttpError(404, NOT_FOUND)
        return product

    def _order(self, sid: str, oid: str) -> dict:
        order = self.orders[self._shop(sid)].get(oid)
        if order is None:
            raise FakeHttpError(404, NOT_FOUND)
        if order["status"] == "pending" and self.clock() - self._order_created_at[oid] >= self.costing_seconds:
            order["status"] = "on-hold"
        return order

    @staticmethod
    def _page_args(query: dict[str, str]) -> tuple[int, int]:
        try:
            return int(query.get("page", 1)), int(query.get("limit", DEFAULT_PAGE_LIMIT))
        except ValueError:
            raise _validation("page: The page and limit must be integers.") from None

    def _list_shops(self, **_: Any) -> tuple[int, Any]:
        return 200, copy.deepcopy(self.shops)

    def _list_products(self, sid: str, query: dict[str, str], **_: Any) -> tuple[int, Any]:
        products = list(reversed(self.products[self._shop(sid)].values()))
        return 200, copy.deepcopy(paginate(products, *self._page_args(query)))

    def _get_product(self, sid: str, pid: str, **_: Any) -> tuple[int, Any]:
        return 200, copy.deepcopy(self._product(sid, pid))

    def _create_product(self, sid: str, body: Any, **_: Any) -> tuple[int, Any]:
        shop_id = self._shop(sid)
        if not isinstance(body, dict):
            raise _validation("The request body must be a JSON object.")
        if not isinstance(body.get("title"), str) or not body["title"].strip():
            raise _validation("title: The title field is required.")
        blueprint_id, provider_id = body.get("blueprint_id"), body.get("print_provider_id")
        if blueprint_id not in CATALOGUE_BLUEPRINTS:
            raise _validation("blueprint_id: The selected blueprint id is invalid.")
        if provider_id not in CATALOGUE_PRINT_PROVIDERS:
            raise _validation("print_provider_id: The selected print provider id is invalid.")
        catalogue = {v["id"]: v for v in catalogue_variants(blueprint_id)}
        items = body.get("variants")
        if not isinstance(items, list) or not items:
            raise _validation("variants: The variants field is required.")
        chosen = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or item.get("id") not in catalogue:
                raise _validation(f"variants.{i}.id: The selected variants.{i}.id is invalid.")
            price = item.get("price")
            if isinstance(price, bool) or not isinstance(price, int) or price < 0:
                raise _validation(f"variants.{i}.price: The variants.{i}.price must be an integer.")
            chosen.append((catalogue[item["id"]], price, bool(item.get("is_enabled", True))))
        self._check_print_areas(body.get("print_areas"), {v["id"] for v, _, _ in chosen})
        product = _product_from_variants(
            shop_id, secrets.token_hex(12), body["title"], body.get("description", ""), body.get("tags", []),
            blueprint_id, provider_id, chosen, print_areas=body.get("print_areas"),
        )
        self.products[shop_id][product["id"]] = product
        return 200, copy.deepcopy(product)

    def _check_print_areas(self, areas: Any, variant_ids: set[int]) -> None:
        """Printify makes a product only as a design on a blank: an area naming uploaded images."""
        if not isinstance(areas, list) or not areas:
            raise _validation("print_areas: The print areas field is required.")
        for i, area in enumerate(areas):
            ids = area.get("variant_ids") if isinstance(area, dict) else None
            if not isinstance(ids, list) or not ids or not set(ids) <= variant_ids:
                raise _validation(f"print_areas.{i}.variant_ids: The selected variant ids are invalid.")
            for j, placeholder in enumerate(area.get("placeholders") or [None]):
                images = placeholder.get("images") if isinstance(placeholder, dict) else None
                if placeholder is None or placeholder.get("position") not in ("front", "back") or not images:
                    raise _validation(f"print_areas.{i}.placeholders.{j}: The placeholder is invalid.")
                for k, image in enumerate(images):
                    if not isinstance(image, dict) or image.get("id") not in self.uploads:
                        raise _validation(f"print_areas.{i}.placeholders.{j}.images.{k}.id: The image id is invalid.")
                    if isinstance(image.get("angle"), bool) or not isinstance(image.get("angle"), int):
                        raise _validation(
                            f"print_areas.{i}.placeholders.{j}.images.{k}.angle: The angle must be an integer."
                        )

    def _update_product(self, sid: str, pid: str, body: Any, **_: Any) -> tuple[int, Any]:
        product = self._product(sid, pid)
        if product["is_locked"]:
            raise FakeHttpError(400, _error_body(PRODUCT_LOCKED_CODE, PRODUCT_LOCKED, PRODUCT_LOCKED))
        if not isinstance(body, dict):
            raise _validation("The request body must be a JSON object.")
        for key in ("title", "description", "tags", "images"):
            if key in body:
                product[key] = body[key]
        by_id = {v["id"]: v for v in product["variants"]}
        for i, item in enumerate(body.get("variants") or []):
            if not isinstance(item, dict) or item.get("id") not in by_id:
                raise _validation(f"variants.{i}.id: The selected variants.{i}.id is invalid.")
            by_id[item["id"]].update({k: item[k] for k in ("price", "is_enabled") if k in item})
        product["updated_at"] = format_timestamp(datetime.now(UTC))
        return 200, copy.deepcopy(product)

    def _delete_product(self, sid: str, pid: str, **_: Any) -> tuple[int, Any]:
        self._product(sid, pid)
        del self.products[int(sid)][pid]
        return 200, {}

    def _publish(self, sid: str, pid: str, body: Any, **_: Any) -> tuple[int, Any]:
        product = self._product(sid, pid)
        if product["is_locked"]:
            raise FakeHttpError(400, _error_body(PRODUCT_LOCKED_CODE, PRODUCT_LOCKED, PRODUCT_LOCKED))
        for key, value in (body or {}).items():
            if not isinstance(value, bool):
                raise _validation(f"{key}: The {key} field must be true or false.")
        product["is_locked"] = True
        return 200, {}

    def _publishing_succeeded(self, sid: str, pid: str, body: Any, **_: Any) -> tuple[int, Any]:
        product = self._product(sid, pid)
        external = (body or {}).get("external")
        if not isinstance(external, dict) or not all(isinstance(external.get(k), str) for k in ("id", "handle")):
            raise _validation("external: The external id and handle fields are required.")
        product.update(is_locked=False, visible=True, external={"id": external["id"], "handle": external["handle"]})
        return 200, {}

    def _publishing_failed(self, sid: str, pid: str, body: Any, **_: Any) -> tuple[int, Any]:
        product = self._product(sid, pid)
        if not isinstance((body or {}).get("reason"), str):
            raise _validation("reason: The reason field is required.")
        product["is_locked"] = False
        return 200, {}

    def _unpublish(self, sid: str, pid: str, **_: Any) -> tuple[int, Any]:
        self._product(sid, pid)["visible"] = False
        return 200, {}

    def _list_orders(self, sid: str, query: dict[str, str], **_: Any) -> tuple[int, Any]:
        shop_id = self._shop(sid)
        orders = [self._order(sid, oid) for oid in reversed(self.orders[shop_id])]
        if query.get("status"):
            orders = [o for o in orders if o["status"] == query["status"]]
        if query.get("sku"):
            orders = [o for o in orders if any(li["metadata"]["sku"] == query["sku"] for li in o["line_items"])]
        return 200, copy.deepcopy(paginate(orders, *self._page_args(query)))

    def _line_item(self, shop_id: int, where: str, item: Any) -> tuple[dict, dict, int]:
        if not isinstance(item, dict):
            raise _validation(f"{where}: The line item must be an object.")
        product, variant = None, None
        if "product_id" not in item and isinstance(item.get("sku"), str):
            for candidate in self.products[shop_id].values():
                for v in candidate["variants"]:
                    if v["sku"] == item["sku"]:
                        product, variant = candidate, v
            if variant is None:
                raise _validation(f"{where}.sku: The selected sku is invalid.")
        else:
            product = self.products[shop_id].get(item.get("product_id"))
            if product is None:
                raise _validation(f"{where}.product_id: The selected product does not exist.")
            variant = next((v for v in product["variants"] if v["id"] == item.get("variant_id")), None)
            if variant is None:
                raise _validation(f"{where}.variant_id: The selected variant does not belong to the product.")
        quantity = item.get("quantity")
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise _validation(f"{where}.quantity: The {where}.quantity must be at least 1.")
        return product, variant, quantity

    def _create_order(self, sid: str, body: Any, **_: Any) -> tuple[int, Any]:
        shop_id = self._shop(sid)
        if not isinstance(body, dict):
            raise _validation("The request body must be a JSON object.")
        items = body.get("line_items")
        if not isinstance(items, list) or not items:
            raise _validation("line_items: The line items field is required.")
        rows = [self._line_item(shop_id, f"line_items.{i}", item) for i, item in enumerate(items)]
        address = body.get("address_to")
        if not isinstance(address, dict):
            raise _validation("address_to: The address to field is required.")
        for name in REQUIRED_ADDRESS:
            if not isinstance(address.get(name), str) or not address[name].strip():
                raise _validation(f"address_to.{name}: The address to.{name.replace('_', ' ')} field is required.")
        order_id = secrets.token_hex(12)
        now = format_timestamp(datetime.now(UTC))
        self.orders[shop_id][order_id] = {
            "id": order_id,
            "address_to": copy.deepcopy(address),
            "line_items": [
                {
                    "product_id": product["id"], "quantity": quantity, "variant_id": variant["id"],
                    "print_provider_id": product["print_provider_id"], "cost": variant["cost"] * quantity,
                    "shipping_cost": 499 if i == 0 else 0, "status": "pending",
                    "metadata": {"title": product["title"], "price": variant["price"],
                                 "variant_label": variant["title"], "sku": variant["sku"], "country": "United States"},
                    "sent_to_production_at": None, "fulfilled_at": None,
                }
                for i, (product, variant, quantity) in enumerate(rows)
            ],
            "metadata": {"order_type": "api", "shop_order_id": body.get("external_id"),
                         "shop_order_label": body.get("label") or body.get("external_id"), "shop_fulfilled_at": None},
            "total_price": sum(v["price"] * q for _, v, q in rows),
            "total_shipping": 499,
            "total_tax": 0,
            "status": "pending",
            "shipping_method": body.get("shipping_method", 1),
            "is_printify_express": bool(body.get("is_printify_express", False)),
            "is_economy_shipping": bool(body.get("is_economy_shipping", False)),
            "shipments": [],
            "created_at": now,
            "sent_to_production_at": None,
            "fulfilled_at": None,
        }
        self._order_created_at[order_id] = self.clock()
        return 200, {"id": order_id}

    def _get_order(self, sid: str, oid: str, **_: Any) -> tuple[int, Any]:
        return 200, copy.deepcopy(self._order(sid, oid))

    def _send_to_production(self, sid: str, oid: str, **_: Any) -> tuple[int, Any]:
        order = self._order(sid, oid)
        if order["status"] != "on-hold":
            raise FakeHttpError(400, _error_body(OPERATION_FAILED_CODE, "Operation failed.",
                                                 f"Order in status {order['status']!r} cannot be sent to production."))
        now = format_timestamp(datetime.now(UTC))
        order.update(status="sending-to-production", sent_to_production_at=now)
        for line in order["line_items"]:
            line.update(status="sending-to-production", sent_to_production_at=now)
        return 200, copy.deepcopy(order)

    def _cancel_order(self, sid: str, oid: str, **_: Any) -> tuple[int, Any]:
        order = self._order(sid, oid)
        if order["status"] not in CANCELLABLE:
            raise FakeHttpError(400, _error_body(OPERATION_FAILED_CODE, "Operation failed.",
                                                 f"Order in status {order['status']!r} cannot be canceled."))
        order["status"] = "canceled"
        return 200, copy.deepcopy(order)

    def _shipping_cost(self, sid: str, body: Any, **_: Any) -> tuple[int, Any]:
        shop_id = self._shop(sid)
        items = (body or {}).get("line_items") if isinstance(body, dict) else None
        if not isinstance(items, list) or not items:
            raise _validation("line_items: The line items field is required.")
        count = sum(self._line_item(shop_id, f"line_items.{i}", item)[2] for i, item in enumerate(items))
        standard = 499 + 250 * (count - 1)
        return 200, {"standard": standard, "express": standard + 800, "priority": standard + 500,
                     "printify_express": standard + 300, "economy": max(standard - 100, 0)}

    def _list_blueprints(self, **_: Any) -> tuple[int, Any]:
        return 200, [self._blueprint(bp) for bp in CATALOGUE_BLUEPRINTS]

    @staticmethod
    def _blueprint(bp: int) -> dict[str, Any]:
        blueprint = CATALOGUE_BLUEPRINTS[bp]
        return {"id": bp, "title": blueprint.title, "description": f"<p>{blueprint.title}</p>", "brand": "Bella+Canvas",
                "model": str(3000 + bp), "images": [f"https://images.printify.com/{bp}.png"]}

    def _get_blueprint(self, bp: str, **_: Any) -> tuple[int, Any]:
        if int(bp) not in CATALOGUE_BLUEPRINTS:
            raise FakeHttpError(404, NOT_FOUND)
        return 200, self._blueprint(int(bp))

    def _blueprint_providers(self, bp: str, **_: Any) -> tuple[int, Any]:
        if int(bp) not in CATALOGUE_BLUEPRINTS:
            raise FakeHttpError(404, NOT_FOUND)
        return 200, [{"id": pp, "title": title} for pp, title in CATALOGUE_PRINT_PROVIDERS.items()]

    def _catalog_variants(self, bp: str, pp: str, **_: Any) -> tuple[int, Any]:
        if int(bp) not in CATALOGUE_BLUEPRINTS or int(pp) not in CATALOGUE_PRINT_PROVIDERS:
            raise FakeHttpError(404, NOT_FOUND)
        return 200, {
            "id": int(pp),
            "title": CATALOGUE_PRINT_PROVIDERS[int(pp)],
            "variants": [
                {**v, "cost": variant_cost(int(bp), int(pp), v["options"]["size"])} for v in catalogue_variants(int(bp))
            ],
        }

    def _list_uploads(self, query: dict[str, str], **_: Any) -> tuple[int, Any]:
        return 200, copy.deepcopy(paginate(list(reversed(self.uploads.values())), *self._page_args(query)))

    def _get_upload(self, uid: str, **_: Any) -> tuple[int, Any]:
        if uid not in self.uploads:
            raise FakeHttpError(404, NOT_FOUND)
        return 200, copy.deepcopy(self.uploads[uid])

    def _upload_image(self, body: Any, **_: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("file_name"), str):
            raise _validation("file_name: The file name field is required.")
        if not isinstance(body.get("url"), str) and not isinstance(body.get("contents"), str):
            raise _validation("url: The url field is required when contents is not present.")
        upload_id = secrets.token_hex(12)
        self.uploads[upload_id] = {
            "id": upload_id, "file_name": body["file_name"], "height": 5100, "width": 4500,
            "size": len(body.get("contents") or "") or 1024, "mime_type": "image/png",
            "preview_url": f"https://images.printify.com/uploads/{upload_id}.png",
            "upload_time": format_timestamp(datetime.now(UTC)),
        }
        return 200, copy.deepcopy(self.uploads[upload_id])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a 700-request burst must not open 700 connections
    # Headers and body in one segment, sent at once: split writes on a kept-alive connection stall
    # on delayed ACKs (~40 ms a request).
    wbufsize = -1
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        fake = self.server.fake
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        record = RecordedRequest(self.command, url.path, query, dict(self.headers.items()), raw, fake.clock())
        with fake.lock:
            fake.requests.append(record)
        if self.command == "POST" and url.path == CONTROL_SHIP_PATH:
            return self._reply(record, *self._control_ship(fake, raw))
        mockup = self.command == "GET" and url.path.startswith(MOCKUPS_PATH)
        # Mockups (the image CDN, not the API) only meet the faults aimed at them by path.
        fault = fake.take_fault(self.command, url.path, mockups=mockup)
        if mockup and (fault is None or fault.kind == "slow"):
            if fault is not None:
                time.sleep(fault.delay)
            return self._reply(record, *self._mockup(fake, url.path))
        if fault is not None and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            return self._reply(record, fault.status, fault.body, headers)
        if fault is not None and fault.kind == "malformed":
            return self._reply(record, 200, None, raw_body=b'{"data": [{"id": "truncated"')
        status, body = self._answer(fake, url.path, query, raw)
        if fault is not None and fault.kind == "after":
            return self._reply(record, fault.status, fault.body)  # done, but the answer says it failed
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)  # processed, then answered too late: the client cannot know it worked
        self._reply(record, status, body)

    @staticmethod
    def _mockup(fake: FakePrintify, path: str) -> tuple[int, Any, dict[str, str], bytes | None]:
        png = fake.mockup(path)
        if png is None:
            return 404, NOT_FOUND, {}, None
        return 200, None, {"Content-Type": "image/png", "Cache-Control": "max-age=3600"}, png

    @staticmethod
    def _control_ship(fake: FakePrintify, raw: bytes) -> tuple[int, Any]:
        """Test control (not Printify's API): ship an order by its external id."""
        try:
            external_id = json.loads(raw)["external_id"]
            return 200, fake.ship(str(external_id))
        except FakeHttpError as error:
            return error.status, error.body
        except (ValueError, KeyError, TypeError):
            return 400, {"error": 'Send {"external_id": "<order number>"}'}

    def _answer(self, fake: FakePrintify, path: str, query: dict[str, str], raw: bytes) -> tuple[int, Any]:
        if self.headers.get("Authorization") != f"Bearer {fake.token}":
            return 401, UNAUTHENTICATED
        if not self.headers.get("User-Agent"):
            return 400, {"message": "A User-Agent header is required."}
        if not fake.check_limits(self.command, path):
            return 429, {"status": "error", "code": 429, "message": "Too Many Attempts."}
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return 400, _error_body(8150, "Validation failed.", "The request body is not valid JSON.")
        return fake.handle(self.command, path, query, body)

    def _reply(self, record: RecordedRequest, status: int, body: Any, headers: dict[str, str] | None = None,
               raw_body: bytes | None = None) -> None:
        payload = raw_body if raw_body is not None else json.dumps(body).encode()
        record.status = status
        headers = dict(headers or {})
        try:
            self.send_response(status)
            self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout); nothing to tell it

    do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 - http.server dispatches to do_<METHOD>



class FakePrintifyServer(FakePrintify, LoopbackServer):
    """FakePrintify served over HTTP on 127.0.0.1 at a free port; `base_url` ends in /v1/."""

    def __init__(self, token: str = DEFAULT_TOKEN, **kwargs: Any) -> None:
        super().__init__(token, **kwargs)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/"

    def start(self, port: int = 0, *, serve_images: bool = False) -> FakePrintifyServer:
        """Serve on `port` (0: a free one); `serve_images` makes new products' mockups come from here."""
        self.serve(_Handler, port, "fake-printify")
        if serve_images:
            self.image_base = f"http://127.0.0.1:{self.port}/mockups"
        return self



@pytest.fixture
def printify_server() -> Iterator[FakePrintifyServer]:
    """A running fake Printify with one empty shop (DEFAULT_SHOP), stopped afterwards."""
    with FakePrintifyServer() as server:
        yield server

