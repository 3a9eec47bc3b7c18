"""Renders customer emails from the Jinja2 templates beside this module: an HTML part (autoescaped,
so a customer's name or a product title can never add markup) and a plain-text part."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from storefront.collections import SWDNN

TEMPLATE_DIR = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class Brand:
    """The name and colours every email wears (the store's main collection)."""

    name: str = SWDNN.label
    tagline: str = SWDNN.title
    primary: str = SWDNN.primary
    secondary: str = SWDNN.secondary


BRAND = Brand()

_loader = FileSystemLoader(TEMPLATE_DIR)
_html = Environment(loader=_loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_text = Environment(
    loader=_loader, autoescape=False, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True,
)


@dataclass(frozen=True)
class Rendered:
    """The two parts of one message."""

    text: str
    html: str


def render(name: str, **context: Any) -> Rendered:
    """`{name}.txt` and `{name}.html` rendered with `context` (and `brand`)."""
    context.setdefault("brand", BRAND)
    return Rendered(
        text=_text.get_template(f"{name}.txt").render(**context),
        html=_html.get_template(f"{name}.html").render(**context),
    )
