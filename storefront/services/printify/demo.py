"""An in-memory, deterministic Printify stand-in that serves the demo catalogue and takes orders."""

from __future__ import annotations

import base64
import binascii
import copy
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from PIL import Image

from storefront.services.media import demo_images
from storefront.services.media.design_mockups import place_design
from storefront.services.media.images import cutout_path, open_image
from storefront.services.platform.errors import ValidationError
from storefront.services.printify.demo_catalogue import (
    CATALOGUE_BLUEPRINTS,
    CATALOGUE_PRINT_PROVIDERS,
    DEMO_SHOP_ID,
    build_catalogue,
    catalogue_variants,
    default_anchor,
    format_timestamp,
    variant_cost,
)
from storefront.services.printify.demo_orders import DEMO_FLAT_SHIPPING_CENTS, DemoOrders
from storefront.services.printify.demo_products import (
    DesignLayer,
    created_product,
    require_bool,
    validated_changes,
)
from storefront.services.printify.errors import ProviderNotFound
from storefront.services.printify.provider import (
    PUBLISH_EVERYTHING,
    paginate,
    product_locked_error,
    validation_error,
)

DEMO_SHOP: dict[str, Any] = {"id": DEMO_SHOP_ID, "title": "Storefront Demo Shop", "sales_channel": "custom_integration"}


