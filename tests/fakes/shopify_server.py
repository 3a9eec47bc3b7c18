"""A fake Shopify on loopback: the Storefront GraphQL API and the Admin GraphQL API, following
../shared/contracts/shopify-storefront.md (the REST Admin API of ../shared/contracts/shopify.md is gone).

Real HTTP (stdlib `ThreadingHTTPServer` in a thread) over an in-memory shop seeded with a small
apparel catalogue (30 active products, one draft, one archived; two custom collections and one smart
collection), kept in Shopify's product JSON (`fake.products`, integer ids, `body_html`, variants with
stock) and answered through real GraphQL: every request is parsed, validated and executed with
`graphql-core` against a schema written from the contract (a subset of Shopify's), so an unknown
field or a bad variable is an `errors[]` answer with HTTP 200, as Shopify does.

What it models (contract §6): `POST /api/{version}/graphql.json` (Storefront: tokenless, the
`X-Shopify-Storefront-Access-Token` header or the `Shopify-Storefront-Private-Token` header, 401/403
for a wrong one) and `POST /admin/api/{version}/graphql.json` (Admin: `X-Shopify-Access-Token`,
cost-based throttling reported in `extensions.cost`, `MAX_COST_EXCEEDED` over 1,000 points,
`THROTTLED` when the bucket is short); `X-Shopify-API-Version` naming the version that served (a
retired one falls forward to the oldest supported), `X-Request-ID` on every answer; Relay
connections with `first`/`last` (one required, at most 250), opaque cursors, `edges` and `nodes`;
gids (`gid://shopify/Product/N`), decimal-string money, tags as lists, `availableForSale` from
stock; `products(query:)` in Shopify's search syntax (fields, `OR`, `NOT`/`-`, parentheses, quotes,
backslash escapes, trailing `*`); `product(id:|handle:)`, `nodes(ids:)`, `collections`,
`collection(id:|handle:){products}`; `Image.url(transform:)`; `cartCreate` with `userErrors` and
stock `warnings`, and the cart's `checkoutUrl` served at `GET /cart/c/<token>?key=<key>` as a page
listing its lines. Faults are injectable: `THROTTLED` (HTTP 200), any status (430, 5xx, 429 with or
without Retry-After), slow answers and malformed JSON. Every request is logged.

    with FakeShopifyServer() as fake:
        catalogue = ShopifyCatalogue(shop_root=fake.base_url, storefront_token=fake.token)

or the `shopify_server` fixture; standalone, to try the pages by hand:

    .venv/bin/python -m tests.fakes.shopify_server --port 8766
"""

from __future__ import annotations

import argparse
import base64
import copy
import html
import json
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    build_schema,
    execute,
    get_named_type,
    is_leaf_type,
    parse,
    validate,
)
from graphql.language import DocumentNode, FragmentDefinitionNode, SelectionSetNode
from graphql.utilities import value_from_ast_untyped

from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer

STOREFRONT_TOKEN = "fake-storefront-token-0000000000"
PRIVATE_TOKEN = "shpss_fake-private-token-000000000"
#: The stable versions supported in November 2026 (contract §0); an older one falls forward to the first.
SUPPORTED_VERSIONS = ("2026-01", "2026-04", "2026-07", "2026-10")
ACCEPTED_VERSIONS = (*SUPPORTED_VERSIONS, "2027-01", "unstable")
MAX_PAGE = 250
MAX_CART_LINES = 500
#: Admin GraphQL cost bucket (contract §5.3): size and points restored a second.
COST_BUCKET = 1000.0
COST_RESTORE_RATE = 100.0
MAX_QUERY_COST = 1000
THROTTLED_ERROR = {"message": "Throttled", "extensions": {"code": "THROTTLED",
                                                         "documentation": "https://shopify.dev/api/usage/rate-limits"}}
BAD_REQUEST = {"errors": {"query": "Required parameter missing or invalid"}}
SERVER_ERROR = {"errors": "An unexpected error occurred"}
STATUS_BODIES: dict[int, Any] = {
    402: {"errors": "This shop's plan does not have access to this feature"},
    403: {"errors": "Unavailable Shop"},
    404: {"errors": "Not Found"},
    423: {"errors": "This shop is unavailable"},
    429: {"errors": "Throttled"},
    430: {"errors": "Security Rejection"},
}
FIRST_EXTRA_PRODUCT_ID = 7_981_240_000_001
FIRST_EXTRA_VARIANT_ID = 45_000_000_000_001
GID = re.compile(r"^gid://shopify/(?P<kind>[A-Za-z]+)/(?P<id>\d+)$")
DEFAULT_TOKEN = "shpat_fake0000000000000000000000000"
DEFAULT_PORT = 8766
UNAUTHORIZED = {"errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"}
SHOP = {
    "id": 548380009, "name": "Fake Greek Threads", "email": "owner@fake-greek-threads.example",
    "domain": "shop.fake-greek-threads.example", "myshopify_domain": "fake-greek-threads.myshopify.com",
    "currency": "USD", "money_format": "${{amount}}", "money_with_currency_format": "${{amount}} USD",
    "iana_timezone": "America/New_York", "timezone": "(GMT-05:00) Eastern Time (US & Canada)",
    "country_code": "US", "primary_locale": "en", "plan_name": "basic", "plan_display_name": "Basic",
    "weight_unit": "lb", "taxes_included": False, "password_enabled": False, "has_storefront": True,
}
STAMP = "2024-01-02T08:59:11-05:00"
#: (title, product_type, tags, price, sizes) of the active products, in id order.
SEED: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("Nupe Founders Tee", "T-Shirt", "nupe, tee", "28.00", ("S", "M", "L", "XL")),
    ("Nupe Crest Hoodie", "Hoodie", "nupe, hoodie", "54.00", ("S", "M", "L", "XL")),
    ("Nupe Script Crewneck", "Sweatshirt", "nupe, crewneck", "46.00", ("M", "L", "XL")),
    ("Nupe Diamond Cap", "Hat", "nupe, cap", "24.00", ()),
    ("Nupe Cane Tee", "T-Shirt", "nupe, tee", "29.50", ("S", "M", "L")),
    ("Nupe Yacht Polo", "Polo", "nupe", "39.99", ("M", "L", "XL")),
    ("Kappa Diamond Tee", "T-Shirt", "kappa, tee", "29.00", ("S", "M", "L", "XL")),
    ("Kappa Script Hoodie", "Hoodie", "kappa, hoodie", "55.00", ("S", "M", "L")),
    ("Kappa Line Crewneck", "Sweatshirt", "kappa, crewneck", "45.00", ("M", "L")),
    ("Kappa Crimson Cap", "Hat", "kappa, cap", "22.00", ()),
    ("Kappa Chapter TEE", "T-Shirt", "kappa, tee", "27.00", ("S", "M", "L")),
    ("Kappa Kane Jacket", "Jacket", "kappa", "89.00", ("M", "L", "XL")),
    ("Red Line Tee", "T-Shirt", "red, tee", "25.00", ("S", "M", "L", "XL")),
    ("Red Chapter Hoodie", "Hoodie", "red, hoodie", "52.00", ("S", "M", "L")),
    ("Red Founders Crewneck", "Sweatshirt", "red, crewneck", "44.00", ("M", "L", "XL")),
    ("Red Pearl Cap", "Hat", "red, cap", "23.00", ()),
    ("Red Elephant Tote", "Bag", "red", "18.00", ()),
    ("Red Heritage T-Shirt", "T-Shirt", "red, tee", "26.00", ("S", "M", "L")),
    ("Zeta Blue Tee", "T-Shirt", "zeta, tee", "28.00", ("S", "M", "L", "XL")),
    ("Zeta Dove Hoodie", "Hoodie", "zeta, hoodie", "53.00", ("S", "M", "L")),
    ("Zeta Finer Crewneck", "Sweatshirt", "zeta, crewneck", "45.50", ("M", "L")),
    ("Zeta Royal Cap", "Hat", "zeta, cap", "24.00", ()),
    ("Zeta Stiletto Tee", "T-Shirt", "zeta, tee", "27.50", ("S", "M", "L")),
    ("Zeta Centennial Scarf", "Accessory", "zeta", "19.99", ()),
    ("Poodle Strut Tee", "T-Shirt", "poodle, tee", "26.00", ("S", "M", "L", "XL")),
    ("Poodle Gold Hoodie", "Hoodie", "poodle, hoodie", "56.00", ("S", "M", "L")),
    ("Poodle Pearl Crewneck", "Sweatshirt", "poodle, crewneck", "47.00", ("M", "L", "XL")),
    ("Poodle Sorority Cap", "Hat", "poodle, cap", "21.00", ()),
    ("Poodle Steppin Tee", "T-Shirt", "poodle, tee", "28.50", ("S", "M", "L")),
    ("Poodle Charm Bracelet", "Accessory", "poodle", "15.00", ()),
)
FIRST_PRODUCT_ID = 7_981_230_000_001
FIRST_VARIANT_ID = 44_210_000_000_001
DRAFT_TITLE = "Nupe Sample Tee (draft)"
ARCHIVED_TITLE = "Kappa Retired Tee"
#: Custom collections and the titles of their products (collection order); the first holds the draft.
CUSTOM_COLLECTIONS = (
    (482865238, "Summer Drop", "summer-drop",
     ("Zeta Blue Tee", DRAFT_TITLE, "Nupe Founders Tee", "Red Elephant Tote", "Poodle Gold Hoodie")),
    (482865239, "Hoodies & Crewnecks", "hoodies-crewnecks",
     ("Nupe Crest Hoodie", "Kappa Script Hoodie", "Red Chapter Hoodie", "Zeta Dove Hoodie", "Poodle Gold Hoodie",
      "Nupe Script Crewneck", "Kappa Line Crewneck")),
)
SMART_COLLECTION = (1063001322, "Caps", "caps", {"column": "title", "relation": "ends_with", "condition": "Cap"})


