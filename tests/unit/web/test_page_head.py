"""The head of each public page (page_head.py): titles, descriptions, canonical links, robots,
OpenGraph and Twitter tags with absolute images, a product's JSON-LD, all escaped; None for an
address that names no page; and `with_head` on prerendered markup."""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.config import PROJECT_ROOT, Settings
from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.admin import admin_catalog
from storefront.services.catalog import catalog
from storefront.services.collections import COLLECTIONS_BY_KEY
from storefront.services.events import events
from storefront.services.printify.demo import DemoPrintProvider
from storefront.web import page_head
from storefront.web.page_head import PageHead, head_for, with_head
from storefront.web.page_texts import NOINDEX_ROUTES, PAGE_DESCRIPTIONS, PAGE_TITLES, page_title
from tests.ordering import seed_demo

PUBLIC_URL = "https://shop.example"
ATTACK = "</script><img src=x onerror=alert(1)>"
_LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)
_TAG = re.compile(r"<(meta|link)\b([^>]*)/>")
_ATTRIBUTE = re.compile(r'(\w[\w:-]*)="([^"]*)"')
DIGEST = "0123456789abcdef"
#: Pages of a production build (`reflex export`): /products, and the SPA fallback (no <title>).
PRERENDERED = Path(__file__).parent / "prerendered" / "products.html"
SPA_FALLBACK = Path(__file__).parent / "prerendered" / "spa-fallback.html"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    return Settings(public_url=PUBLIC_URL)


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


def _tags(head: PageHead) -> dict[str, str]:
    """The head's meta and link tags as {name, property or rel: content or href}, unescaped."""
    found: dict[str, str] = {}
    for _kind, attributes in _TAG.findall(head.tags):
        values = {key: html.unescape(value) for key, value in _ATTRIBUTE.findall(attributes)}
        key = values.get("name") or values.get("property") or values.get("rel") or ""
        found[key] = values.get("content") or values.get("href") or ""
    return found


def _json_ld(head: PageHead) -> dict[str, dict]:
    """The head's JSON-LD blocks by @type, parsed."""
    blocks = [json.loads(text) for text in _LD.findall(head.scripts)]
    return {block["@type"]: block for block in blocks}


def _shown_id(engine: Engine, provider: DemoPrintProvider, index: int = 0) -> str:
    with Session(engine) as session:
        return catalog.search_products(session)[index].id


def _priced(engine: Engine, product_id: str, *, title: str, price_cents: int | None) -> None:
    """Retitle a cached product and give every variant one price (None: none is enabled)."""
    with Session(engine) as session:
        product = session.get(CatalogProduct, product_id)
        assert product is not None
        product.title = title
        session.add(product)
        for image in session.exec(select(CatalogImage).where(CatalogImage.product_id == product_id)).all():
            image.digest, image.width, image.height = DIGEST, 1600, 1200  # its renditions prepared
            session.add(image)
        for variant in session.exec(select(CatalogVariant).where(CatalogVariant.product_id == product_id)).all():
            variant.price_cents = price_cents or 100
            variant.is_enabled = price_cents is not None
            session.add(variant)
        session.commit()


# --------------------------------------------------------------------------- pages without parameters


def test_every_public_page_has_a_title_and_a_description() -> None:
    assert PAGE_TITLES.keys() == PAGE_DESCRIPTIONS.keys()
    assert all(PAGE_TITLES.values()) and all(PAGE_DESCRIPTIONS.values())


@pytest.mark.parametrize("route", page_head.STATIC_ROUTES)
def test_each_page_has_its_own_title_description_canonical_and_an_absolute_image(
    settings: Settings, route: str
) -> None:
    head = head_for(route, settings)
    assert head is not None
    tags = _tags(head)
    assert head.title == page_title(PAGE_TITLES[route]) and "SWDNN" in head.title
    assert tags["description"] == PAGE_DESCRIPTIONS[route]
    assert tags["canonical"] == PUBLIC_URL + route == tags["og:url"]
    assert tags["og:image"].startswith(PUBLIC_URL + "/") and tags["og:image"] == tags["twitter:image"]
    assert tags["twitter:card"] == "summary_large_image"
    assert ("robots" in tags) == (route in NOINDEX_ROUTES)


def test_the_store_pages_show_the_main_collection_picture(settings: Settings) -> None:
    tags = _tags(head_for("/products", settings))  # type: ignore[arg-type]
    assert tags["og:image"] == f"{PUBLIC_URL}/uploads/collections/swdnn-800.webp"
    assert (tags["og:image:width"], tags["og:image:height"]) == ("800", "600")
    assert tags["og:image:secure_url"] == tags["og:image"]


