"""The store's pages of text: privacy, terms, returns and refunds, shipping, and the contact page's intro.

Each page is Markdown: staff's text when they saved one (a `store_page` row), otherwise a default
written from the settings (the shop's name, support address, postal address, ship-to countries) and
the shipping rule, so a new shop opens with policies that say what it really does. Markdown is
rendered by markdown-it (raw HTML off) and the result goes through the same allow-list sanitiser as
the store platform's descriptions, so a page can never carry a script.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from markdown_it import MarkdownIt
from sqlmodel import Session

from storefront.models import StorePage, utcnow
from storefront.services.orders.cart import FREE_SHIPPING_OVER_CENTS, SHIPPING_CENTS
from storefront.services.orders.ship_to import names_sentence
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import format_usd
from storefront.services.platform.store_routes import (
    BY_SLUG,
    CONTACT,
    PRIVACY,
    REFUNDS,
    SHIPPING,
    TERMS,
    StorePageRoute,
)
from storefront.services.shopify.sanitize import sanitize_html

#: The longest text staff may save for one page.
MAX_MARKDOWN_CHARS = 50_000
TOO_LONG = f"A page holds at most {MAX_MARKDOWN_CHARS:,} characters"
UNKNOWN_PAGE = "No such page"

_markdown = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


@dataclass(frozen=True, slots=True)
class ShopFacts:
    """What the default texts say about the shop (from SHOP_NAME, SUPPORT_EMAIL, SHOP_ADDRESS,
    SHIP_TO_COUNTRIES)."""

    shop_name: str
    support_email: str
    address: tuple[str, ...] = ()
    ship_to: tuple[str, ...] = ("US",)
    #: The store's address, which the pages' own links are made absolute under.
    public_url: str = ""


@dataclass(frozen=True, slots=True)
class PageText:
    """A page's Markdown, whether staff wrote it (else it is the default), and when they saved it."""

    slug: str
    title: str
    markdown: str
    edited: bool
    updated_at: datetime | None = None


def render_markdown(markdown: str, public_url: str = "") -> str:
    """Markdown as safe HTML: no raw HTML passes, and the output is sanitised (no script, no
    javascript: link; headings start at h2 under the page's own h1). A link to one of the store's
    own paths ('/policies/shipping') is made absolute under `public_url` (the sanitiser keeps only those)."""
    tokens = _markdown.parse(markdown)
    base = public_url.rstrip("/")
    for token in tokens:
        for child in token.children or ():
            href = str(child.attrGet("href") or "") if child.type == "link_open" else ""
            if base and href.startswith("/") and not href.startswith("//"):
                child.attrSet("href", base + href)
    return sanitize_html(_markdown.renderer.render(tokens, _markdown.options, {}))


def route_of(slug: str) -> StorePageRoute:
    page = BY_SLUG.get(slug)
    if page is None:
        raise NotFoundError(UNKNOWN_PAGE)
    return page


def page_text(session: Session, slug: str, facts: ShopFacts) -> PageText:
    """The page's text as shown: staff's, else the default."""
    page = route_of(slug)
    row = session.get(StorePage, slug)
    if row is not None:
        return PageText(slug, page.title, row.markdown, True, row.updated_at)
    return PageText(slug, page.title, default_markdown(slug, facts), False)


def page_html(session: Session, slug: str, facts: ShopFacts) -> str:
    return render_markdown(page_text(session, slug, facts).markdown, facts.public_url)


def save_page(session: Session, slug: str, markdown: object, now: datetime | None = None) -> PageText:
    """Keep staff's text for the page (the caller commits); blank text puts the default back."""
    page = route_of(slug)
    text = markdown.replace("\r\n", "\n").strip() if isinstance(markdown, str) else ""
    if len(text) > MAX_MARKDOWN_CHARS:
        raise ValidationError(TOO_LONG, {"markdown": TOO_LONG})
    row = session.get(StorePage, slug)
    if not text:
        if row is not None:
            session.delete(row)
        return PageText(slug, page.title, "", False)
    now = now or utcnow()
    if row is None:
        row = StorePage(slug=slug, markdown=text, updated_at=now)
    else:
        row.markdown, row.updated_at = text, now
    session.add(row)
    return PageText(slug, page.title, text, True, now)


