"""Renders customer emails from the Jinja2 templates beside this module: an HTML part (autoescaped,
so a customer's name or a product title can never add markup) and a plain-text part."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from storefront.services.collections import SWDNN
from storefront.services.platform.store_routes import page_links

TEMPLATE_DIR = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class Brand:
    """The name and colours every email wears (the store's main collection)."""

    name: str = SWDNN.label
    tagline: str = SWDNN.title
    primary: str = SWDNN.primary
    secondary: str = SWDNN.secondary


BRAND = Brand()


@dataclass(frozen=True)
class Contact:
    """Who the shopper can write to, shown in every email's footer: the support address (also the
    Reply-To), the shop's name and postal address, and links to the policies and contact page."""

    shop_name: str = SWDNN.label
    support_email: str = ""
    #: Lines of the postal address (empty: none shown).
    address: tuple[str, ...] = ()
    #: (name, absolute address) of each policy page and the contact page.
    links: tuple[tuple[str, str], ...] = ()


def address_lines(value: str) -> tuple[str, ...]:
    """SHOP_ADDRESS ('1 Main St; Albany, NY 12207') as its lines."""
    return tuple(line.strip() for line in value.split(";") if line.strip())


def store_contact(shop_name: str, support_email: str, shop_address: str, public_url: str) -> Contact:
    """The footer's contact from the settings (SHOP_NAME, SUPPORT_EMAIL, SHOP_ADDRESS, PUBLIC_URL)."""
    return Contact(shop_name, support_email, address_lines(shop_address), page_links(public_url))

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
    """`{name}.txt` and `{name}.html` rendered with `context` (and `brand`, `contact`)."""
    context.setdefault("brand", BRAND)
    context.setdefault("contact", Contact())
    return Rendered(
        text=_text.get_template(f"{name}.txt").render(**context),
        html=_html.get_template(f"{name}.html").render(**context),
    )
