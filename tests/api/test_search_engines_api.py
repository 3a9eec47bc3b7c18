"""/sitemap.xml and /robots.txt over HTTP on SQLite and PostgreSQL: what staff publish, hide or
archive is in (or out of) the very next sitemap; every address absolute under PUBLIC_URL."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.catalog import catalog
from storefront.services.collections import COLLECTIONS
from storefront.services.events import events
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.printify.demo import DemoPrintProvider
from tests.api.staff import as_owner, owner_headers
from tests.designs import design_data_url
from tests.ordering import seed_demo

PUBLIC_URL = "https://shop.example"
PRODUCTS = "/api/printify/shops/1/products"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
CREATE = {
    "title": "HWDZN Sitemap Tee",
    "description": "A tee that search engines should find.",
    "blueprintId": 384,
    "printProviderId": 29,
    "shopId": 1,
    "design": design_data_url(),
}


@pytest.fixture
def provider(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DemoPrintProvider:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    monkeypatch.setenv("PUBLIC_URL", PUBLIC_URL)
    return seed_demo(engine, tmp_path)


@pytest.fixture
def client(engine: Engine, provider: DemoPrintProvider) -> TestClient:
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


def _sitemap(client: TestClient) -> dict[str, str | None]:
    """The sitemap's addresses, each with its lastmod (None without one)."""
    response = client.get("/sitemap.xml")
    assert response.status_code == 200, response.text
    root = ET.fromstring(response.content)
    return {
        url.findtext("s:loc", namespaces=NS) or "": url.findtext("s:lastmod", namespaces=NS)
        for url in root.findall("s:url", NS)
    }


def _shown_ids(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return [product.id for product in catalog.search_products(session)]


def test_the_sitemap_lists_every_public_page_collection_and_visible_product(client: TestClient, engine: Engine) -> None:
    addresses = _sitemap(client)
    for path in ("/", "/products", "/new-arrivals", "/collections", "/tours-and-events", "/shopify", "/try-it-on",
                 "/policies/privacy", "/policies/terms", "/policies/refunds", "/policies/shipping", "/contact"):
        assert PUBLIC_URL + path in addresses
    for collection in COLLECTIONS:
        assert PUBLIC_URL + collection.route in addresses
    shown = _shown_ids(engine)
    assert shown and all(f"{PUBLIC_URL}/product/{product_id}" in addresses for product_id in shown)
    products = [address for address in addresses if "/product/" in address]
    assert len(products) == len(shown)  # drafts and hidden products are not listed
    for private in ("/cart", "/order-status", "/newsletter/confirm", "/newsletter/unsubscribe", "/admin"):
        assert PUBLIC_URL + private not in addresses
    assert all(address.startswith(PUBLIC_URL + "/") for address in addresses)


def test_the_sitemap_is_xml_with_its_security_headers(client: TestClient) -> None:
    response = client.get("/sitemap.xml")
    assert response.headers["content-type"].startswith("application/xml")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'"
    assert "max-age=300" in response.headers["cache-control"]
    assert client.head("/sitemap.xml").status_code == 200


def test_a_newly_published_product_is_in_the_next_sitemap(client: TestClient, admin: dict[str, str]) -> None:
    created = client.post(PRODUCTS, headers=admin, json=CREATE)
    assert created.status_code == 201, created.text
    address = f"{PUBLIC_URL}/product/{created.json()['data']['id']}"
    assert address not in _sitemap(client)  # a draft

    published = client.post(f"{PRODUCTS}/{created.json()['data']['id']}/publish", headers=admin, json={})
    assert published.status_code == 200, published.text
    assert address in _sitemap(client)


def test_a_hidden_and_an_archived_product_leave_the_sitemap(
    client: TestClient, admin: dict[str, str], engine: Engine
) -> None:
    hidden_id, archived_id = _shown_ids(engine)[:2]
    before = _sitemap(client)
    assert f"{PUBLIC_URL}/product/{hidden_id}" in before and f"{PUBLIC_URL}/product/{archived_id}" in before

    hidden = client.put(f"/api/products/{hidden_id}/visibility", headers=admin, json={"isActive": False})
    assert hidden.status_code == 200, hidden.text
    archived = client.post(f"/api/products/{archived_id}/archive", headers=admin, json={"shopId": 1})
    assert archived.status_code == 200, archived.text

    after = _sitemap(client)
    assert f"{PUBLIC_URL}/product/{hidden_id}" not in after
    assert f"{PUBLIC_URL}/product/{archived_id}" not in after
    assert len(after) == len(before) - 2


def test_active_events_are_in_the_sitemap_with_their_last_change(client: TestClient, engine: Engine) -> None:
    form = {
        "title": "Yard Show",
        "description": "Step show.",
        "location": "Atlanta, GA",
        "startDate": "2031-04-01T18:00",
    }
    with Session(engine) as session:
        shown = events.create_event(session, form)
        hidden = events.create_event(session, {**form, "title": "Cancelled", "isActive": False})
        session.commit()
    addresses = _sitemap(client)
    lastmod = datetime.fromisoformat(addresses[f"{PUBLIC_URL}/tours-and-events?event={shown.id}"] or "")
    expected = shown.updated_at.replace(microsecond=0)
    assert lastmod == (expected if expected.tzinfo else expected.replace(tzinfo=UTC))
    assert f"{PUBLIC_URL}/tours-and-events?event={hidden.id}" not in addresses


def test_robots_keeps_the_back_office_and_the_api_out_and_names_the_sitemap(client: TestClient) -> None:
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["x-content-type-options"] == "nosniff"
    lines = response.text.splitlines()
    assert lines[0] == "User-agent: *"
    assert "Disallow: /admin" in lines and "Disallow: /api/" in lines
    assert f"Sitemap: {PUBLIC_URL}/sitemap.xml" in lines


def test_reflex_s_own_sitemap_stays_off() -> None:
    """Reflex's plugin would write a static sitemap.xml of routes only (no products, no events)."""
    import reflex as rx

    import rxconfig

    assert rx.plugins.SitemapPlugin in rxconfig.config.disable_plugins