def test_pages_for_one_shopper_are_not_indexed(settings: Settings) -> None:
    for route in ("/cart", "/order-status", "/newsletter/confirm", "/newsletter/unsubscribe"):
        head = head_for(route, settings)
        assert head is not None and head.noindex and _tags(head)["robots"] == "noindex"
    assert page_head.not_found_head(settings).noindex
    home = head_for("", settings)
    assert home is not None and not home.noindex and home.canonical == PUBLIC_URL + "/"


def test_a_collection_page_shows_its_own_tile_and_description(settings: Settings) -> None:
    head = head_for("/collections/hwdkn", settings)
    assert head is not None
    tags = _tags(head)
    assert head.title == "He Wit Da K's Now | SWDNN"
    assert tags["og:title"] == "He Wit Da K's Now" and tags["og:description"] == COLLECTIONS_BY_KEY["hwdkn"].description
    assert tags["og:image"] == f"{PUBLIC_URL}/uploads/collections/hwdkn-800.webp"
    assert "He Wit Da K&#x27;s Now" in head.tags  # escaped in the markup


@pytest.mark.parametrize("path", ["/collections/nope", "/collections/HWDKN", "/nowhere", "/admin", "/api/events"])
def test_an_address_that_names_no_public_page_has_no_head(settings: Settings, path: str) -> None:
    assert head_for(path, settings) is None


# --------------------------------------------------------------------------- products


def test_a_product_head_carries_its_title_price_image_and_json_ld(
    settings: Settings, engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine, provider)
    _priced(engine, product_id, title="HWDKN Gold Letter Tee", price_cents=3150)
    head = head_for(f"/product/{product_id}", settings, engine=engine)
    assert head is not None
    tags = _tags(head)
    address = f"{PUBLIC_URL}/product/{product_id}"
    assert head.title == "HWDKN Gold Letter Tee | SWDNN" and head.canonical == address
    assert (tags["og:type"], tags["og:title"], tags["og:url"]) == ("product", "HWDKN Gold Letter Tee", address)
    assert (tags["product:price:amount"], tags["product:price:currency"]) == ("31.50", "USD")
    # The widest rendition (1280 of a 1600 x 1200 source), at its own size.
    assert tags["og:image"] == f"{PUBLIC_URL}/media/{DIGEST}-1280.webp"
    assert (tags["og:image:width"], tags["og:image:height"]) == ("1280", "960")

    ld = _json_ld(head)
    product, breadcrumbs = ld["Product"], ld["BreadcrumbList"]
    assert (product["name"], product["sku"], product["productID"]) == ("HWDKN Gold Letter Tee", product_id, product_id)
    assert product["image"] == [tags["og:image"]]
    assert product["offers"] == {
        "@type": "Offer",
        "price": "31.50",
        "priceCurrency": "USD",
        "availability": "https://schema.org/InStock",
        "url": address,
    }
    collection = COLLECTIONS_BY_KEY[catalog.get_product(Session(engine), product_id).collection_key]
    assert [item["name"] for item in breadcrumbs["itemListElement"]] == [
        "Home",
        collection.title,
        "HWDKN Gold Letter Tee",
    ]
    assert [item["item"] for item in breadcrumbs["itemListElement"]] == [
        PUBLIC_URL + "/", PUBLIC_URL + collection.route, address,
    ]


def test_a_product_without_an_enabled_variant_is_out_of_stock(
    settings: Settings, engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine, provider)
    _priced(engine, product_id, title="Sold Out Tee", price_cents=None)
    head = head_for(f"/product/{product_id}", settings, engine=engine)
    assert head is not None
    assert _json_ld(head)["Product"]["offers"]["availability"] == "https://schema.org/OutOfStock"
    assert "price" not in _json_ld(head)["Product"]["offers"] and "product:price:amount" not in _tags(head)
    assert _tags(head)["product:availability"] == "out of stock"


def test_a_hostile_product_title_is_escaped_everywhere(
    settings: Settings, engine: Engine, provider: DemoPrintProvider
) -> None:
    product_id = _shown_id(engine, provider)
    _priced(engine, product_id, title=ATTACK, price_cents=2500)
    head = head_for(f"/product/{product_id}", settings, engine=engine)
    assert head is not None
    served = with_head("<head><title>x</title></head>", head)
    assert "<img" not in head.tags and "<img" not in served.split("</head>")[0]
    # The only </script> are the two JSON-LD blocks' own ends, last in the head.
    assert head.scripts.count("</script>") == 2 and "\\u003c/script\\u003e\\u003cimg" in head.scripts
    assert served.endswith(head.scripts + "</head>")
    assert _json_ld(head)["Product"]["name"] == ATTACK  # the JSON still says what the title says
    assert _tags(head)["og:title"] == ATTACK
    page = with_head(PRERENDERED.read_text(), head)
    assert f"<title>{html.escape(ATTACK, quote=False)} | SWDNN</title>" in page


