"""The store pages' routes and titles, which the pages, the footer, the sitemap and every email share."""

from __future__ import annotations

from dataclasses import dataclass

PRIVACY = "privacy"
TERMS = "terms"
REFUNDS = "refunds"
SHIPPING = "shipping"
CONTACT = "contact"


@dataclass(frozen=True, slots=True)
class StorePageRoute:
    slug: str
    route: str
    title: str
    #: The short name footers and emails link it by.
    link: str


POLICIES: tuple[StorePageRoute, ...] = (
    StorePageRoute(PRIVACY, "/policies/privacy", "Privacy Policy", "Privacy"),
    StorePageRoute(TERMS, "/policies/terms", "Terms of Service", "Terms"),
    StorePageRoute(REFUNDS, "/policies/refunds", "Returns & Refunds", "Returns & refunds"),
    StorePageRoute(SHIPPING, "/policies/shipping", "Shipping Policy", "Shipping"),
)
CONTACT_PAGE = StorePageRoute(CONTACT, "/contact", "Contact Us", "Contact")
STORE_PAGES: tuple[StorePageRoute, ...] = (*POLICIES, CONTACT_PAGE)
BY_SLUG = {page.slug: page for page in STORE_PAGES}
SLUG_BY_ROUTE = {page.route: page.slug for page in STORE_PAGES}


def page_links(public_url: str) -> tuple[tuple[str, str], ...]:
    """(name, absolute address) of every store page, for emails' footers."""
    base = public_url.rstrip("/")
    return tuple((page.link, f"{base}{page.route}") for page in STORE_PAGES)