class DemoPrintProvider(DemoOrders):
    """PrintProvider served from memory: one shop, the demo catalogue and orders that never ship."""

    def __init__(
        self,
        media_dir: Path,
        media_url: str = "/uploads/demo",
        *,
        anchor: datetime | None = None,
        flat_shipping_cents: int = DEMO_FLAT_SHIPPING_CENTS,
        clock: Callable[[], datetime] | None = None,
        image_size: int = 800,
        costing_seconds: float | None = None,
        production_seconds: float | None = None,
    ) -> None:
        self.media_dir = Path(media_dir)
        self.media_url = media_url.rstrip("/")
        self.flat_shipping_cents = flat_shipping_cents
        self.image_size = image_size
        self._clock = clock or (lambda: datetime.now(UTC))
        products, self._renders = build_catalogue(self.media_url, anchor or default_anchor())
        self._products: list[dict[str, Any]] = products
        self._by_id: dict[str, dict[str, Any]] = {p["id"]: p for p in products}
        self._orders: dict[str, dict[str, Any]] = {}
        #: The account's uploads (id -> upload object); their images are kept under media_dir/designs.
        self._uploads: dict[str, dict[str, Any]] = {}
        #: Mockup file -> the design drawn on it.
        self._designs: dict[str, DesignLayer] = {}
        self._order_ids: list[str] = []
        #: When orders move on by themselves, as Printify's do: a new order is "pending" for
        #: costing_seconds, then "on-hold"; one sent to production is "fulfilled" (shipped) after
        #: production_seconds. None keeps them where they are until advance_order().
        self.costing_seconds = costing_seconds
        self.production_seconds = production_seconds
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ shops and products

    def _check_shop(self, shop_id: int) -> None:
        """Raise ProviderNotFound unless `shop_id` is the demo shop."""
        if isinstance(shop_id, bool) or shop_id != DEMO_SHOP_ID:
            raise ProviderNotFound("Shop not found", details={"error": "Not found"})

    def list_shops(self) -> list[dict]:
        """The single demo shop."""
        return [dict(DEMO_SHOP)]

    def list_products(self, shop_id: int, page: int = 1, limit: int = 50) -> dict:
        """One page of every product in the shop (newest first, drafts included) in Printify's envelope."""
        self._check_shop(shop_id)
        with self._lock:
            return copy.deepcopy(paginate(self._products, page, limit))

    def get_product(self, shop_id: int, product_id: str) -> dict:
        """One product by id; ProviderNotFound when unknown."""
        self._check_shop(shop_id)
        with self._lock:
            return copy.deepcopy(self._product(product_id))

    def _product(self, product_id: object) -> dict[str, Any]:
        """The stored product (call with the lock held); ProviderNotFound when unknown."""
        product = self._by_id.get(product_id) if isinstance(product_id, str) else None
        if product is None:
            raise ProviderNotFound("Product not found", details={"error": "Not found"})
        return product

    def catalog_variants(self, blueprint_id: int, print_provider_id: int) -> dict:
        """The catalogue variants of a blueprint at a print provider (every blueprint at every provider)."""
        known = (
            not isinstance(blueprint_id, bool)
            and blueprint_id in CATALOGUE_BLUEPRINTS
            and not isinstance(print_provider_id, bool)
            and print_provider_id in CATALOGUE_PRINT_PROVIDERS
        )
        if not known:
            raise ProviderNotFound("Not found", details={"error": "Not found"})
        variants = catalogue_variants(blueprint_id)
        for variant in variants:
            variant["cost"] = variant_cost(blueprint_id, print_provider_id, variant["options"]["size"])
        return {"id": print_provider_id, "title": CATALOGUE_PRINT_PROVIDERS[print_provider_id], "variants": variants}

    def upload_image(self, file_name: str, *, url: str | None = None, contents: str | None = None) -> dict:
        """Keep an image sent by its base64 contents (the demo is offline: no uploads by URL)."""
        if not isinstance(file_name, str) or not file_name.strip():
            raise validation_error("file_name: The file name field is required.")
        if not isinstance(contents, str):
            raise validation_error("contents: The demo provider takes images by their contents.")
        try:
            data = base64.b64decode(contents, validate=True)
            image = open_image(data)
        except (binascii.Error, ValueError, ValidationError):
            raise validation_error("contents: The file is not an image.") from None
        upload_id = secrets.token_hex(12)
        path = self._design_path(upload_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, format="PNG")
        upload = {
            "id": upload_id,
            "file_name": file_name,
            "height": image.height,
            "width": image.width,
            "size": len(data),
            "mime_type": "image/png" if data.startswith(b"\x89PNG") else "image/jpeg",
            "preview_url": f"{self.media_url}/designs/{upload_id}.png",
            "upload_time": format_timestamp(self._clock()),
        }
        with self._lock:
            self._uploads[upload_id] = upload
        return dict(upload)

    def _design_path(self, upload_id: str) -> Path:
        return self.media_dir / "designs" / f"{upload_id}.png"

    def create_product(self, shop_id: int, body: dict) -> dict:
        """Validate a create body like Printify, store the product unpublished, render its mockups."""
        self._check_shop(shop_id)
        with self._lock:
            product_id = secrets.token_hex(12)
            while product_id in self._by_id:
                product_id = secrets.token_hex(12)
            product, renders, designs = created_product(
                product_id, body, self._clock(), self.media_url, set(self._uploads)
            )
            self._products.insert(0, product)
            self._by_id[product_id] = product
            self._renders.update(renders)
            self._designs.update(designs)
            created = copy.deepcopy(product)
        for file_name, args in renders.items():
            self._render(file_name, args)
        return created

    def update_product(self, shop_id: int, product_id: str, changes: dict) -> dict:
        """Apply title, description, tags and variant price/is_enabled changes; refused while locked."""
        self._check_shop(shop_id)
        with self._lock:
            product = self._product(product_id)
            if product["is_locked"]:
                raise product_locked_error()
            checked = validated_changes(product, changes)
            variant_updates = checked.pop("variants", {})
            product.update(checked)
            for variant in product["variants"]:
                variant.update(variant_updates.get(variant["id"], {}))
            product["updated_at"] = format_timestamp(self._clock())
            return copy.deepcopy(product)

    def publish_product(self, shop_id: int, product_id: str, body: dict | None = None) -> dict:
        """Start a publish: the product stays locked until publishing_succeeded or publishing_failed."""
        self._check_shop(shop_id)
        if body is not None and not isinstance(body, dict):
            raise validation_error("The request body must be a JSON object.")
        for key in PUBLISH_EVERYTHING:
            if key in (body or {}):
                require_bool(key, (body or {})[key])
        with self._lock:
            product = self._product(product_id)
            if product["is_locked"]:
                raise product_locked_error()
            product["is_locked"] = True
        return {}

    def publishing_succeeded(self, shop_id: int, product_id: str, external: dict) -> dict:
        """The sales channel has the product at `external` ({id, handle}): unlocked and visible."""
        self._check_shop(shop_id)
        if not isinstance(external, dict) or not all(isinstance(external.get(k), str) for k in ("id", "handle")):
            raise validation_error("external: The external id and handle fields are required.")
        with self._lock:
            product = self._product(product_id)
            product.update(
                is_locked=False,
                visible=True,
                is_published=True,
                external={"id": external["id"], "handle": external["handle"]},
                updated_at=format_timestamp(self._clock()),
            )
        return {}

    def publishing_failed(self, shop_id: int, product_id: str, reason: str) -> dict:
        """The sales channel could not publish the product: unlocked, otherwise unchanged."""
        self._check_shop(shop_id)
        if not isinstance(reason, str):
            raise validation_error("reason: The reason must be a string.")
        with self._lock:
            self._product(product_id)["is_locked"] = False
        return {}

    def unpublish_product(self, shop_id: int, product_id: str) -> dict:
        """The product was taken off the sales channel: no longer visible or published."""
        self._check_shop(shop_id)
        with self._lock:
            product = self._product(product_id)
            product.update(visible=False, is_published=False, updated_at=format_timestamp(self._clock()))
        return {}

    def delete_product(self, shop_id: int, product_id: str) -> dict:
        """The product is gone from the shop (its orders keep what they bought)."""
        self._check_shop(shop_id)
        with self._lock:
            product = self._product(product_id)
            self._products.remove(product)
            del self._by_id[product_id]
        return {}

    # ------------------------------------------------------------------ images

    def ensure_images(self) -> int:
        """Render every missing product image into media_dir; returns how many files were written."""
        with self._lock:
            renders = list(self._renders.items())
        return sum(self._render(file_name, args) for file_name, args in renders)

    def _render(self, file_name: str, args: tuple[str, str, str, str, bool]) -> int:
        """Render one mockup, and beside a front view the garment's transparent cut-out for the
        try-on, unless their files exist; how many files were written."""
        name, body, trim, label, back = args
        kind = cast(demo_images.GarmentKind, name)  # the demo catalogue names only these kinds
        path = self.media_dir / file_name
        design = self._designs.get(file_name)

        def mockup() -> Image.Image:
            garment = demo_images.render_garment(kind, body, trim, label, self.image_size, back=back)
            if design is None:
                return garment
            upload_id, x, y, scale, angle = design
            with Image.open(self._design_path(upload_id)) as artwork:
                return place_design(garment, artwork, x, y, scale, angle)

        written: int = demo_images.ensure_png(path, mockup)
        if not back:
            written += demo_images.ensure_png(
                cutout_path(path),
                lambda: demo_images.render_garment_cutout(kind, body, trim, label, self.image_size),
            )
        return written
