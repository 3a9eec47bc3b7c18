"""The sitemap and robots.txt search engines read: which addresses the store has, and when each
last changed. Built from the database on each request, so a product staff publish, hide or
archive is in (or out of) the very next sitemap."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape

from sqlmodel import Session, select

from storefront.models import CatalogProduct
from storefront.services.catalog.catalog import LISTING_ORDER, matching, storefront_handle

#: A sitemap file may list at most this many addresses (sitemaps.org).
MAX_SITEMAP_URLS = 50_000
SITEMAP_PATH = "/sitemap.xml"
ROBOTS_PATH = "/robots.txt"
#: Kept out of search engines: the back office and the HTTP API.
DISALLOWED = ("/admin", "/api/")
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One address of the sitemap: a path of the store, and when its content last changed."""

    path: str
    lastmod: datetime | None = None


def visible_products(session: Session, limit: int = MAX_SITEMAP_URLS) -> list[tuple[str, datetime | None]]:
    """The page path and last change of every product shoppers see (active, published, not
    archived), newest first; only the columns the sitemap needs are read."""
    rows = session.exec(
        select(CatalogProduct.id, CatalogProduct.provider_updated_at)
        .where(*matching())
        .order_by(*LISTING_ORDER)
        .limit(limit)
    ).all()
    return [(storefront_handle(product_id), updated) for product_id, updated in rows]


def w3c_date(moment: datetime) -> str:
    """A sitemap's lastmod: the UTC date and time (naive times are the database's UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "+00:00"


def render_sitemap(base_url: str, entries: Iterable[SitemapEntry]) -> str:
    """The sitemap XML of these entries, each address absolute under `base_url`, at most
    MAX_SITEMAP_URLS of them."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<urlset xmlns="{SITEMAP_NS}">']
    for count, entry in enumerate(entries):
        if count == MAX_SITEMAP_URLS:
            break
        lastmod = f"<lastmod>{w3c_date(entry.lastmod)}</lastmod>" if entry.lastmod else ""
        lines.append(f"<url><loc>{escape(base_url + entry.path)}</loc>{lastmod}</url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def render_robots(base_url: str) -> str:
    """robots.txt: everything but the back office and the API, and where the sitemap is."""
    rules = "".join(f"Disallow: {path}\n" for path in DISALLOWED)
    return f"User-agent: *\n{rules}Allow: /\n\nSitemap: {base_url}{SITEMAP_PATH}\n"
