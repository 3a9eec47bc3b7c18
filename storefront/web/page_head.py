"""The `<head>` of each public page as search engines and link previews read it from the first HTML.

`head_for` answers, for a public address, its title, description, canonical link, robots rule,
OpenGraph and Twitter-card tags and, on a product page, schema.org `Product` and `BreadcrumbList`
JSON-LD; None when the address names no page (an unknown or hidden product, collection or event).
`with_head` puts such a head into a prerendered page in place of the one Reflex wrote. Addresses
are absolute, from PUBLIC_URL. No reflex here: the serving step and the API both use it.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.config import Settings
from storefront.db import session_scope
from storefront.services.catalog import catalog
from storefront.services.catalog.seed import collection_tile_picture
from storefront.services.catalog.sitemap import SitemapEntry, visible_products
from storefront.services.collections import COLLECTIONS_BY_KEY, SWDNN, Collection
from storefront.services.events import events
from storefront.services.media.images import Picture
from storefront.services.platform.errors import NotFoundError
from storefront.web.page_texts import (
    BRAND_TITLE,
    COLLECTIONS_ROUTE,
    EVENT_PARAM,
    EVENTS_ROUTE,
    HOME_ROUTE,
    NOINDEX_ROUTES,
    NOT_FOUND_ROUTE,
    PAGE_DESCRIPTIONS,
    PAGE_TITLES,
    PRODUCT_ROUTE,
    PRODUCTS_ROUTE,
    SHOPIFY_PRODUCT_ROUTE,
    SHOPIFY_ROUTE,
    page_title,
)

CURRENCY = "USD"
IN_STOCK = "https://schema.org/InStock"
OUT_OF_STOCK = "https://schema.org/OutOfStock"
NOINDEX = "noindex"
#: Search engines cut descriptions near here; longer texts end with an ellipsis at a word.
DESCRIPTION_CHARS = 160
#: The pages with an address of their own and no parameter (the rest: products, collections, events).
STATIC_ROUTES: tuple[str, ...] = tuple(route for route in PAGE_TITLES if route.startswith("/") and "[" not in route)
#: The public pages a sitemap names besides products and events (NOINDEX_ROUTES left out).
INDEXED_ROUTES: tuple[str, ...] = tuple(route for route in STATIC_ROUTES if route not in NOINDEX_ROUTES)
#: The store's picture where a page has none of its own: the main collection's tile.
STORE_PICTURE: Picture = collection_tile_picture(SWDNN.key)


@dataclass(frozen=True, slots=True)
class PageImage:
    """An image a link preview shows: absolute address, size in pixels (0 when unknown), text."""

    url: str
    width: int
    height: int
    alt: str


@dataclass(frozen=True, slots=True)
class PageHead:
    """What a page's <head> tells search engines and link previews; `tags` is the escaped HTML of
    every tag but the <title> and the JSON-LD (description, robots, canonical, OpenGraph, Twitter)."""

    title: str
    description: str
    canonical: str
    image: PageImage
    noindex: bool
    tags: str
    json_ld: tuple[dict[str, Any], ...] = ()

    @property
    def scripts(self) -> str:
        """The JSON-LD blocks as <script type="application/ld+json"> tags, safe inside a script."""
        return "".join(f'<script type="application/ld+json">{json_for_script(data)}</script>' for data in self.json_ld)


# --------------------------------------------------------------------------- text and addresses


def absolute(settings: Settings, address: str) -> str:
    """An address of the store as an absolute URL under PUBLIC_URL (absolute ones unchanged)."""
    if address.startswith(("http://", "https://")):
        return address
    return settings.public_url + ("" if address.startswith("/") else "/") + address


def product_path(product_id: str) -> str:
    return "/product/" + quote(product_id, safe="")


def event_path(event_id: int) -> str:
    """The events page with one event's details open."""
    return f"{EVENTS_ROUTE}?{urlencode({EVENT_PARAM: event_id})}"