@pytest.mark.parametrize("change", ["hide", "unpublish", "archive"])
def test_a_product_shoppers_cannot_see_has_no_head(
    settings: Settings, engine: Engine, provider: DemoPrintProvider, change: str
) -> None:
    product_id = _shown_id(engine, provider)
    assert head_for(f"/product/{product_id}", settings, engine=engine) is not None
    with Session(engine) as session:
        if change == "hide":
            admin_catalog.set_visibility(session, product_id, False)
        elif change == "archive":
            admin_catalog.archive_product(session, provider, 1, product_id)
        else:
            product = session.get(CatalogProduct, product_id)
            assert product is not None
            product.is_published = False
            session.add(product)
        session.commit()
    assert head_for(f"/product/{product_id}", settings, engine=engine) is None


def test_an_unknown_product_has_no_head(settings: Settings, engine: Engine, provider: DemoPrintProvider) -> None:
    assert head_for("/product/" + "0" * 24, settings, engine=engine) is None
    assert head_for("/product/a/b", settings, engine=engine) is None


# --------------------------------------------------------------------------- events


def test_an_event_link_has_the_events_head_and_an_inactive_one_none(settings: Settings, engine: Engine) -> None:
    form = {
        "title": "Yard <Show>",
        "description": "Step show.",
        "location": "Atlanta, GA",
        "startDate": "2031-04-01T18:00",
    }
    with Session(engine) as session:
        shown = events.create_event(session, form)
        hidden = events.create_event(session, {**form, "isActive": False})
        session.commit()
    head = head_for("/tours-and-events", settings, {"event": str(shown.id)}, engine=engine)
    assert head is not None
    tags = _tags(head)
    assert head.title == "Yard <Show> | SWDNN" and "Yard &lt;Show&gt;" in head.tags
    assert tags["canonical"] == f"{PUBLIC_URL}/tours-and-events?event={shown.id}"
    assert tags["og:description"].startswith("Tuesday, April 1, 2031") and "Atlanta, GA" in tags["og:description"]
    assert tags["og:image"].startswith(PUBLIC_URL + "/")
    assert head_for("/tours-and-events", settings, {"event": str(hidden.id)}, engine=engine) is None
    assert head_for("/tours-and-events", settings, {"event": "nope"}, engine=engine) is None
    assert head_for("/tours-and-events", settings, engine=engine) == head_for("/tours-and-events", settings)


# --------------------------------------------------------------------------- the prerendered page


def test_with_head_replaces_reflex_s_tags_and_keeps_the_rest_byte_for_byte(settings: Settings) -> None:
    page = PRERENDERED.read_text()
    head = head_for("/collections/hwdzn", settings)
    assert head is not None
    served = with_head(page, head)
    assert served.count("<title>") == 1 and "<title>He Wit Da Zetas Now | SWDNN</title>" in served
    assert 'content="favicon.ico"' not in served
    assert served.count('name="description"') == 1 and served.count('property="og:image"') == 1
    assert head.tags in served and served.index(head.tags) < served.index("</head>")
    # Everything but the replaced tags is unchanged: strip ours and Reflex's and compare.
    reflex_tags = re.compile(r'<title>.*?</title>|<meta content="[^"]*" (?:name="description"|property="og:image")/>')
    assert len(reflex_tags.findall(page)) == 3
    assert reflex_tags.sub("", page) == reflex_tags.sub("", served.replace(head.tags, ""))
    assert with_head(served, head) == served  # applying it twice changes nothing


def test_with_head_gives_a_page_without_a_title_the_whole_head(settings: Settings) -> None:
    page = SPA_FALLBACK.read_text()
    head = head_for("/products", settings)
    assert head is not None and "<title>" not in page
    served = with_head(page, head)
    assert served.replace(f"<title>Our Products | SWDNN</title>{head.tags}", "") == page
    assert served.index(head.tags) < served.index("</head>")


def test_page_head_never_imports_reflex_state_or_pages() -> None:
    for name in ("page_head.py", "page_texts.py"):
        tree = ast.parse((PROJECT_ROOT / "storefront" / "web" / name).read_text())
        imported = {
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert not any(
            module.split(".")[0] == "reflex"
            or module.startswith(("storefront.state", "storefront.pages", "storefront.components"))
            for module in imported
        ), name