def _product(index: int, title: str, product_type: str, tags: str, price: str, sizes: tuple[str, ...],
             status: str = "active") -> dict[str, Any]:
    product_id = FIRST_PRODUCT_ID + index
    handle = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    option_values = list(sizes) or ["Default Title"]
    variants = [
        {
            "id": FIRST_VARIANT_ID + index * 10 + n, "product_id": product_id,
            "title": value, "price": price, "compare_at_price": None,
            "sku": f"{handle[:12].upper()}-{value[:2].upper()}", "position": n + 1,
            "option1": value, "option2": None, "option3": None,
            "inventory_quantity": 10 + n, "old_inventory_quantity": 10 + n, "inventory_management": "shopify",
            "inventory_policy": "deny", "inventory_item_id": 46_000_000_000_000 + index * 10 + n,
            "fulfillment_service": "manual", "taxable": True, "barcode": None, "grams": 180, "weight": 0.4,
            "weight_unit": "lb", "image_id": None, "requires_shipping": True,
            "presentment_prices": [{"price": {"amount": price, "currency_code": "USD"}, "compare_at_price": None}],
            "created_at": STAMP, "updated_at": STAMP,
            "admin_graphql_api_id": f"gid://shopify/ProductVariant/{FIRST_VARIANT_ID + index * 10 + n}",
        }
        for n, value in enumerate(option_values)
    ]
    images = [
        {
            "id": 39_000_000_000_000 + index * 10 + n, "product_id": product_id, "position": n + 1,
            "alt": title if n == 0 else None,
            "src": f"https://cdn.shopify.com/s/files/1/0548/3800/products/{handle}-{n + 1}.png?v=1704203951",
            "width": 1200, "height": 1200, "variant_ids": [], "created_at": STAMP, "updated_at": STAMP,
            "admin_graphql_api_id": f"gid://shopify/ProductImage/{39_000_000_000_000 + index * 10 + n}",
        }
        for n in range(2)
    ]
    return {
        "id": product_id, "title": title, "body_html": f"<p>{title}, printed on demand.</p>",
        "vendor": "Fake Greek Threads", "product_type": product_type, "created_at": STAMP, "handle": handle,
        "updated_at": STAMP, "published_at": STAMP if status == "active" else None, "template_suffix": None,
        "published_scope": "web", "tags": tags, "status": status,
        "admin_graphql_api_id": f"gid://shopify/Product/{product_id}",
        "variants": variants,
        "options": [{"id": 10_000_000_000 + index, "product_id": product_id,
                     "name": "Size" if sizes else "Title", "position": 1, "values": option_values}],
        "images": images, "image": images[0],
    }


def seed_products() -> dict[int, dict[str, Any]]:
    """The seeded catalogue by id: the 30 active products of SEED, then one draft and one archived."""
    rows = [(*row, "active") for row in SEED]
    rows.append((DRAFT_TITLE, "T-Shirt", "nupe, tee", "30.00", ("S", "M"), "draft"))
    rows.append((ARCHIVED_TITLE, "T-Shirt", "kappa, tee", "20.00", ("M",), "archived"))
    products = [_product(i, *row) for i, row in enumerate(rows)]
    return {p["id"]: p for p in products}


def _collection(collection_id: int, title: str, handle: str) -> dict[str, Any]:
    return {
        "id": collection_id, "handle": handle, "title": title, "updated_at": STAMP,
        "body_html": f"<p>{title}</p>", "published_at": STAMP, "sort_order": "manual",
        "template_suffix": None, "published_scope": "web",
        "admin_graphql_api_id": f"gid://shopify/Collection/{collection_id}",
    }


_COMMON_SDL = """
scalar Decimal
scalar URL
scalar HTML
scalar DateTime
interface Node { id: ID! }
enum CropRegion { BOTTOM CENTER LEFT RIGHT TOP }
enum ImageContentType { JPG PNG WEBP }
enum CountPrecision { EXACT AT_LEAST }
enum ProductSortKeys { BEST_SELLING CREATED_AT ID PRICE PRODUCT_TYPE RELEVANCE TITLE UPDATED_AT VENDOR }
enum ProductCollectionSortKeys { BEST_SELLING COLLECTION_DEFAULT CREATED ID MANUAL PRICE RELEVANCE TITLE }
enum CollectionSortKeys { ID RELEVANCE TITLE UPDATED_AT }
enum ProductVariantSortKeys { ID POSITION RELEVANCE SKU TITLE }
enum ProductImageSortKeys { CREATED_AT ID POSITION RELEVANCE }
input ImageTransformInput {
  maxWidth: Int maxHeight: Int crop: CropRegion scale: Int = 1 preferredContentType: ImageContentType
}
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
type Image { id: ID url(transform: ImageTransformInput): URL! altText: String width: Int height: Int }
type ImageEdge { cursor: String! node: Image! }
type ImageConnection { edges: [ImageEdge!]! nodes: [Image!]! pageInfo: PageInfo! }
type SelectedOption { name: String! value: String! }
type ProductOptionValue { id: ID! name: String! }
type ProductOption { id: ID! name: String! optionValues: [ProductOptionValue!]! values: [String!]! }
type Count { count: Int! precision: CountPrecision! }
type Domain { host: String! url: URL! sslEnabled: Boolean! }
type ProductEdge { cursor: String! node: Product! }
type ProductConnection { edges: [ProductEdge!]! nodes: [Product!]! pageInfo: PageInfo! }
type ProductVariantEdge { cursor: String! node: ProductVariant! }
type ProductVariantConnection { edges: [ProductVariantEdge!]! nodes: [ProductVariant!]! pageInfo: PageInfo! }
type CollectionEdge { cursor: String! node: Collection! }
type CollectionConnection { edges: [CollectionEdge!]! nodes: [Collection!]! pageInfo: PageInfo! }
"""
_PAGING = "first: Int, after: String, last: Int, before: String, reverse: Boolean = false"

STOREFRONT_SDL = _COMMON_SDL + f"""
enum CurrencyCode {{ USD EUR GBP CAD }}
enum CartErrorCode {{
  INVALID INVALID_MERCHANDISE_LINE LESS_THAN MAXIMUM_EXCEEDED CART_TOO_LARGE MERCHANDISE_NOT_APPLICABLE
}}
enum CartWarningCode {{ MERCHANDISE_OUT_OF_STOCK MERCHANDISE_NOT_ENOUGH_STOCK }}
input ProductFilter {{ available: Boolean productType: String productVendor: String tag: String }}
input CartLineInput {{ merchandiseId: ID! quantity: Int = 1 }}
input CartInput {{ lines: [CartLineInput!] note: String }}
type MoneyV2 {{ amount: Decimal! currencyCode: CurrencyCode! }}
type ProductPriceRange {{ minVariantPrice: MoneyV2! maxVariantPrice: MoneyV2! }}
type ProductVariant implements Node {{
  id: ID! title: String! availableForSale: Boolean! currentlyNotInStock: Boolean! quantityAvailable: Int
  sku: String price: MoneyV2! compareAtPrice: MoneyV2 selectedOptions: [SelectedOption!]! image: Image product: Product!
}}
type Product implements Node {{
  id: ID! handle: String! title: String! description(truncateAt: Int): String! descriptionHtml: HTML!
  vendor: String! productType: String! tags: [String!]! availableForSale: Boolean! featuredImage: Image
  images({_PAGING}, sortKey: ProductImageSortKeys = POSITION): ImageConnection!
  options(first: Int): [ProductOption!]! priceRange: ProductPriceRange! compareAtPriceRange: ProductPriceRange!
  variants({_PAGING}, sortKey: ProductVariantSortKeys = POSITION): ProductVariantConnection!
  variantsCount: Count onlineStoreUrl: URL publishedAt: DateTime! createdAt: DateTime! updatedAt: DateTime!
}}
type Collection implements Node {{
  id: ID! handle: String! title: String! description: String! descriptionHtml: HTML! image: Image updatedAt: DateTime!
  products(
    {_PAGING}, sortKey: ProductCollectionSortKeys = COLLECTION_DEFAULT, filters: [ProductFilter!]
  ): ProductConnection!
}}
type Shop {{ id: ID! name: String! description: String primaryDomain: Domain! }}
union Merchandise = ProductVariant
type CartLineCost {{ totalAmount: MoneyV2! amountPerQuantity: MoneyV2! subtotalAmount: MoneyV2! }}
type CartLine implements Node {{ id: ID! quantity: Int! merchandise: Merchandise! cost: CartLineCost! }}
type BaseCartLineEdge {{ cursor: String! node: CartLine! }}
type BaseCartLineConnection {{ edges: [BaseCartLineEdge!]! nodes: [CartLine!]! pageInfo: PageInfo! }}
type CartCost {{ subtotalAmount: MoneyV2! totalAmount: MoneyV2! checkoutChargeAmount: MoneyV2! }}
type Cart implements Node {{
  id: ID! checkoutUrl: URL! totalQuantity: Int! note: String cost: CartCost! createdAt: DateTime! updatedAt: DateTime!
  lines({_PAGING}): BaseCartLineConnection!
}}
type CartUserError {{ field: [String!] message: String! code: CartErrorCode }}
type CartWarning {{ code: CartWarningCode! message: String! target: ID! }}
type CartCreatePayload {{ cart: Cart userErrors: [CartUserError!]! warnings: [CartWarning!]! }}
type QueryRoot {{
  shop: Shop!
  products({_PAGING}, query: String, sortKey: ProductSortKeys = ID): ProductConnection!
  product(id: ID, handle: String): Product
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  collections({_PAGING}, query: String, sortKey: CollectionSortKeys = ID): CollectionConnection!
  collection(id: ID, handle: String): Collection
  cart(id: ID!): Cart
}}
type Mutation {{ cartCreate(input: CartInput): CartCreatePayload }}
schema {{ query: QueryRoot mutation: Mutation }}
"""

