"""The create form's design: the artwork chosen, where it is placed (with a preview on the blank),
the product type's colours and sizes, each size's price and margin, and the mockups of the product
just created."""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

import reflex as rx

from storefront.services.admin import product_designs, product_forms
from storefront.services.admin.product_designs import Placement
from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.services.platform.money import format_usd
from storefront.state.admin.session import AdminState, admin_event
from storefront.wiring import services

log = logging.getLogger(__name__)

DESIGN_UPLOAD_ID = "design-upload"
CATALOGUE_FAILED = "Could not load this product type's colours and sizes"


def _checked(data: bytes, placement: Placement) -> tuple[product_designs.Design, product_designs.Resolution, str]:
    """The design checked at its placement, and its preview as a data URL."""
    design = product_designs.read_design(data)
    resolution = product_designs.check_resolution(design, placement)
    preview = base64.b64encode(product_designs.preview_png(design, placement)).decode("ascii")
    return design, resolution, f"data:image/png;base64,{preview}"


def _choices(blueprint_id: str, provider_id: str) -> product_designs.CatalogueChoices:
    blueprint = product_forms.choice(blueprint_id, product_forms.PRODUCT_TYPES)
    provider = product_forms.choice(provider_id, product_forms.PRINT_PROVIDERS)
    if blueprint is None or provider is None:
        return product_designs.CatalogueChoices([], [], list(product_designs.POSITIONS), [])
    return product_designs.catalogue_choices(services().provider.catalog_variants(blueprint, provider)["variants"])


class ProductDesignState(AdminState):
    """The design part of the create form (ProductManagementState sends it with the form)."""

    design_name: str = ""
    design_info: str = ""
    design_warning: str = ""
    design_error: str = ""
    preview_url: str = ""
    uploading: bool = False
    position: str = "front"
    x: float = 0.5
    y: float = 0.5
    scale: float = 1.0
    positions: list[str] = list(product_designs.POSITIONS)
    colors: list[str] = []
    sizes: list[str] = []
    #: Size -> the provider's cost in cents (sizes the catalogue gives no cost are left out).
    size_costs: dict[str, int] = {}
    price_text: str = product_forms.DEFAULT_CREATE_PRICE
    blueprint_id: str = ""
    provider_id: str = ""
    #: The provider's mockups of the product just created (one per colour).
    mockups: list[str] = []
    _design: bytes = b""

    def _placement(self) -> Placement:
        return Placement(self.position, self.x, self.y, self.scale, 0)

    def _form_design(self) -> dict[str, Any]:
        """What the create form sends besides its fields: the design's bytes and placement."""
        placement = {"position": self.position, "x": self.x, "y": self.y, "scale": self.scale, "angle": 0}
        return {"design": self._design or None, "placement": placement}

    @rx.var
    def size_rows(self) -> list[dict[str, str]]:
        """Each size's price (base plus the size's extra cost) and margin over the provider's cost."""
        try:
            base = product_forms.parse_price(self.price_text)
        except ValidationError:
            return []
        variants = [{"options": {"size": size}, "cost": self.size_costs.get(size)} for size in self.sizes]
        return [
            {
                "size": row.size,
                "price": format_usd(row.price_cents),
                "cost": format_usd(row.cost_cents) if row.cost_cents is not None else "unknown",
                "margin": row.margin_text,
            }
            for row in product_designs.size_prices(variants, base)
        ]

    async def _refresh(self) -> None:
        if not self._design:
            return
        try:
            _, resolution, self.preview_url = await asyncio.to_thread(_checked, self._design, self._placement())
            self.design_warning, self.design_error = resolution.warning or "", ""
            self.design_info = f"prints at {resolution.dpi} dpi at this size"
        except ValidationError as error:
            self.design_error, self.design_warning = error.message, ""

    @rx.event
    @admin_event
    async def upload_design(self, files: list[rx.UploadFile]):
        """The artwork chosen or dropped: checked by content and for its print resolution, previewed."""
        if not files:
            return None
        self.uploading = True
        data = await files[0].read(MAX_IMAGE_BYTES + 1)
        try:
            design, resolution, preview = await asyncio.to_thread(_checked, data, self._placement())
        except ValidationError as error:
            self.uploading, self.design_error, self._design = False, error.message, b""
            self.design_name = self.preview_url = self.design_info = self.design_warning = ""
            return None
        self._design, self.design_name, self.preview_url = data, files[0].name or "design", preview
        self.design_info = f"{design.width} x {design.height} px, prints at {resolution.dpi} dpi at this size"
        self.design_warning, self.design_error, self.uploading = resolution.warning or "", "", False
        self.mockups = []
        return None

    @rx.event
    @admin_event
    async def set_position(self, value: str):
        self.position = value if value in product_designs.POSITIONS else "front"
        await self._refresh()

    @rx.event
    @admin_event
    async def set_placement_number(self, field: str, value: str):
        """x, y or scale as typed; a value out of range is ignored (the server checks it again)."""
        limits = {"x": (0.0, 1.0), "y": (0.0, 1.0), "scale": (0.05, product_designs.MAX_SCALE)}
        try:
            number = float(value)
        except ValueError:
            return
        low, high = limits.get(field, (1.0, 0.0))
        if low <= number <= high:
            setattr(self, field, number)
            await self._refresh()

    @rx.event
    @admin_event
    async def set_price_text(self, value: str):
        self.price_text = value

    @rx.event
    @admin_event
    async def choose_type(self, field: str, value: str):
        """The product type or print provider picked: load the colours and sizes it comes in."""
        if field == "blueprint":
            self.blueprint_id = value
        else:
            self.provider_id = value
        try:
            choices = await asyncio.to_thread(_choices, self.blueprint_id, self.provider_id)
        except ServiceError:
            return rx.toast.error(CATALOGUE_FAILED)
        except Exception:
            log.exception("loading the catalogue choices failed")
            return rx.toast.error(CATALOGUE_FAILED)
        self.colors, self.sizes, self.positions = choices.colors, choices.sizes, choices.positions or ["front"]
        self.size_costs = {
            str(v["options"]["size"]): int(v["cost"]) for v in choices.variants if isinstance(v.get("cost"), int)
        }
        if self.position not in self.positions:
            self.position = self.positions[0]
        return None

    def _created(self, mockups: list[str]) -> None:
        """A product was made from the design: show its mockups, clear the design for the next one."""
        self.mockups = mockups
        self._design = b""
        self.design_name = self.preview_url = self.design_info = self.design_warning = self.design_error = ""
