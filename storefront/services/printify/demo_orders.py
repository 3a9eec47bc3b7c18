"""The demo print provider's orders (a mixin): checked like Printify, kept in memory, moved along its statuses."""

from __future__ import annotations

import copy
import hashlib
import secrets
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from storefront.services.printify.demo_catalogue import format_timestamp
from storefront.services.printify.errors import ProviderError, ProviderNotFound
from storefront.services.printify.provider import DEFAULT_PAGE_LIMIT, paginate, validation_error

#: Shipping the demo adds to every order, in cents (Printify would quote per item and country).
DEMO_FLAT_SHIPPING_CENTS = 0
#: Order statuses advance_order() walks through, in order.
ORDER_PROGRESSION: tuple[str, ...] = ("pending", "on-hold", "in-production", "fulfilled")
OPERATION_FAILED_CODE = 8502


def _tracking_number(order_id: str) -> str:
    """A USPS-looking 22-digit tracking number derived from the order id."""
    digits = str(int(hashlib.sha1(order_id.encode()).hexdigest(), 16))
    return "9400" + digits[:18].rjust(18, "0")


_REQUIRED_ADDRESS_FIELDS = ("first_name", "last_name", "country", "address1", "city", "zip")


class DemoOrders:
    """The orders of DemoPrintProvider, which sets the attributes below and checks the shop."""

    _products: list[dict[str, Any]]
    _by_id: dict[str, dict[str, Any]]
    _orders: dict[str, dict[str, Any]]
    _order_ids: list[str]
    _lock: threading.Lock
    _clock: Callable[[], datetime]
    _check_shop: Callable[[int], None]
    flat_shipping_cents: int
    costing_seconds: float | None
    production_seconds: float | None

    def _validate_order(self, order: object) -> tuple[list[tuple[dict, dict, int, dict]], dict]:
        """Check an order body like Printify; returns (product, variant, quantity, item) rows and address."""
        if not isinstance(order, dict):
            raise validation_error("The request body must be a JSON object.")
        external_id = order.get("external_id")
        if external_id is not None and not isinstance(external_id, str):
            raise validation_error("external_id: The external id must be a string.")
        shipping_method = order.get("shipping_method", 1)
        if isinstance(shipping_method, bool) or shipping_method not in (1, 2, 3, 4):
            raise validation_error("shipping_method: The selected shipping method is invalid.")
        items = order.get("line_items")
        if not isinstance(items, list) or not items:
            raise validation_error("line_items: The line items field is required.")
        rows: list[tuple[dict, dict, int, dict]] = []
        for i, item in enumerate(items):
            where = f"line_items.{i}"
            if not isinstance(item, dict):
                raise validation_error(f"{where}: The line item must be an object.")
            product, variant = self._resolve_line_item(where, item)
            if not variant["is_enabled"]:
                raise validation_error(f"{where}.variant_id: The selected variant is disabled.")
            if not variant["is_available"]:
                raise validation_error(f"{where}.variant_id: The selected variant is out of stock.")
            quantity = item.get("quantity")
            if isinstance(quantity, bool) or not isinstance(quantity, int):
                raise validation_error(f"{where}.quantity: The {where}.quantity must be an integer.")
            if quantity < 1:
                raise validation_error(f"{where}.quantity: The {where}.quantity must be at least 1.")
            rows.append((product, variant, quantity, item))
        address = order.get("address_to")
        if not isinstance(address, dict):
            raise validation_error("address_to: The address to field is required.")
        for field in _REQUIRED_ADDRESS_FIELDS:
            value = address.get(field)
            if not isinstance(value, str) or not value.strip():
                raise validation_error(
                    f"address_to.{field}: The address to.{field.replace('_', ' ')} field is required."
                )
        country = address["country"].strip()
        if len(country) != 2 or not country.isalpha():
            raise validation_error("address_to.country: The selected address to.country is invalid.")
        return rows, address

    def _resolve_line_item(self, where: str, item: dict) -> tuple[dict, dict]:
        """The product and variant a line item names, by product_id + variant_id or by sku."""
        if "product_id" not in item and isinstance(item.get("sku"), str):
            for candidate in self._products:
                for variant in candidate["variants"]:
                    if variant["sku"] == item["sku"]:
                        return candidate, variant
            raise validation_error(f"{where}.sku: The selected sku is invalid.")
        product_id = item.get("product_id")
        if not isinstance(product_id, str) or not product_id:
            raise validation_error(f"{where}.product_id: The {where}.product_id field is required.")
        product = self._by_id.get(product_id)
        if product is None:
            raise validation_error(f"{where}.product_id: The selected product does not exist.")
        variant_id = item.get("variant_id")
        if isinstance(variant_id, bool) or not isinstance(variant_id, int):
            raise validation_error(f"{where}.variant_id: The {where}.variant_id must be an integer.")
        variant = next((v for v in product["variants"] if v["id"] == variant_id), None)
        if variant is None:
            raise validation_error(f"{where}.variant_id: The selected variant does not belong to the product.")
        return product, variant

    def create_order(self, shop_id: int, order: dict) -> dict:
        """Validate and store an order with status "pending"; returns only {"id": ...}."""
        self._check_shop(shop_id)
        rows, address = self._validate_order(order)
        now = format_timestamp(self._clock())
        line_items = []
        for position, (product, variant, quantity, item) in enumerate(rows):
            line: dict[str, Any] = {
                "product_id": product["id"],
                "quantity": quantity,
                "variant_id": variant["id"],
                "print_provider_id": product["print_provider_id"],
                "cost": variant["cost"] * quantity,
                "shipping_cost": self.flat_shipping_cents if position == 0 else 0,
                "status": "pending",
                "metadata": {
                    "title": product["title"],
                    "price": variant["price"],
                    "variant_label": variant["title"],
                    "sku": variant["sku"],
                    "country": "United States",
                },
                "sent_to_production_at": None,
                "fulfilled_at": None,
            }
            if item.get("external_id") is not None:
                line["external_id"] = item["external_id"]
            line_items.append(line)
        external_id = order.get("external_id")
        with self._lock:
            order_id = secrets.token_hex(12)
            while order_id in self._orders:
                order_id = secrets.token_hex(12)
            self._orders[order_id] = {
                "id": order_id,
                "address_to": copy.deepcopy(address),
                "line_items": line_items,
                "metadata": {
                    "order_type": "api",
                    "shop_order_id": external_id,
                    "shop_order_label": order.get("label") or external_id,
                    "shop_fulfilled_at": None,
                },
                "total_price": sum(v["price"] * q for _, v, q, _ in rows),
                "total_shipping": self.flat_shipping_cents,
                "total_tax": 0,
                "status": "pending",
                "shipping_method": order.get("shipping_method", 1),
                "is_printify_express": bool(order.get("is_printify_express", False)),
                "is_economy_shipping": bool(order.get("is_economy_shipping", False)),
                "shipments": [],
                "created_at": now,
                "sent_to_production_at": None,
                "fulfilled_at": None,
            }
            self._order_ids.append(order_id)
        return {"id": order_id}

    def _stored_order(self, order_id: object) -> dict[str, Any]:
        """The stored order, moved on by the clock (call with the lock held); ProviderNotFound when unknown."""
        stored = self._orders.get(order_id) if isinstance(order_id, str) else None
        if stored is None:
            raise ProviderNotFound("Order not found", details={"error": "Not found"})
        self._move_on(stored)
        return stored

    def _move_on(self, stored: dict[str, Any]) -> None:
        """Apply the time-driven steps (costing, then production) that are due."""
        now = self._clock()
        if (
            stored["status"] == "pending"
            and self.costing_seconds is not None
            and now >= _parse_time(stored["created_at"]) + timedelta(seconds=self.costing_seconds)
        ):
            stored["status"] = "on-hold"
        if stored["status"] == "in-production" and self.production_seconds is not None:
            started = stored.get("sent_to_production_at")
            if started and now >= _parse_time(started) + timedelta(seconds=self.production_seconds):
                self._step(stored)

    def get_order(self, shop_id: int, order_id: str) -> dict:
        """One stored order; ProviderNotFound when unknown."""
        self._check_shop(shop_id)
        with self._lock:
            return copy.deepcopy(self._stored_order(order_id))

    def list_orders(self, shop_id: int, page: int = 1, limit: int = DEFAULT_PAGE_LIMIT) -> dict:
        """One page of the shop's orders, newest first, in Printify's envelope."""
        self._check_shop(shop_id)
        with self._lock:
            orders = [copy.deepcopy(self._stored_order(i)) for i in reversed(self._order_ids)]
        return paginate(orders, page, limit)

    def find_order_by_external_id(self, shop_id: int, external_id: str) -> dict | None:
        """The newest order whose metadata.shop_order_id is `external_id`, or None (like the real client)."""
        self._check_shop(shop_id)
        with self._lock:
            for order_id in reversed(self._order_ids):
                if self._orders[order_id]["metadata"].get("shop_order_id") == external_id:
                    return copy.deepcopy(self._stored_order(order_id))
        return None

    def send_to_production(self, shop_id: int, order_id: str) -> dict:
        """Start printing an on-hold order; Printify's 400/8502 from any other status."""
        self._check_shop(shop_id)
        with self._lock:
            stored = self._stored_order(order_id)
            if stored["status"] != "on-hold":
                raise _operation_failed(f"Order in status {stored['status']!r} cannot be sent to production.")
            self._step(stored)
            return copy.deepcopy(stored)

    def cancel_order(self, shop_id: int, order_id: str) -> dict:
        """Cancel an order not yet in production (on-hold or pending); Printify's 400/8502 otherwise."""
        self._check_shop(shop_id)
        with self._lock:
            stored = self._stored_order(order_id)
            if stored["status"] not in ("pending", "on-hold", "payment-not-received"):
                raise _operation_failed(f"Order in status {stored['status']!r} cannot be canceled.")
            stored["status"] = "canceled"
            return copy.deepcopy(stored)

    def advance_order(self, order_id: str) -> dict:
        """Move an order one step: pending -> on-hold -> in-production -> fulfilled (adds a USPS shipment)."""
        with self._lock:
            stored = self._orders.get(order_id) if isinstance(order_id, str) else None
            if stored is None:
                raise ProviderNotFound("Order not found", details={"error": "Not found"})
            self._step(stored)
            return copy.deepcopy(stored)

    def _step(self, stored: dict[str, Any]) -> None:
        """One step along ORDER_PROGRESSION (call with the lock held)."""
        status = stored["status"]
        if status not in ORDER_PROGRESSION[:-1]:
            raise _operation_failed(f"Order in status {status!r} cannot move on.")
        new_status = ORDER_PROGRESSION[ORDER_PROGRESSION.index(status) + 1]
        now = format_timestamp(self._clock())
        stored["status"] = new_status
        if new_status == "in-production":
            stored["sent_to_production_at"] = now
            for line in stored["line_items"]:
                line["status"] = "in-production"
                line["sent_to_production_at"] = now
        elif new_status == "fulfilled":
            number = _tracking_number(stored["id"])
            stored["fulfilled_at"] = now
            stored["shipments"].append(
                {
                    "carrier": "usps",
                    "number": number,
                    "url": f"https://tools.usps.com/go/TrackConfirmAction?tLabels={number}",
                    "delivered_at": None,
                }
            )
            for line in stored["line_items"]:
                line["status"] = "fulfilled"
                line["fulfilled_at"] = now


def _operation_failed(reason: str) -> ProviderError:
    """Printify's 400 "Operation failed." (code 8502) with `reason`."""
    body = {"status": "error", "code": OPERATION_FAILED_CODE, "message": "Operation failed.",
            "errors": {"reason": reason, "code": OPERATION_FAILED_CODE}}
    return ProviderError("Operation failed.", status=400, code=OPERATION_FAILED_CODE, details=body)


def _parse_time(value: str) -> datetime:
    """A Printify timestamp ("2017-04-18 13:24:28+00:00") as an aware datetime."""
    return datetime.fromisoformat(value.replace(" ", "T", 1))