ADMIN_SDL = _COMMON_SDL + f"""
scalar Money
scalar UnsignedInt64
enum ProductStatus {{ ACTIVE ARCHIVED DRAFT UNLISTED }}
enum MediaContentType {{ IMAGE VIDEO MODEL_3D EXTERNAL_VIDEO }}
type MediaPreviewImage {{ image: Image }}
interface Media {{ id: ID! alt: String mediaContentType: MediaContentType! preview: MediaPreviewImage }}
type MediaImage implements Media & Node {{
  id: ID! alt: String mediaContentType: MediaContentType! preview: MediaPreviewImage image: Image
}}
type MediaEdge {{ cursor: String! node: Media! }}
type MediaConnection {{ edges: [MediaEdge!]! nodes: [Media!]! pageInfo: PageInfo! }}
type ProductVariant implements Node {{
  id: ID! legacyResourceId: UnsignedInt64! title: String! availableForSale: Boolean! inventoryQuantity: Int
  sku: String price: Money! compareAtPrice: Money selectedOptions: [SelectedOption!]! image: Image product: Product!
}}
type Product implements Node {{
  id: ID! legacyResourceId: UnsignedInt64! handle: String! title: String! description(truncateAt: Int): String!
  descriptionHtml: HTML! vendor: String! productType: String! tags: [String!]! status: ProductStatus!
  featuredMedia: Media media({_PAGING}): MediaConnection! options(first: Int): [ProductOption!]!
  variants({_PAGING}, sortKey: ProductVariantSortKeys = POSITION): ProductVariantConnection!
  variantsCount: Count createdAt: DateTime! updatedAt: DateTime!
}}
type Collection implements Node {{
  id: ID! legacyResourceId: UnsignedInt64! handle: String! title: String!
  products({_PAGING}, sortKey: ProductCollectionSortKeys = COLLECTION_DEFAULT): ProductConnection!
}}
type Shop {{ id: ID! name: String! myshopifyDomain: String! primaryDomain: Domain! currencyCode: String! }}
type QueryRoot {{
  shop: Shop!
  products({_PAGING}, query: String, sortKey: ProductSortKeys = ID): ProductConnection!
  product(id: ID!): Product
  productByIdentifier(identifier: ProductIdentifierInput!): Product
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  collections({_PAGING}, query: String, sortKey: CollectionSortKeys = ID): CollectionConnection!
  collection(id: ID!): Collection
}}
input ProductIdentifierInput {{ id: ID handle: String }}
schema {{ query: QueryRoot }}
"""
STOREFRONT_SCHEMA: GraphQLSchema = build_schema(STOREFRONT_SDL)
ADMIN_SCHEMA: GraphQLSchema = build_schema(ADMIN_SDL)


# ---------------------------------------------------------------------- Shopify search syntax (contract §3.6)

@dataclass(frozen=True)
class _Term:
    field: str  # "" for a bare word
    op: str  # ":", ":<", ":>", ":<=", ":>="
    value: str
    quoted: bool
    prefix: bool  # a trailing unquoted *
    suffix: bool  # a leading unquoted *


def _tokens(text: str) -> list[Any]:
    """Words, quotes, escapes and parentheses into tokens: "(", ")", "OR", "AND", "NOT", "-" or a _Term."""
    tokens: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in "()":
            tokens.append(ch)
            i += 1
            continue
        if ch == "-" and i + 1 < n and not text[i + 1].isspace():
            tokens.append("-")
            i += 1
            continue
        raw: list[tuple[str, bool, bool]] = []  # (char, escaped, quoted)
        quote = ""
        while i < n:
            ch = text[i]
            if ch == "\\" and i + 1 < n:
                raw.append((text[i + 1], True, bool(quote)))
                i += 2
                continue
            if quote:
                if ch == quote:
                    quote = ""
                else:
                    raw.append((ch, False, True))
                i += 1
                continue
            if ch in "\"'":
                quote = ch
                raw.append(("", False, True))  # marks the value as quoted
                i += 1
                continue
            if ch.isspace() or ch in "()":
                break
            raw.append((ch, False, False))
            i += 1
        word = "".join(c for c, _, _ in raw)
        plain = [(c, e, q) for c, e, q in raw]
        if not any(e or q for _, e, q in plain) and word in ("OR", "AND", "NOT"):
            tokens.append(word)
            continue
        tokens.append(_term(plain))
    return tokens


def _term(chars: list[tuple[str, bool, bool]]) -> _Term:
    colon = next((k for k, (c, e, q) in enumerate(chars) if c == ":" and not e and not q), None)
    field_name = "" if colon is None else "".join(c for c, _, _ in chars[:colon]).strip().lower()
    rest = chars if colon is None else chars[colon + 1:]
    op = ":"
    plain_head = "".join(c for c, e, q in rest[:2] if not e and not q)
    for candidate in ("<=", ">=", "<", ">"):
        if plain_head.startswith(candidate):
            op, rest = ":" + candidate, rest[len(candidate):]
            break
    quoted = any(q for _, _, q in rest)
    prefix = bool(rest) and rest[-1] == ("*", False, False)
    suffix = bool(rest) and rest[0] == ("*", False, False)
    if prefix:
        rest = rest[:-1]
    if suffix and rest:
        rest = rest[1:]
    return _Term(field_name, op, "".join(c for c, _, _ in rest), quoted, prefix, suffix)