# --------------------------------------------------------------------------- the defaults


def _contact_lines(facts: ShopFacts) -> str:
    lines = [f"Email: [{facts.support_email}](mailto:{facts.support_email})"] if facts.support_email else []
    if facts.address:
        lines.append("Post: " + ", ".join(facts.address))
    return "  \n".join(lines)


def _shipping_rule() -> str:
    return (
        f"Orders over {format_usd(FREE_SHIPPING_OVER_CENTS)} ship free; every other order ships for a flat "
        f"{format_usd(SHIPPING_CENTS)}. There is no tax added at checkout."
    )


def default_markdown(slug: str, facts: ShopFacts) -> str:
    """The page's default text, written from the shop's facts."""
    shop, countries, contact = facts.shop_name, names_sentence(facts.ship_to), _contact_lines(facts)
    texts = {
        PRIVACY: f"""{shop} collects only what it needs to make and deliver your order.

## What we keep
- **Your order**: your name, email address, phone number (if you give one), shipping and billing
  address, and what you bought. We keep it to print, ship and support your order, and for our
  accounts.
- **Payment**: your card is handled by our payment processor. We never see or store your card number
  or security code; we keep only the card brand and its last four digits.
- **Photos you try on**: a photo you upload for the virtual try-on is used to draw the preview and is
  deleted afterwards. It is never shared or used for anything else.
- **Newsletter**: your email address, only after you confirm it. Every newsletter email has a link to
  unsubscribe at once.

## Who we share it with
Your name, shipping address and the items you ordered go to our print partner, who prints and ships
your order. Your payment goes to our payment processor. We never sell your data.

## Your rights
Write to us to see, correct or delete what we hold about you. We keep order records as long as the
law requires.

## Contact
{contact}
""",
        TERMS: f"""These terms apply to every order placed at {shop}.

## Orders
Each item is printed on demand once your payment is confirmed. Prices are in US dollars and are
checked again when you place your order; we ship only to {countries}.

## Payment
Your card is charged when you place your order. An order that could not be paid is not printed.

## Shipping, returns and refunds
Shipping is described in our [Shipping Policy](/policies/shipping) and returns in our
[Returns & Refunds](/policies/refunds) policy.

## Designs
All designs remain the property of {shop}. You may not copy or resell them.

## Contact
{contact}
""",
        REFUNDS: f"""Every {shop} item is printed on demand, just for you. That is why we cannot take back an
item because you changed your mind or ordered the wrong size: please check the size guide before you
order.

## Misprints and damage
If your item arrives misprinted, damaged or faulty, or is not what you ordered, we replace it or
refund it at no cost to you. Write to us within 30 days of delivery with your order number and a
photo of the problem; you do not need to send the item back.

## Lost parcels
If your tracking shows no progress for 14 days, tell us and we will look into it with the carrier and
send a replacement or a refund.

## Cancelling
You can ask us to cancel an order until it is sent to print; once printing has started it can no
longer be cancelled.

## Contact
{contact}
""",
        SHIPPING: f"""## Where we ship
We ship to {countries}. An order to any other country cannot be placed.

## What it costs
{_shipping_rule()}

## When it arrives
Each item is printed after your payment is confirmed, which usually takes 2 to 5 business days;
delivery then takes 3 to 8 business days. We email you the tracking number as soon as your order
ships.

## Contact
{contact}
""",
        CONTACT: f"""Questions about an order, a size or a design? Write to us below and we answer within two
business days. For an order, please give its number (it starts with SF-).

{contact}
""",
    }
    route_of(slug)
    return texts[slug]

