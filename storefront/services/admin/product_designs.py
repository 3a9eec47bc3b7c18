"""A new product's design: the artwork checked by content and for print resolution, where it is
placed, which colours and sizes are sold at which prices, and the create body's `print_areas` and
`variants` they make (contract §6).

A Printify placeholder is the print file of one side: about 4500 x 5100 px for a tee's front, meant
for 300 dpi (15 x 17 inches). `scale` 1 makes the design as wide as the placeholder, so the
design prints at `design width x 300 / (placeholder width x scale)` dpi: below WARN_DPI it is
allowed with a warning, below MIN_DPI it is refused.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from storefront.services.admin.product_forms import INVALID_PRICE, parse_price, raise_if
from storefront.services.media.demo_images import render_garment
from storefront.services.media.design_mockups import place_design
from storefront.services.media.images import digest_of, open_image
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import format_usd

# --------------------------------------------------------------------------- texts

ADD_A_DESIGN = "Add a design to print"
DESIGN_NOT_AN_IMAGE_URL = "Send the design as an image data URL (data:image/png;base64,...)"
DESIGN_NOT_PNG_OR_JPEG = "The design must be a PNG (with a transparent background) or a JPEG image"
INVALID_PLACEMENT = (
    "Place the design on the front or back, with x and y from 0 to 1, a scale above 0 and up to 2 "
    "and a whole-number angle"
)
NO_SUCH_SIDE = "This product type has no {position} print area"
CHOOSE_A_COLOUR = "Choose at least one colour"
CHOOSE_A_SIZE = "Choose at least one size"
UNKNOWN_COLOURS = "Not a colour of this product type: {names}"
UNKNOWN_SIZES = "Not a size of this product type: {names}"
INVALID_SIZE_PRICES = "Size prices must map a chosen size to a price in dollars"

# --------------------------------------------------------------------------- constants

#: Pixels per inch of a Printify print file (a tee's 4500 x 5100 px front is 15 x 17 inches).
PRINT_FILE_DPI = 300
#: Below this at the placed size a design prints soft: allowed, with a warning.
WARN_DPI = 150
#: Below this a design prints visibly pixelated: refused.
MIN_DPI = 75
POSITIONS = ("front", "back")
MAX_SCALE = 2.0
#: The placeholder size used before the catalogue is asked (Printify's tee front).
DEFAULT_PLACEHOLDER = (4500, 5100)
_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,(?P<data>.*)$", re.DOTALL)
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_JPEG_MAGIC = b"\xff\xd8\xff"


@dataclass(frozen=True, slots=True)
class Design:
    """Checked artwork: its bytes, type (from its content), size in pixels and content digest."""

    data: bytes
    mime_type: str
    width: int
    height: int

    @property
    def file_name(self) -> str:
        """The upload's name: the same design always has the same name (how a lost answer is found)."""
        extension = "png" if self.mime_type == "image/png" else "jpg"
        return f"design-{digest_of(self.data)[:20]}.{extension}"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the design sits on a side: centre x, y (0-1 of the print area), scale of its width, angle in degrees."""

    position: str = "front"
    x: float = 0.5
    y: float = 0.5
    scale: float = 1.0
    angle: int = 0


@dataclass(frozen=True, slots=True)
class Resolution:
    """How sharp the design prints at its placed size; `warning` when below WARN_DPI."""

    dpi: int
    warning: str | None


@dataclass(frozen=True, slots=True)
class SizePrice:
    """One size's price, the provider's cost (None when the catalogue does not say) and what is left, in cents."""

    size: str
    price_cents: int
    cost_cents: int | None

    @property
    def margin_cents(self) -> int | None:
        return None if self.cost_cents is None else self.price_cents - self.cost_cents

    @property
    def margin_text(self) -> str:
        margin = self.margin_cents
        return "cost unknown" if margin is None else format_usd(margin)


# --------------------------------------------------------------------------- the artwork


def decode_data_url(value: object) -> bytes:
    """The bytes of an image data URL; ADD_A_DESIGN when empty, DESIGN_NOT_AN_IMAGE_URL when not one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValidationError(ADD_A_DESIGN, {"design": ADD_A_DESIGN})
    match = _DATA_URL.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ValidationError(DESIGN_NOT_AN_IMAGE_URL, {"design": DESIGN_NOT_AN_IMAGE_URL})
    try:
        return base64.b64decode(re.sub(r"\s", "", match.group("data")), validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError(DESIGN_NOT_AN_IMAGE_URL, {"design": DESIGN_NOT_AN_IMAGE_URL}) from None


def read_design(data: bytes) -> Design:
    """The artwork, checked by its content: a PNG or JPEG that decodes within the image limits."""
    if data.startswith(_PNG_MAGIC):
        mime_type = "image/png"
    elif data.startswith(_JPEG_MAGIC):
        mime_type = "image/jpeg"
    else:
        raise ValidationError(DESIGN_NOT_PNG_OR_JPEG, {"design": DESIGN_NOT_PNG_OR_JPEG})
    try:
        image = open_image(data)
    except ValidationError as exc:
        raise ValidationError(exc.message, {"design": exc.message}) from None
    return Design(data=data, mime_type=mime_type, width=image.width, height=image.height)


def print_dpi(design_width: int, placeholder_width: int, scale: float) -> int:
    """Dots per inch of the design printed `scale` times the placeholder's width."""
    return math.floor(design_width * PRINT_FILE_DPI / (placeholder_width * scale))


def check_resolution(
    design: Design, placement: Placement, placeholder: tuple[int, int] = DEFAULT_PLACEHOLDER
) -> Resolution:
    """The design's print resolution at its placed size; refused below MIN_DPI with its size named."""
    width, height = placeholder
    dpi = print_dpi(design.width, width, placement.scale)
    sharp_width = math.ceil(WARN_DPI * width * placement.scale / PRINT_FILE_DPI)
    if dpi < MIN_DPI:
        least = math.ceil(MIN_DPI * width * placement.scale / PRINT_FILE_DPI)
        message = (
            f"The design is {design.width} x {design.height} px: at this size it prints at {dpi} dpi, "
            f"below the {MIN_DPI} dpi a print needs. Use an image at least {least} px wide "
            f"({sharp_width} px for a sharp print; the print file is {width} x {height} px)."
        )
        raise ValidationError(message, {"design": message})
    if dpi < WARN_DPI:
        warning = (
            f"The design is {design.width} x {design.height} px: at this size it prints at {dpi} dpi "
            f"and may look soft. {sharp_width} px wide or more prints sharp "
            f"(the print file is {width} x {height} px)."
        )
        return Resolution(dpi, warning)
    return Resolution(dpi, None)


# --------------------------------------------------------------------------- placement


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def parse_placement(value: object) -> Placement:
    """{position, x, y, scale, angle} with defaults for what is missing; INVALID_PLACEMENT otherwise."""
    if value is None:
        return Placement()
    if not isinstance(value, Mapping):
        raise ValidationError(INVALID_PLACEMENT, {"placement": INVALID_PLACEMENT})
    default = Placement()
    position = value.get("position", default.position)
    x, y = _number(value.get("x", default.x)), _number(value.get("y", default.y))
    scale = _number(value.get("scale", default.scale))
    angle = value.get("angle", default.angle)
    valid = (
        position in POSITIONS
        and x is not None
        and 0 <= x <= 1
        and y is not None
        and 0 <= y <= 1
        and scale is not None
        and 0 < scale <= MAX_SCALE
        and isinstance(angle, int)
        and not isinstance(angle, bool)
        and -360 <= angle <= 360
    )
    if not valid:
        raise ValidationError(INVALID_PLACEMENT, {"placement": INVALID_PLACEMENT})
    assert isinstance(position, str) and x is not None and y is not None and scale is not None
    assert isinstance(angle, int)
    return Placement(position, x, y, scale, angle)


def placeholder_size(variants: Sequence[Mapping[str, Any]], position: str) -> tuple[int, int] | None:
    """(width, height) of the first chosen variant's placeholder at `position`; None when it has none."""
    for variant in variants:
        for placeholder in variant.get("placeholders") or []:
            if placeholder.get("position") == position:
                return int(placeholder.get("width") or 0) or DEFAULT_PLACEHOLDER[0], int(
                    placeholder.get("height") or 0
                ) or DEFAULT_PLACEHOLDER[1]
    return None


def print_areas(variants: Sequence[Mapping[str, Any]], placement: Placement, upload_id: str) -> list[dict[str, Any]]:
    """The create body's print_areas: the chosen variants with the design at its placed side."""
    return [
        {
            "variant_ids": [int(v["id"]) for v in variants],
            "placeholders": [
                {
                    "position": placement.position,
                    "images": [
                        {
                            "id": upload_id,
                            "x": placement.x,
                            "y": placement.y,
                            "scale": placement.scale,
                            "angle": int(placement.angle),
                        }
                    ],
                }
            ],
        }
    ]


# --------------------------------------------------------------------------- colours, sizes and prices


def _names(value: object) -> list[str] | None:
    """A list of option names as sent; None for anything that is not a list of text."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return list(dict.fromkeys(item.strip() for item in value if item.strip()))


def catalogue_options(variants: Sequence[Mapping[str, Any]], option: str) -> list[str]:
    """The distinct colours or sizes ("color", "size") of catalogue variants, in catalogue order."""
    return list(dict.fromkeys(str((v.get("options") or {}).get(option, "")) for v in variants))


def choose_variants(variants: Sequence[Mapping[str, Any]], colors: object, sizes: object) -> list[dict[str, Any]]:
    """The catalogue variants in the chosen colours and sizes (every one when a list is not sent)."""
    errors: dict[str, str] = {}
    chosen: dict[str, list[str]] = {}
    for field, option, value, empty, unknown in (
        ("colors", "color", colors, CHOOSE_A_COLOUR, UNKNOWN_COLOURS),
        ("sizes", "size", sizes, CHOOSE_A_SIZE, UNKNOWN_SIZES),
    ):
        known = catalogue_options(variants, option)
        names = known if value is None else _names(value)
        if not names:
            errors[field] = empty
            continue
        lower = {name.lower(): name for name in known}
        missing = [name for name in names if name.lower() not in lower]
        if missing:
            errors[field] = unknown.format(names=", ".join(missing))
        chosen[field] = [lower[name.lower()] for name in names if name.lower() in lower]
    raise_if(errors)
    return [
        dict(v)
        for v in variants
        if (v.get("options") or {}).get("color") in chosen["colors"]
        and (v.get("options") or {}).get("size") in chosen["sizes"]
    ]


def _cost(variant: Mapping[str, Any]) -> int | None:
    cost = variant.get("cost")
    return cost if isinstance(cost, int) and not isinstance(cost, bool) else None


def size_prices(variants: Sequence[Mapping[str, Any]], base_cents: int, overrides: object = None) -> list[SizePrice]:
    """Each chosen size's price: the base price plus what the size costs the shop above the
    cheapest chosen size (larger sizes carry their own upcharge, the editor's rule keeps it), or
    the price staff typed for it (`overrides`: size -> dollars)."""
    typed: dict[str, int] = {}
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            raise ValidationError(INVALID_SIZE_PRICES, {"sizePrices": INVALID_SIZE_PRICES})
        for size, dollars in overrides.items():
            try:
                typed[str(size)] = parse_price(dollars)
            except ValidationError:
                raise ValidationError(INVALID_PRICE, {f"sizePrices.{size}": INVALID_PRICE}) from None
    costs: dict[str, int | None] = {}
    for variant in variants:
        size = str((variant.get("options") or {}).get("size", ""))
        cost = _cost(variant)
        costs[size] = cost if size not in costs else _max(costs[size], cost)
    unknown = [size for size in typed if size not in costs]
    if unknown:
        raise ValidationError(INVALID_SIZE_PRICES, {"sizePrices": INVALID_SIZE_PRICES})
    known = [cost for cost in costs.values() if cost is not None]
    floor = min(known) if known else None
    return [
        SizePrice(
            size,
            typed.get(size, base_cents + (cost - floor if cost is not None and floor is not None else 0)),
            cost,
        )
        for size, cost in costs.items()
    ]


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def create_variants(variants: Sequence[Mapping[str, Any]], prices: Sequence[SizePrice]) -> list[dict[str, Any]]:
    """The create body's variants: each chosen one enabled at its size's price."""
    by_size = {price.size: price.price_cents for price in prices}
    return [
        {"id": int(v["id"]), "price": by_size[str((v.get("options") or {}).get("size", ""))], "is_enabled": True}
        for v in variants
    ]


# --------------------------------------------------------------------------- the create form's preview


@dataclass(frozen=True, slots=True)
class CatalogueChoices:
    """What the create form offers for a product type at a print provider."""

    colors: list[str]
    sizes: list[str]
    positions: list[str]
    variants: list[dict[str, Any]]


def catalogue_choices(variants: Sequence[Mapping[str, Any]]) -> CatalogueChoices:
    """The colours, sizes and printable sides of a blueprint's catalogue variants."""
    positions = list(dict.fromkeys(str(p.get("position")) for v in variants for p in v.get("placeholders") or []))
    return CatalogueChoices(
        colors=catalogue_options(variants, "color"),
        sizes=catalogue_options(variants, "size"),
        positions=[p for p in POSITIONS if p in positions],
        variants=[dict(v) for v in variants],
    )


def preview_png(design: Design, placement: Placement, size: int = 360) -> bytes:
    """The design where placed on a white tee's picture (the form's preview), as a PNG."""
    garment = render_garment("tee", "#ffffff", "#777777", "", size, back=placement.position == "back")
    with Image.open(io.BytesIO(design.data)) as artwork:
        artwork.draft("RGBA", (size, size))
        picture = place_design(garment, artwork, placement.x, placement.y, placement.scale, placement.angle)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()