class _SearchParser:
    """expr := and (OR and)*; and := unary (AND? unary)*; unary := NOT unary | - unary | ( expr ) | term."""

    def __init__(self, tokens: list[Any]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> Any:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> Any:
        token = self.peek()
        self.at += 1
        return token

    def expr(self) -> Callable[[Callable[[_Term], bool]], bool]:
        parts = [self.conj()]
        while self.peek() == "OR":
            self.take()
            parts.append(self.conj())
        return lambda test: any(p(test) for p in parts)

    def conj(self) -> Callable[[Callable[[_Term], bool]], bool]:
        parts = [self.unary()]
        while self.peek() not in (None, ")", "OR"):
            if self.peek() == "AND":
                self.take()
            parts.append(self.unary())
        return lambda test: all(p(test) for p in parts)

    def unary(self) -> Callable[[Callable[[_Term], bool]], bool]:
        token = self.take()
        if token in ("NOT", "-"):
            inner = self.unary()
            return lambda test: not inner(test)
        if token == "(":
            inner = self.expr()
            if self.peek() == ")":
                self.take()
            return inner
        if isinstance(token, _Term):
            return lambda test: test(token)
        return lambda test: True  # a stray ")" or AND matches everything, as a lenient engine does


def _text_matches(term: _Term, text: str) -> bool:
    """A quoted value is a phrase the text contains; an unquoted one a whole word, `*` widening it."""
    value, text = term.value.casefold(), text.casefold()
    if term.quoted:
        return value in text
    words = re.findall(r"[\w'-]+", text)
    return any((w.startswith(value) if term.prefix else True) and (w.endswith(value) if term.suffix else True)
               and (value in w if term.prefix or term.suffix else w == value) for w in words)


def product_matches(product: dict[str, Any], query: str, *, admin: bool = False) -> bool:
    """Whether a product (Shopify JSON) matches a `products(query:)` string."""
    if not query.strip():
        return True
    parser = _SearchParser(_tokens(query))
    predicate = parser.expr()

    def test(term: _Term) -> bool:
        tags = [t.strip() for t in product["tags"].split(",") if t.strip()]
        if term.field in ("", "title"):
            if term.field == "" and not term.value:
                return True
            haystacks = [product["title"]] if term.field else [product["title"], product["product_type"],
                                                                product["vendor"], *tags]
            return any(_text_matches(term, h) for h in haystacks)
        if term.field == "tag":
            return any(t.casefold() == term.value.casefold() for t in tags)
        if term.field == "tag_not":
            return all(t.casefold() != term.value.casefold() for t in tags)
        if term.field == "product_type":
            return product["product_type"].casefold() == term.value.casefold()
        if term.field == "vendor":
            return product["vendor"].casefold() == term.value.casefold()
        if term.field == "available_for_sale":
            return _product_available(product) == (term.value.casefold() == "true")
        if term.field == "status" and admin:
            return product["status"] in {s.strip().casefold() for s in term.value.split(",")}
        if term.field == "id":
            return term.value.isdigit() and product["id"] == int(term.value)
        return True  # an unknown field is dropped (Admin reports a warning; the fake stays quiet)

    return predicate(test)


def _variant_available(variant: dict[str, Any]) -> bool:
    return (variant.get("inventory_management") is None or variant.get("inventory_policy") == "continue"
            or int(variant.get("inventory_quantity") or 0) > 0)


def _product_available(product: dict[str, Any]) -> bool:
    return any(_variant_available(v) for v in product["variants"])


# ---------------------------------------------------------------------- connections, ids, images

def encode_cursor(state: dict[str, Any]) -> str:
    """Opaque to clients, like Shopify's (base64 of JSON); the client must never read it."""
    return base64.b64encode(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str) -> dict[str, Any]:
    try:
        state = json.loads(base64.b64decode(cursor.encode(), validate=True))
    except ValueError:
        raise GraphQLError("Invalid cursor for current pagination sort.") from None
    if not isinstance(state, dict) or "last_id" not in state:
        raise GraphQLError("Invalid cursor for current pagination sort.")
    return state


def connection(items: list[Any], args: dict[str, Any], convert: Callable[[Any], dict[str, Any]],
               key: Callable[[Any], Any] = lambda item: item["id"]) -> dict[str, Any]:
    """One page of a Relay connection over `items` (contract §3.1), `convert`ing only the page."""
    first, last = args.get("first"), args.get("last")
    if first is None and last is None:
        raise GraphQLError("you must provide one of first or last")
    for name, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= value <= MAX_PAGE:
            raise GraphQLError(f"The argument `{name}` must be between 0 and {MAX_PAGE} (was {value}).")
    ordered = list(reversed(items)) if args.get("reverse") else list(items)
    keys = [key(item) for item in ordered]
    start, end = 0, len(ordered)
    if args.get("after"):
        last_id = decode_cursor(args["after"])["last_id"]
        start = keys.index(last_id) + 1 if last_id in keys else len(ordered)
    if args.get("before"):
        last_id = decode_cursor(args["before"])["last_id"]
        end = keys.index(last_id) if last_id in keys else 0
    window = list(range(start, max(start, end)))
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    nodes = [convert(ordered[i]) for i in window]
    cursors = [encode_cursor({"last_id": keys[i], "last_value": str(keys[i])}) for i in window]
    return {
        "edges": [{"cursor": c, "node": n} for c, n in zip(cursors, nodes, strict=True)],
        "nodes": nodes,
        "pageInfo": {
            "hasNextPage": bool(window) and window[-1] + 1 < len(ordered) if window else start < end,
            "hasPreviousPage": bool(window) and window[0] > 0,
            "startCursor": cursors[0] if cursors else None,
            "endCursor": cursors[-1] if cursors else None,
        },
    }


def gid(kind: str, number: int) -> str:
    return f"gid://shopify/{kind}/{number}"


def parse_gid(value: Any, kind: str) -> int:
    """The number of a gid of `kind`; GraphQLError("Invalid global id") for anything else, as Shopify."""
    match = GID.match(str(value))
    if match is None:
        raise GraphQLError(f"Invalid global id '{value}'", extensions={"code": "argumentLiteralsIncompatible"})
    return int(match.group("id")) if match.group("kind") == kind else -1


def transformed_url(src: str, transform: dict[str, Any] | None) -> str:
    """What Shopify's CDN does with `url(transform:)`: the same image with size parameters (opaque to clients)."""
    if not transform:
        return src
    params = []
    for name, key in (("maxWidth", "width"), ("maxHeight", "height"), ("crop", "crop")):
        if transform.get(name):
            value = transform[name]
            params.append(
                f"{key}={value * (transform.get('scale') or 1) if isinstance(value, int) else str(value).lower()}"
            )
    if transform.get("preferredContentType"):
        params.append(f"format={str(transform['preferredContentType']).lower()}")
    return src + ("&" if "?" in src else "?") + "&".join(params) if params else src


def strip_tags(markup: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup))).strip()


# ---------------------------------------------------------------------- Admin query cost (contract §5.3)