def short_description(text: str, fallback: str) -> str:
    """Plain text of at most DESCRIPTION_CHARS characters, cut at a word; `fallback` when empty."""
    text = " ".join(text.split()) or fallback
    if len(text) <= DESCRIPTION_CHARS:
        return text
    cut = text[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return cut + "\u2026"


def dollars(cents: int) -> str:
    """Cents as a decimal string, '24.99' (what OpenGraph and schema.org read as a price)."""
    return f"{cents // 100}.{cents % 100:02d}"


def picture_image(settings: Settings, picture: Picture, alt: str) -> PageImage:
    """The widest rendition of a picture (its srcset's last), absolute, with its size."""
    if not picture.srcset:
        return PageImage(absolute(settings, picture.src), picture.width, picture.height, alt)
    address, _, width_text = picture.srcset.split(", ")[-1].rpartition(" ")
    width = int(width_text.rstrip("w"))
    height = round(width * picture.height / picture.width) if picture.width else 0
    return PageImage(absolute(settings, address), width, height, alt)


def json_for_script(value: Any) -> str:
    """JSON that cannot end its <script> element or open markup inside it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )


def _meta(key: str, name: str, content: str | int) -> str:
    return f'<meta {key}="{html.escape(name)}" content="{html.escape(str(content))}"/>'


# --------------------------------------------------------------------------- building a head


def build_head(
    settings: Settings,
    *,
    title: str,
    description: str,
    path: str,
    image: PageImage,
    og_type: str = "website",
    noindex: bool = False,
    extra_og: Sequence[tuple[str, str]] = (),
    json_ld: Sequence[dict[str, Any]] = (),
) -> PageHead:
    """A page's head from its texts, address and image; every text escaped here."""
    canonical = absolute(settings, path)
    tags = [_meta("name", "description", description)]
    if noindex:
        tags.append(_meta("name", "robots", NOINDEX))
    tags.append(f'<link rel="canonical" href="{html.escape(canonical)}"/>')
    og: list[tuple[str, str | int]] = [
        ("og:type", og_type),
        ("og:site_name", BRAND_TITLE),
        ("og:title", title),
        ("og:description", description),
        ("og:url", canonical),
        ("og:image", image.url),
    ]
    if image.url.startswith("https://"):
        og.append(("og:image:secure_url", image.url))
    if image.width and image.height:
        og += [("og:image:width", image.width), ("og:image:height", image.height)]
    og += [("og:image:alt", image.alt), *extra_og]
    tags += [_meta("property", name, content) for name, content in og]
    tags += [
        _meta("name", name, content)
        for name, content in (
            ("twitter:card", "summary_large_image"),
            ("twitter:title", title),
            ("twitter:description", description),
            ("twitter:image", image.url),
            ("twitter:image:alt", image.alt),
        )
    ]
    return PageHead(
        title=page_title(title),
        description=description,
        canonical=canonical,
        image=image,
        noindex=noindex,
        tags="".join(tags),
        json_ld=tuple(json_ld),
    )


def _store_image(settings: Settings) -> PageImage:
    return picture_image(settings, STORE_PICTURE, f"{BRAND_TITLE} collection")


def static_head(settings: Settings, route: str) -> PageHead:
    """The head of a page without parameters, from its texts in page_texts."""
    return build_head(
        settings,
        title=PAGE_TITLES[route],
        description=PAGE_DESCRIPTIONS[route],
        path=route,
        image=_store_image(settings),
        noindex=route in NOINDEX_ROUTES,
    )


def not_found_head(settings: Settings) -> PageHead:
    """The head of the 404 page (what an address with no head is answered with): not indexed."""
    return static_head(settings, NOT_FOUND_ROUTE)


def collection_head(settings: Settings, collection: Collection) -> PageHead:
    return build_head(
        settings,
        title=collection.title,
        description=collection.description,
        path=collection.route,
        image=picture_image(
            settings, collection_tile_picture(collection.key), f"{collection.label}: {collection.title}"
        ),
    )


def _breadcrumbs(settings: Settings, product: catalog.ProductDetail, path: str) -> dict[str, Any]:
    """Home > the product's collection (else Products) > the product."""
    collection = COLLECTIONS_BY_KEY.get(product.collection_key)
    middle = (collection.title, collection.route) if collection else (PAGE_TITLES[PRODUCTS_ROUTE], PRODUCTS_ROUTE)
    trail = [("Home", HOME_ROUTE), middle, (product.name, path)]
    return {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": position, "name": name, "item": absolute(settings, address)}
            for position, (name, address) in enumerate(trail, start=1)
        ],
    }


def product_head(settings: Settings, product: catalog.ProductDetail) -> PageHead:
    """A product's head: OpenGraph product tags with the price, Product and BreadcrumbList JSON-LD."""
    path = product_path(product.id)
    description = short_description(product.description, PAGE_DESCRIPTIONS[PRODUCT_ROUTE])
    image = picture_image(settings, product.picture, product.name)
    # A sample is shown but never sold, and its page is no part of the catalogue.
    in_stock = product.has_variants and product.is_active and not product.is_sample
    offer: dict[str, Any] = {
        "@type": "Offer",
        "priceCurrency": CURRENCY,
        "availability": IN_STOCK if in_stock else OUT_OF_STOCK,
        "url": absolute(settings, path),
    }
    extra_og: list[tuple[str, str]] = [("product:availability", "in stock" if in_stock else "out of stock")]
    if product.price_cents is not None:
        offer["price"] = dollars(product.price_cents)
        extra_og = [
            ("product:price:amount", dollars(product.price_cents)),
            ("product:price:currency", CURRENCY),
            *extra_og,
        ]
    ld = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": product.name,
        "description": description,
        "image": [image.url],
        "sku": product.id,
        "productID": product.id,
        "brand": {"@type": "Brand", "name": BRAND_TITLE},
        "offers": offer,
    }
    return build_head(
        settings,
        title=product.name,
        description=description,
        path=path,
        image=image,
        og_type="product",
        noindex=product.is_sample,
        extra_og=extra_og,
        json_ld=(ld, _breadcrumbs(settings, product, path)),
    )