def query_cost(schema: GraphQLSchema, document: DocumentNode, variables: dict[str, Any],
               operation_name: str | None) -> int:
    """Shopify's requested cost: objects 1, scalars 0, a connection 2 + its page size x its node's cost."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    operation = next((o for o in operations if operation_name is None or (o.name and o.name.value == operation_name)),
                     None)
    if operation is None:
        return 0
    root = schema.mutation_type if operation.operation.value == "mutation" else schema.query_type

    def selections(selection_set: SelectionSetNode | None, parent: Any) -> list[tuple[FieldNode, Any]]:
        found: list[tuple[FieldNode, Any]] = []
        for selection in (selection_set.selections if selection_set else ()):
            if isinstance(selection, FieldNode):
                found.append((selection, parent))
            elif isinstance(selection, InlineFragmentNode):
                inner = schema.get_type(selection.type_condition.name.value) if selection.type_condition else parent
                found.extend(selections(selection.selection_set, inner))
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value in fragments:
                fragment = fragments[selection.name.value]
                found.extend(selections(fragment.selection_set, schema.get_type(fragment.type_condition.name.value)))
        return found

    def cost(selection_set: SelectionSetNode | None, parent: Any) -> int:
        total = 0
        for node, owner in selections(selection_set, parent):
            fields = getattr(owner, "fields", None) or {}
            definition = fields.get(node.name.value)
            if definition is None:
                continue
            named = get_named_type(definition.type)
            if is_leaf_type(named):
                continue
            if named.name.endswith("Connection"):
                args = {a.name.value: value_from_ast_untyped(a.value, variables) for a in node.arguments}
                size = int(args.get("first") or args.get("last") or 0)
                inner = 0
                for child, child_owner in selections(node.selection_set, named):
                    if child.name.value == "nodes":
                        inner += 1 + cost(child.selection_set, get_named_type(child_owner.fields["nodes"].type))
                    elif child.name.value == "edges":
                        edge_type = get_named_type(child_owner.fields["edges"].type)
                        for grand, _ in selections(child.selection_set, edge_type):
                            if grand.name.value == "node":
                                inner += 1 + cost(grand.selection_set, get_named_type(edge_type.fields["node"].type))
                total += 2 + size * inner
            else:
                total += 1 + cost(node.selection_set, named)
        return total

    return cost(operation.selection_set, root)



@dataclass
class Fault:
    """One injected misbehaviour for the next `times` matching requests (None: until cleared).

    `kind`: "status" (answer `status` with `body`), "throttled" (HTTP 200 with Shopify's THROTTLED
    error), "slow" (answer normally after `delay` seconds) or "malformed" (HTTP 200, truncated JSON).
    `match` is a substring of the request's GraphQL document (say "cartCreate" or "products("),
    `api` "storefront" or "admin"; None matches every request."""

    kind: str
    status: int = 500
    retry_after: str | None = None
    delay: float = 0.0
    body: Any = None
    match: str | None = None
    api: str | None = None
    times: int | None = 1


@dataclass
class RecordedRequest:
    """What the fake received and what it answered."""

    method: str
    path: str
    headers: dict[str, str]
    query: str
    variables: dict[str, Any]
    at: float
    api: str = ""
    version: str = ""
    status: int = 0
    cost: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class FakeShopify:
    """The fake's state and behaviour, independent of HTTP (the server wraps it)."""

    def __init__(self, token: str = STOREFRONT_TOKEN, *, admin_token: str = DEFAULT_TOKEN,
                 private_token: str = PRIVATE_TOKEN, clock: Callable[[], float] = time.monotonic,
                 served_version: str | None = None) -> None:
        self.token = token
        self.admin_token = admin_token
        self.private_token = private_token
        self.clock = clock
        #: The version announced in X-Shopify-API-Version (None: the one asked for, or the oldest
        #: supported for a retired one).
        self.served_version = served_version
        self.shop = copy.deepcopy(SHOP)
        self.products = seed_products()
        by_title = {p["title"]: p["id"] for p in self.products.values()}
        self.custom_collections = [_collection(cid, title, handle) for cid, title, handle, _ in CUSTOM_COLLECTIONS]
        #: collection id -> product ids in collection order (the collects).
        self.collects: dict[int, list[int]] = {cid: [by_title[t] for t in titles]
                                               for cid, _, _, titles in CUSTOM_COLLECTIONS}
        sid, stitle, shandle, rule = SMART_COLLECTION
        self.smart_collections = [{**_collection(sid, stitle, shandle), "rules": [rule], "disjunctive": False}]
        #: cart token -> {"key", "lines": [{"id", "variant_id", "quantity"}], "note"}
        self.carts: dict[str, dict[str, Any]] = {}
        #: The primary domain's root (checkoutUrl's host); the server sets its own address.
        self.primary_url = f"https://{SHOP['domain']}"
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        self.lock = threading.RLock()
        self.cost_available = COST_BUCKET
        self._cost_at: float | None = None
        self.restore_rate = COST_RESTORE_RATE
        self._next_product_id = FIRST_EXTRA_PRODUCT_ID
        self._next_variant_id = FIRST_EXTRA_VARIANT_ID

    # ------------------------------------------------------------------ test controls

    def fail_with(self, status: int = 500, *, retry_after: str | None = None, body: Any = None,
                  times: int | None = 1, match: str | None = None, api: str | None = None) -> Fault:
        """Answer the next `times` matching requests with HTTP `status` and Shopify's body for it."""
        if body is None:
            body = STATUS_BODIES.get(status, SERVER_ERROR if status >= 500 else {"errors": "Bad Request"})
        return self._inject(Fault("status", status, retry_after, body=body, times=times, match=match, api=api))

    def throttle(self, *, times: int | None = 1, match: str | None = None, api: str | None = None) -> Fault:
        """Answer the next matching requests HTTP 200 with `errors: [{extensions: {code: THROTTLED}}]`."""
        return self._inject(Fault("throttled", 200, times=times, match=match, api=api))

    def answer_slowly(self, delay: float, *, times: int | None = 1, match: str | None = None) -> Fault:
        """Hold the next matching answers `delay` seconds (longer than the client's timeout, say)."""
        return self._inject(Fault("slow", delay=delay, times=times, match=match))

    def answer_malformed(self, *, times: int | None = 1, match: str | None = None) -> Fault:
        """Answer the next matching requests 200 with a truncated JSON body."""
        return self._inject(Fault("malformed", status=200, times=times, match=match))

    def reset(self) -> None:
        """Back to the seeded catalogue with no carts, faults or recorded requests (a fake shared by tests)."""
        fresh = FakeShopify(self.token, admin_token=self.admin_token, private_token=self.private_token,
                            clock=self.clock, served_version=self.served_version)
        with self.lock:
            for name, value in vars(fresh).items():
                if name not in ("lock", "primary_url"):
                    setattr(self, name, value)

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def requests_to(self, api: str, containing: str = "") -> list[RecordedRequest]:
        """The logged GraphQL requests to `api` ("storefront" or "admin") whose document contains `containing`."""
        with self.lock:
            return [r for r in self.requests if r.api == api and containing in r.query]

    def active_products(self) -> list[dict[str, Any]]:
        return [p for _, p in sorted(self.products.items()) if p["status"] == "active"]

    def add_products(self, count: int, *, title: str = "Bulk Tee", price: str = "20.00") -> list[int]:
        """Append `count` active one-variant products titled "<title> 0001"...; their ids."""
        with self.lock:
            ids = []
            for n in range(count):
                product = _product(0, f"{title} {n + 1:04d}", "T-Shirt", "bulk", price, ())
                product_id = self._next_product_id
                self._next_product_id += 1
                variant_id = self._new_variant_id()
                handle = re.sub(r"[^a-z0-9]+", "-", product["title"].lower()).strip("-")
                product.update(id=product_id, handle=handle, admin_graphql_api_id=gid("Product", product_id))
                for variant in product["variants"]:
                    variant.update(id=variant_id, product_id=product_id,
                                   admin_graphql_api_id=gid("ProductVariant", variant_id))
                for image in product["images"]:
                    image["product_id"] = product_id
                self.products[product_id] = product
                ids.append(product_id)
            return ids

    def set_variant_count(self, product_id: int, count: int, *, price: str = "30.00") -> list[int]:
        """Give a product `count` variants over two options (Size x Colour), ids in order."""
        sizes = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL", "6XL")
        with self.lock:
            product = self.products[product_id]
            variants = []
            for n in range(count):
                size, colour = sizes[n % len(sizes)], f"Colour {n // len(sizes) + 1:03d}"
                variant = copy.deepcopy(product["variants"][0])
                variant_id = self._new_variant_id()
                variant.update(id=variant_id, title=f"{size} / {colour}", price=price, option1=size, option2=colour,
                               position=n + 1, sku=f"MANY-{n + 1:04d}", inventory_quantity=5,
                               admin_graphql_api_id=gid("ProductVariant", variant_id))
                variants.append(variant)
            product["variants"] = variants
            product["options"] = [
                {"id": 11_000_000_000, "product_id": product_id, "name": "Size", "position": 1,
                 "values": list(dict.fromkeys(v["option1"] for v in variants))},
                {"id": 11_000_000_001, "product_id": product_id, "name": "Colour", "position": 2,
                 "values": list(dict.fromkeys(v["option2"] for v in variants))},
            ]
            return [v["id"] for v in variants]

    def set_stock(self, variant_id: int, quantity: int) -> None:
        """A tracked variant's stock (0: sold out; Shopify denies overselling)."""
        with self.lock:
            for product in self.products.values():
                for variant in product["variants"]:
                    if variant["id"] == variant_id:
                        variant.update(inventory_quantity=quantity, inventory_management="shopify",
                                       inventory_policy="deny")
                        return
        raise KeyError(variant_id)

    def cart_lines(self, token: str) -> list[tuple[int, int]]:
        """(variant id, quantity) of a created cart's lines."""
        with self.lock:
            return [(line["variant_id"], line["quantity"]) for line in self.carts[token]["lines"]]

    def _new_variant_id(self) -> int:
        variant_id = self._next_variant_id
        self._next_variant_id += 1
        return variant_id

    def _inject(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.append(fault)
        return fault

    def take_fault(self, api: str, document: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if (fault.match is None or fault.match in document) and (fault.api is None or fault.api == api):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    # ------------------------------------------------------------------ Admin cost bucket

    def _restore(self) -> None:
        now = self.clock()
        if self._cost_at is not None:
            self.cost_available = min(COST_BUCKET, self.cost_available + (now - self._cost_at) * self.restore_rate)
        self._cost_at = now

    def throttle_status(self) -> dict[str, Any]:
        return {"maximumAvailable": COST_BUCKET, "currentlyAvailable": int(self.cost_available),
                "restoreRate": self.restore_rate}

    def spend(self, cost: int) -> bool:
        """Take `cost` points from the Admin bucket; False (nothing taken) when it holds fewer."""
        with self.lock:
            self._restore()
            if cost > self.cost_available + 1e-6:  # float restores must not miss by a hair
                return False
            self.cost_available -= cost
            return True

    # ------------------------------------------------------------------ catalogue reads

    def visible(self, product: dict[str, Any] | None) -> bool:
        """Whether the Storefront channel shows a product (published = active)."""
        return product is not None and product["status"] == "active"

    def variant(self, variant_id: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        for product in self.products.values():
            for variant in product["variants"]:
                if variant["id"] == variant_id:
                    return product, variant
        return None

    def collection_product_ids(self, collection_id: int) -> list[int] | None:
        if collection_id in self.collects:
            return list(self.collects[collection_id])
        for smart in self.smart_collections:
            if smart["id"] == collection_id:
                return [p["id"] for _, p in sorted(self.products.items()) if _matches_rules(p, smart)]
        return None

    def all_collections(self) -> list[dict[str, Any]]:
        return sorted([*self.custom_collections, *self.smart_collections], key=lambda c: c["id"])


def _matches_rules(product: dict[str, Any], smart: dict[str, Any]) -> bool:
    results = []
    for rule in smart["rules"]:
        value = str(product.get(rule["column"], "")).casefold()
        condition = str(rule["condition"]).casefold()
        results.append({
            "equals": value == condition, "contains": condition in value,
            "starts_with": value.startswith(condition), "ends_with": value.endswith(condition),
        }.get(rule["relation"], False))
    return any(results) if smart.get("disjunctive") else all(results)


def _money(amount: str | None) -> dict[str, Any] | None:
    """MoneyV2 with Shopify's unpadded decimal string ("28.0", "39.99")."""
    if amount is None:
        return None
    return {"amount": str(float(amount)) if float(amount) == int(float(amount)) else amount, "currencyCode": "USD"}


def _image(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": gid("ProductImage", raw["id"]), "altText": raw.get("alt"), "width": raw.get("width"),
        "height": raw.get("height"),
        "url": lambda info, transform=None: transformed_url(raw["src"], transform),
    }


def _options(product: dict[str, Any]) -> Callable[..., list[dict[str, Any]]]:
    def resolve(info: Any, first: int | None = None) -> list[dict[str, Any]]:
        options = sorted(product["options"], key=lambda o: o.get("position") or 0)
        return [{"id": gid("ProductOption", o["id"]), "name": o["name"], "values": list(o["values"]),
                 "optionValues": [{"id": gid("ProductOptionValue", o["id"] * 100 + n), "name": v}
                                  for n, v in enumerate(o["values"])]}
                for o in options[:first]]
    return resolve


def _selected_options(product: dict[str, Any], variant: dict[str, Any]) -> list[dict[str, str]]:
    names = [o["name"] for o in sorted(product["options"], key=lambda o: o.get("position") or 0)]
    values = [variant.get(k) for k in ("option1", "option2", "option3")]
    return [{"name": n, "value": v} for n, v in zip(names, values, strict=False) if v is not None]


class StorefrontResolvers:
    """The Storefront API's root values over a FakeShopify (one instance per request)."""

    def __init__(self, fake: FakeShopify, *, tokenless: bool) -> None:
        self.fake, self.tokenless = fake, tokenless

    def product(self, raw: dict[str, Any]) -> dict[str, Any]:
        prices = [v["price"] for v in raw["variants"]] or ["0.00"]
        lowest, highest = min(prices, key=float), max(prices, key=float)
        images = [_image(i) for i in sorted(raw["images"], key=lambda i: i.get("position") or 0)]

        def tags(info: Any) -> list[str]:
            if self.tokenless:
                raise GraphQLError("Access denied for tags field. Required access: `unauthenticated_read_product_tags` "
                                   "access scope.", extensions={"code": "ACCESS_DENIED"})
            return [t.strip() for t in raw["tags"].split(",") if t.strip()]

        return {
            "__typename": "Product", "id": gid("Product", raw["id"]), "handle": raw["handle"], "title": raw["title"],
            "description": lambda info, truncateAt=None: strip_tags(raw["body_html"] or "")[:truncateAt],
            "descriptionHtml": raw["body_html"] or "", "vendor": raw["vendor"], "productType": raw["product_type"],
            "tags": tags, "availableForSale": _product_available(raw),
            "featuredImage": images[0] if images else None,
            "images": lambda info, **args: connection(sorted(raw["images"], key=lambda i: i.get("position") or 0),
                                                      args, _image),
            "options": _options(raw),
            "priceRange": {"minVariantPrice": _money(lowest), "maxVariantPrice": _money(highest)},
            "compareAtPriceRange": {"minVariantPrice": _money("0.0"), "maxVariantPrice": _money("0.0")},
            "variants": lambda info, **args: connection(raw["variants"], args, lambda v: self.variant(raw, v)),
            "variantsCount": {"count": len(raw["variants"]), "precision": "EXACT"},
            "onlineStoreUrl": None, "publishedAt": raw["published_at"] or STAMP, "createdAt": raw["created_at"],
            "updatedAt": raw["updated_at"],
        }

    def variant(self, product: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
        image = next((i for i in product["images"] if i["id"] == raw.get("image_id")), None) or (
            product["images"][0] if product["images"] else None)
        tracked = raw.get("inventory_management") is not None
        return {
            "__typename": "ProductVariant", "id": gid("ProductVariant", raw["id"]), "title": raw["title"],
            "availableForSale": _variant_available(raw),
            "currentlyNotInStock": tracked and int(raw.get("inventory_quantity") or 0) <= 0 and _variant_available(raw),
            "quantityAvailable": int(raw.get("inventory_quantity") or 0) if tracked else None,
            "sku": raw.get("sku"), "price": _money(raw["price"]), "compareAtPrice": _money(raw.get("compare_at_price")),
            "selectedOptions": _selected_options(product, raw), "image": _image(image) if image else None,
            "product": lambda info: self.product(product),
        }

    def collection(self, raw: dict[str, Any]) -> dict[str, Any]:
        def products(info: Any, filters: list[dict[str, Any]] | None = None, **args: Any) -> dict[str, Any]:
            ids = self.fake.collection_product_ids(raw["id"]) or []
            items = [self.fake.products[i] for i in ids if self.fake.visible(self.fake.products.get(i))]
            for condition in filters or []:
                if "available" in condition:
                    items = [p for p in items if _product_available(p) == condition["available"]]
                if condition.get("productType"):
                    items = [p for p in items if p["product_type"] == condition["productType"]]
                if condition.get("productVendor"):
                    items = [p for p in items if p["vendor"] == condition["productVendor"]]
                if condition.get("tag"):
                    items = [p for p in items if condition["tag"] in [t.strip() for t in p["tags"].split(",")]]
            if args.get("sortKey") == "TITLE":
                items.sort(key=lambda p: p["title"].casefold())
            elif args.get("sortKey") in ("ID", "CREATED"):
                items.sort(key=lambda p: p["id"])
            return connection(items, args, self.product)

        return {
            "__typename": "Collection", "id": gid("Collection", raw["id"]), "handle": raw["handle"],
            "title": raw["title"], "description": strip_tags(raw["body_html"]), "descriptionHtml": raw["body_html"],
            "image": None, "updatedAt": raw["updated_at"], "products": products,
        }

    def node(self, value: Any) -> dict[str, Any] | None:
        match = GID.match(str(value))
        if match is None:
            raise GraphQLError(f"Invalid global id '{value}'", extensions={"code": "argumentLiteralsIncompatible"})
        kind, number = match.group("kind"), int(match.group("id"))
        if kind == "Product":
            raw = self.fake.products.get(number)
            return self.product(raw) if raw is not None and self.fake.visible(raw) else None
        if kind == "ProductVariant":
            found = self.fake.variant(number)
            return self.variant(*found) if found and self.fake.visible(found[0]) else None
        if kind == "Collection":
            raw = next((c for c in self.fake.all_collections() if c["id"] == number), None)
            return self.collection(raw) if raw else None
        return None

    def root(self) -> dict[str, Any]:
        fake = self.fake

        def products(info: Any, query: str | None = None, sortKey: str = "ID", **args: Any) -> dict[str, Any]:
            if sortKey == "RELEVANCE" and not query:
                raise GraphQLError("Sort key RELEVANCE requires a query.")
            items = [p for p in fake.active_products() if product_matches(p, query or "")]
            if sortKey == "TITLE":
                items.sort(key=lambda p: p["title"].casefold())
            return connection(items, args, self.product)

        def product(info: Any, id: str | None = None, handle: str | None = None) -> dict[str, Any] | None:
            if id is not None:
                number = parse_gid(id, "Product")
                raw = fake.products.get(number)
            else:
                raw = next((p for p in fake.products.values() if p["handle"] == handle), None)
            return self.product(raw) if raw is not None and fake.visible(raw) else None

        def collection(info: Any, id: str | None = None, handle: str | None = None) -> dict[str, Any] | None:
            number = parse_gid(id, "Collection") if id is not None else None
            raw = next(
                (
                    c
                    for c in fake.all_collections()
                    if (number is not None and c["id"] == number) or (handle is not None and c["handle"] == handle)
                ),
                None,
            )
            return self.collection(raw) if raw else None

        def collections(info: Any, query: str | None = None, sortKey: str = "ID", **args: Any) -> dict[str, Any]:
            items = fake.all_collections()
            if sortKey == "TITLE":
                items.sort(key=lambda c: c["title"].casefold())
            return connection(items, args, self.collection)

        def nodes(info: Any, ids: list[str]) -> list[dict[str, Any] | None]:
            if len(ids) > MAX_PAGE:
                raise GraphQLError(f"The ids argument accepts at most {MAX_PAGE} ids.")
            return [self.node(i) for i in ids]

        def cart(info: Any, id: str) -> dict[str, Any] | None:
            token, _, key = str(id).removeprefix("gid://shopify/Cart/").partition("?key=")
            stored = fake.carts.get(token)
            return self.cart(token) if stored is not None and stored["key"] == key else None

        return {
            "shop": {"id": gid("Shop", fake.shop["id"]), "name": fake.shop["name"], "description": None,
                     "primaryDomain": {"host": urlsplit(fake.primary_url).netloc, "url": fake.primary_url,
                                       "sslEnabled": fake.primary_url.startswith("https")}},
            "products": products, "product": product, "collection": collection, "collections": collections,
            "node": lambda info, id: self.node(id), "nodes": nodes, "cart": cart,
        }

    # ------------------------------------------------------------------ cart (contract §4)

    def cart(self, token: str) -> dict[str, Any]:
        stored = self.fake.carts[token]
        lines = []
        subtotal = 0.0
        for line in stored["lines"]:
            product, variant = self.fake.variant(line["variant_id"]) or (None, None)
            if product is None or variant is None:
                continue
            amount = float(variant["price"]) * line["quantity"]
            subtotal += amount
            lines.append({"id": line["id"], "quantity": line["quantity"], "merchandise": self.variant(product, variant),
                          "cost": {"totalAmount": _money(f"{amount:.2f}"), "subtotalAmount": _money(f"{amount:.2f}"),
                                   "amountPerQuantity": _money(variant["price"])}})
        total = _money(f"{subtotal:.2f}")
        return {
            "__typename": "Cart", "id": f"gid://shopify/Cart/{token}?key={stored['key']}",
            "checkoutUrl": f"{self.fake.primary_url}/cart/c/{token}?key={stored['checkout_key']}",
            "totalQuantity": sum(line["quantity"] for line in lines), "note": stored.get("note"),
            "cost": {"subtotalAmount": total, "totalAmount": total, "checkoutChargeAmount": total},
            "createdAt": STAMP, "updatedAt": STAMP,
            "lines": lambda info, **args: connection(lines, args, lambda line: line),
        }

    def mutation(self) -> dict[str, Any]:
        fake = self.fake

        def cart_create(info: Any, input: dict[str, Any] | None = None) -> dict[str, Any]:
            requested = (input or {}).get("lines") or []
            user_errors: list[dict[str, Any]] = []
            warnings: list[dict[str, Any]] = []
            if len(requested) > MAX_CART_LINES:
                return {"cart": None, "warnings": [], "userErrors": [{
                    "field": ["input", "lines"], "code": "CART_TOO_LARGE",
                    "message": f"Cart can't have more than {MAX_CART_LINES} lines."}]}
            wanted: dict[int, int] = {}
            for index, line in enumerate(requested):
                number = parse_gid(line["merchandiseId"], "ProductVariant")
                found = fake.variant(number)
                where = ["input", "lines", str(index), "merchandiseId"]
                if found is None or not fake.visible(found[0]):
                    user_errors.append({"field": where, "code": "INVALID",
                                        "message": f"The merchandise with id {line['merchandiseId']} does not exist."})
                    continue
                if line.get("quantity") is not None and line["quantity"] < 1:
                    user_errors.append({"field": ["input", "lines", str(index), "quantity"], "code": "LESS_THAN",
                                        "message": "The quantity must be greater than 0."})
                    continue
                wanted[number] = wanted.get(number, 0) + (line.get("quantity") or 1)
            if user_errors:
                return {"cart": None, "userErrors": user_errors, "warnings": []}
            token = secrets.token_hex(16)
            lines = []
            for number, quantity in wanted.items():
                product, variant = fake.variant(number)  # type: ignore[misc]
                target = gid("ProductVariant", number)
                if not _variant_available(variant):
                    warnings.append(
                        {
                            "code": "MERCHANDISE_OUT_OF_STOCK",
                            "target": target,
                            "message": f"The merchandise {product['title']} - {variant['title']} is out of stock.",
                        }
                    )
                    continue
                tracked = variant.get("inventory_management") is not None and variant.get("inventory_policy") == "deny"
                stock = int(variant.get("inventory_quantity") or 0)
                if tracked and quantity > stock:
                    warnings.append({"code": "MERCHANDISE_NOT_ENOUGH_STOCK", "target": target,
                                     "message": f"Only {stock} items were added to your cart due to availability."})
                    quantity = stock
                lines.append({"id": f"gid://shopify/CartLine/{uuid.uuid4()}?cart={token}", "variant_id": number,
                              "quantity": quantity})
            fake.carts[token] = {"key": secrets.token_hex(16), "checkout_key": secrets.token_hex(16), "lines": lines,
                                 "note": (input or {}).get("note")}
            return {"cart": self.cart(token), "userErrors": [], "warnings": warnings}

        return {"cartCreate": cart_create}


class AdminResolvers:
    """The Admin GraphQL API's root values over a FakeShopify (it sees every status)."""

    def __init__(self, fake: FakeShopify) -> None:
        self.fake = fake

    def product(self, raw: dict[str, Any]) -> dict[str, Any]:
        media = [self.media(i) for i in sorted(raw["images"], key=lambda i: i.get("position") or 0)]
        return {
            "__typename": "Product", "id": gid("Product", raw["id"]), "legacyResourceId": str(raw["id"]),
            "handle": raw["handle"], "title": raw["title"],
            "description": lambda info, truncateAt=None: strip_tags(raw["body_html"] or "")[:truncateAt],
            "descriptionHtml": raw["body_html"] or "", "vendor": raw["vendor"], "productType": raw["product_type"],
            "tags": [t.strip() for t in raw["tags"].split(",") if t.strip()], "status": raw["status"].upper(),
            "featuredMedia": media[0] if media else None,
            "media": lambda info, **args: connection(sorted(raw["images"], key=lambda i: i.get("position") or 0),
                                                     args, self.media),
            "options": _options(raw),
            "variants": lambda info, **args: connection(raw["variants"], args, lambda v: self.variant(raw, v)),
            "variantsCount": {"count": len(raw["variants"]), "precision": "EXACT"},
            "createdAt": raw["created_at"], "updatedAt": raw["updated_at"],
        }

    @staticmethod
    def media(raw: dict[str, Any]) -> dict[str, Any]:
        image = _image(raw)
        return {"__typename": "MediaImage", "id": gid("MediaImage", raw["id"]), "alt": raw.get("alt"),
                "mediaContentType": "IMAGE", "preview": {"image": image}, "image": image}

    def variant(self, product: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
        return {
            "__typename": "ProductVariant", "id": gid("ProductVariant", raw["id"]), "legacyResourceId": str(raw["id"]),
            "title": raw["title"], "availableForSale": _variant_available(raw),
            "inventoryQuantity": raw.get("inventory_quantity"), "sku": raw.get("sku"), "price": raw["price"],
            "compareAtPrice": raw.get("compare_at_price"), "selectedOptions": _selected_options(product, raw),
            "image": None, "product": lambda info: self.product(product),
        }

    def collection(self, raw: dict[str, Any]) -> dict[str, Any]:
        def products(info: Any, **args: Any) -> dict[str, Any]:
            ids = self.fake.collection_product_ids(raw["id"]) or []
            return connection([self.fake.products[i] for i in ids if i in self.fake.products], args, self.product)

        return {"__typename": "Collection", "id": gid("Collection", raw["id"]), "legacyResourceId": str(raw["id"]),
                "handle": raw["handle"], "title": raw["title"], "products": products}

    def node(self, value: Any) -> dict[str, Any] | None:
        match = GID.match(str(value))
        if match is None:
            raise GraphQLError(f"Invalid global id '{value}'", extensions={"code": "argumentLiteralsIncompatible"})
        kind, number = match.group("kind"), int(match.group("id"))
        if kind == "Product":
            raw = self.fake.products.get(number)
            return self.product(raw) if raw is not None else None
        if kind == "Collection":
            raw = next((c for c in self.fake.all_collections() if c["id"] == number), None)
            return self.collection(raw) if raw else None
        return None

    def root(self) -> dict[str, Any]:
        fake = self.fake

        def products(info: Any, query: str | None = None, sortKey: str = "ID", **args: Any) -> dict[str, Any]:
            items = [p for _, p in sorted(fake.products.items()) if product_matches(p, query or "", admin=True)]
            if sortKey == "TITLE":
                items.sort(key=lambda p: p["title"].casefold())
            return connection(items, args, self.product)

        def by_identifier(info: Any, identifier: dict[str, Any]) -> dict[str, Any] | None:
            if identifier.get("id"):
                return self.node(identifier["id"])
            raw = next((p for p in fake.products.values() if p["handle"] == identifier.get("handle")), None)
            return self.product(raw) if raw else None

        def collections(info: Any, query: str | None = None, sortKey: str = "ID", **args: Any) -> dict[str, Any]:
            items = fake.all_collections()
            if sortKey == "TITLE":
                items.sort(key=lambda c: c["title"].casefold())
            return connection(items, args, self.collection)

        return {
            "shop": {"id": gid("Shop", fake.shop["id"]), "name": fake.shop["name"],
                     "myshopifyDomain": fake.shop["myshopify_domain"], "currencyCode": "USD",
                     "primaryDomain": {"host": urlsplit(fake.primary_url).netloc, "url": fake.primary_url,
                                       "sslEnabled": fake.primary_url.startswith("https")}},
            "products": products, "product": lambda info, id: self.node(id) if parse_gid(id, "Product") else None,
            "productByIdentifier": by_identifier, "node": lambda info, id: self.node(id),
            "nodes": lambda info, ids: [self.node(i) for i in ids], "collections": collections,
            "collection": lambda info, id: self.node(id) if parse_gid(id, "Collection") else None,
        }


_GRAPHQL_PATH = re.compile(r"^(?P<admin>/admin)?/api/(?:(?P<version>[^/]+)/)?graphql\.json$")
_CHECKOUT_PATH = re.compile(r"^/cart/c/(?P<token>[0-9a-f]+)$")


def served_version(asked: str | None, forced: str | None) -> str:
    """The version that serves a request: a retired (or missing) one falls forward to the oldest supported."""
    if forced:
        return forced
    return asked if asked in ACCEPTED_VERSIONS else SUPPORTED_VERSIONS[0]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        fake: FakeShopify = self.server.fake
        url = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        route = _GRAPHQL_PATH.match(url.path)
        api = "admin" if route and route.group("admin") else "storefront"
        version = served_version(route.group("version") if route else None, fake.served_version)
        document, variables, operation = "", {}, None
        if "application/graphql" in headers.get("content-type", ""):
            document = raw.decode("utf-8", "replace")
        else:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = None
            if isinstance(body, dict):
                document = body.get("query") if isinstance(body.get("query"), str) else ""
                variables = body.get("variables") if isinstance(body.get("variables"), dict) else {}
                operation = body.get("operationName") if isinstance(body.get("operationName"), str) else None
        record = RecordedRequest("POST", url.path, headers, document, variables, fake.clock(), api, version)
        with fake.lock:
            fake.requests.append(record)
        extra = {"X-Shopify-API-Version": version, "X-Request-ID": str(uuid.uuid4())}
        if route is None:
            return self._reply(record, 404, STATUS_BODIES[404], extra)
        refusal = self._refusal(fake, api, headers)
        if refusal is not None:
            return self._reply(record, refusal[0], refusal[1], extra)
        if not document:
            return self._reply(record, 400, BAD_REQUEST, extra)
        fault = fake.take_fault(api, document)
        if fault is not None and fault.kind == "status":
            if fault.retry_after is not None:
                extra["Retry-After"] = fault.retry_after
            return self._reply(record, fault.status, fault.body, extra)
        if fault is not None and fault.kind == "throttled":
            body = {"errors": [THROTTLED_ERROR]}
            if api == "admin":
                body["extensions"] = {"cost": {"requestedQueryCost": 0, "actualQueryCost": None,
                                               "throttleStatus": fake.throttle_status()}}
            return self._reply(record, 200, body, extra)
        if fault is not None and fault.kind == "malformed":
            return self._reply(record, 200, None, extra, raw_body=b'{"data": {"products": {"nodes": [{"id": "gid://')
        status, answer = self._execute(fake, api, document, variables, operation, record, headers)
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
        self._reply(record, status, answer, extra)

    def _refusal(self, fake: FakeShopify, api: str, headers: dict[str, str]) -> tuple[int, Any] | None:
        """(status, body) for a missing or wrong token; None when the request may proceed."""
        if api == "admin":
            return None if headers.get("x-shopify-access-token") == fake.admin_token else (401, UNAUTHORIZED)
        public = headers.get("x-shopify-storefront-access-token")
        private = headers.get("shopify-storefront-private-token")
        if public is not None and public != fake.token:
            return 401, UNAUTHORIZED
        if private is not None and private != fake.private_token:
            return 403, {"errors": "Invalid private access token"}
        return None

    def _execute(self, fake: FakeShopify, api: str, document: str, variables: dict[str, Any],
                 operation: str | None, record: RecordedRequest, headers: dict[str, str]) -> tuple[int, Any]:
        schema = ADMIN_SCHEMA if api == "admin" else STOREFRONT_SCHEMA
        try:
            ast = parse(document)
        except GraphQLError as error:
            return 200, {"errors": [error.formatted]}
        problems = validate(schema, ast)
        if problems:
            return 200, {"errors": [p.formatted for p in problems]}
        extensions: dict[str, Any] = {}
        with fake.lock:
            if api == "admin":
                cost = query_cost(schema, ast, variables, operation)
                record.cost = cost
                if cost > MAX_QUERY_COST:
                    return 200, {"errors": [{"message": f"Query cost is {cost}, which exceeds the single query max "
                                                        f"cost limit ({MAX_QUERY_COST}).",
                                             "extensions": {"code": "MAX_COST_EXCEEDED", "cost": cost,
                                                            "maxCost": MAX_QUERY_COST}}]}
                if not fake.spend(cost):
                    return 200, {"errors": [THROTTLED_ERROR], "extensions": {"cost": {
                        "requestedQueryCost": cost, "actualQueryCost": None, "throttleStatus": fake.throttle_status()}}}
                extensions["cost"] = {"requestedQueryCost": cost, "actualQueryCost": cost,
                                      "throttleStatus": fake.throttle_status()}
                resolvers: Any = AdminResolvers(fake)
                root, mutation = resolvers.root(), {}
            else:
                tokenless = not (headers.get("x-shopify-storefront-access-token")
                                 or headers.get("shopify-storefront-private-token"))
                resolvers = StorefrontResolvers(fake, tokenless=tokenless)
                root, mutation = resolvers.root(), resolvers.mutation()
                extensions["context"] = {"country": "US", "language": "EN"}
            is_mutation = any(isinstance(d, OperationDefinitionNode) and d.operation.value == "mutation"
                              for d in ast.definitions)
            result = execute(schema, ast, root_value=mutation if is_mutation else root,
                             variable_values=variables, operation_name=operation)
        answer: dict[str, Any] = {"data": result.data}
        if result.errors:
            answer["errors"] = [e.formatted for e in result.errors]
        answer["extensions"] = extensions
        return 200, answer

    def do_GET(self) -> None:
        """The checkout a cart's checkoutUrl opens: a page listing the cart's lines."""
        fake: FakeShopify = self.server.fake
        url = urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest("GET", url.path, headers, "", {}, fake.clock(), "checkout")
        with fake.lock:
            fake.requests.append(record)
        route = _CHECKOUT_PATH.match(url.path)
        key = (parse_qs(url.query).get("key") or [""])[0]
        with fake.lock:
            cart = fake.carts.get(route.group("token")) if route else None
            if cart is None or cart["checkout_key"] != key:
                return self._reply(record, 404, None, {}, raw_body=b"<h1>Not Found</h1>", content_type="text/html")
            items = []
            for line in cart["lines"]:
                product, variant = fake.variant(line["variant_id"]) or ({"title": "?"}, {"title": "?"})
                items.append(
                    f'<li data-testid="checkout-line" data-variant-id="{line["variant_id"]}">'
                    f"{html.escape(product['title'])} - {html.escape(variant['title'])} x {line['quantity']}</li>"
                )
        page = (f"<!doctype html><title>Checkout - {html.escape(fake.shop['name'])}</title>"
                f"<h1>Checkout</h1><ul>{''.join(items)}</ul>").encode()
        self._reply(record, 200, None, {}, raw_body=page, content_type="text/html; charset=utf-8")

    def _reply(self, record: RecordedRequest, status: int, body: Any, headers: dict[str, str],
               raw_body: bytes | None = None, content_type: str = "application/json; charset=utf-8") -> None:
        payload = raw_body if raw_body is not None else json.dumps(body).encode()
        record.status = status
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class FakeShopifyServer(FakeShopify, LoopbackServer):
    """FakeShopify served over HTTP on 127.0.0.1; `base_url` is the shop's root (SHOPIFY_API_BASE)."""

    def __init__(self, token: str = STOREFRONT_TOKEN, *, version: str = SUPPORTED_VERSIONS[-1], **kwargs: Any) -> None:
        super().__init__(token, **kwargs)
        self.version = version

    @property
    def domain(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"http://{self.domain}"

    @property
    def storefront_url(self) -> str:
        return f"{self.base_url}/api/{self.version}/graphql.json"

    @property
    def admin_url(self) -> str:
        return f"{self.base_url}/admin/api/{self.version}/graphql.json"

    def start(self, port: int = 0) -> FakeShopifyServer:
        self.serve(_Handler, port, "fake-shopify")
        self.primary_url = self.base_url  # checkoutUrl opens on this server
        return self


@pytest.fixture
def shopify_server() -> Iterator[FakeShopifyServer]:
    """A running fake Shopify with the seeded catalogue, stopped afterwards."""
    with FakeShopifyServer() as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake Shopify (Storefront and Admin GraphQL APIs) on loopback.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--token", default=STOREFRONT_TOKEN)
    args = parser.parse_args(argv)
    fake = FakeShopifyServer(args.token).start(args.port)
    print(
        f"Fake Shopify shop {fake.shop['name']!r} with {len(fake.active_products())} active products at {fake.base_url}"
    )
    print(f"Storefront token: {fake.token}   Admin token: {fake.admin_token}")
    print("Try a query by hand:")
    print(f"  curl -s -H 'X-Shopify-Storefront-Access-Token: {fake.token}' -H 'Content-Type: application/json' "
          f"-d '{{\"query\": \"{{ products(first: 3) {{ nodes {{ id title }} }} }}\"}}' {fake.storefront_url}")
    print("Run the store against it with:")
    print(
        f"  SHOPIFY_STORE_DOMAIN={fake.domain} SHOPIFY_STOREFRONT_TOKEN={fake.token} "
        f"SHOPIFY_API_BASE={fake.base_url} make run"
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