def event_head(settings: Settings, view: events.EventView) -> PageHead:
    """An event's head: its title, place and date first in the description, its first picture."""
    when = events.long_date(view.starts_at)
    description = short_description(f"{when}, {view.location}. {view.description}", PAGE_DESCRIPTIONS[EVENTS_ROUTE])
    image = picture_image(settings, view.pictures[0], view.title) if view.pictures else _store_image(settings)
    return build_head(settings, title=view.title, description=description, path=event_path(view.id), image=image)


def _product(session: Session, product_id: str) -> catalog.ProductDetail | None:
    try:
        return catalog.get_product(session, product_id)
    except NotFoundError:
        return None


def _event(session: Session, event_id: str) -> events.EventView | None:
    try:
        return events.get_event(session, event_id)
    except NotFoundError:
        return None


def head_for(
    path: str, settings: Settings, query: Mapping[str, str] | None = None, *, engine: Engine | None = None
) -> PageHead | None:
    """The head of the public page at `path` (no query, no trailing slash), None when it names no
    page; `query` only matters on the events page, where `?event=<id>` names one event. Reads the
    database (blocking: call it from a worker thread)."""
    path = path or HOME_ROUTE
    if path.startswith(COLLECTIONS_ROUTE + "/"):
        collection = COLLECTIONS_BY_KEY.get(path.removeprefix(COLLECTIONS_ROUTE + "/"))
        return collection_head(settings, collection) if collection else None
    if path in STATIC_ROUTES and not (path == EVENTS_ROUTE and query and query.get(EVENT_PARAM)):
        return static_head(settings, path)
    if path.startswith(SHOPIFY_ROUTE + "/product/") and path.count("/") == 3:
        # The store catalogue is read live from Shopify: no request waits on it to name a head.
        head = static_head(settings, SHOPIFY_PRODUCT_ROUTE)
        return build_head(
            settings, title=PAGE_TITLES[SHOPIFY_PRODUCT_ROUTE], description=head.description, path=path,
            image=head.image,
        )
    product_id = path.removeprefix("/product/") if path.startswith("/product/") else ""
    event_id = (query or {}).get(EVENT_PARAM, "") if path == EVENTS_ROUTE else ""
    if (not product_id and not event_id) or "/" in product_id:
        return None
    with session_scope(engine) as session:
        if product_id:
            product = _product(session, product_id)
            return product_head(settings, product) if product else None
        view = _event(session, event_id)
        return event_head(settings, view) if view else None


# --------------------------------------------------------------------------- the sitemap


def sitemap_entries(session: Session) -> list[SitemapEntry]:
    """Every address a search engine should know: the public pages, each collection, each
    visible product and each active event (paths; the sitemap makes them absolute)."""
    entries = [SitemapEntry(route) for route in INDEXED_ROUTES]
    entries += [SitemapEntry(path, lastmod) for path, lastmod in visible_products(session)]
    entries += [
        SitemapEntry(event_path(event_id), updated) for event_id, updated in events.active_event_stamps(session)
    ]
    return entries


# --------------------------------------------------------------------------- the prerendered page

_HEAD_END = re.compile(r"</head\s*>", re.I)
_TITLE = re.compile(r"<title\b[^>]*>.*?</title\s*>", re.I | re.S)
#: The tags a head replaces: Reflex's description and og:image, and any earlier SEO tags.
#: Attribute values are double-quoted with `"` escaped (React's markup and ours), so a name can
#: only be matched as an attribute, never inside another attribute's value.
_REPLACED = re.compile(
    r'<meta\b[^>]*\s(?:name|property)="(?:description|robots|(?:og|twitter|product):[^"]*)"[^>]*>'
    r'|<link\b[^>]*\srel="canonical"[^>]*>'
    r'|<script\b[^>]*\stype="application/ld\+json"[^>]*>.*?</script\s*>',
    re.I | re.S,
)


def with_head(page: str, head: PageHead) -> str:
    """The prerendered page with `head`'s title and tags in place of the title, description,
    robots, canonical, OpenGraph, Twitter and JSON-LD tags it had; everything else unchanged. The
    JSON-LD goes last in the head: React hydrates the head's own elements in order and takes a
    script among them for one of its own (error #418), while it passes over what follows them."""
    end = _HEAD_END.search(page)
    cut = end.start() if end else len(page)
    before, after = page[:cut], page[cut:]
    fresh = f"<title>{html.escape(head.title, quote=False)}</title>{head.tags}"
    before = _REPLACED.sub("", before)
    title = _TITLE.search(before)
    if title:
        before = before[: title.start()] + fresh + _TITLE.sub("", before[title.end() :])
    else:
        before += fresh
    return before + head.scripts + after

