"""The GraphQL the store catalogue sends: the Storefront and the Admin API's queries, fragments and
the sizes each asks for (`Dialect`), and the quoting of a shopper's text in Shopify's search syntax."""

from __future__ import annotations

import re

from storefront.services.shopify.catalogue import MAX_PAGE_SIZE

#: Variants read with a list page (Storefront / Admin, whose cost cap is 1,000 points a query).
LIST_VARIANTS = 100
ADMIN_LIST_VARIANTS = 3
#: Products of one Admin page at most (40 with their first image and variants cost about 560 points).
ADMIN_PAGE = 40
#: Images read with a product (Storefront; the Admin API's list pages read the first only).
IMAGES = 10
ADMIN_LIST_IMAGES = 1
#: Variants read a request when every variant is wanted, and products read a request by id.
FULL_VARIANTS = 250
ADMIN_FULL_VARIANTS = 200
NODES_CHUNK = 50
ADMIN_NODES_CHUNK = 2

_IMAGE = """fragment StoreImage on Image {
  url altText width height
  w320: url(transform: {maxWidth: 320}) w640: url(transform: {maxWidth: 640}) w960: url(transform: {maxWidth: 960})
}"""
_SF_VARIANT = """fragment StoreVariant on ProductVariant {
  id title availableForSale price { amount currencyCode } selectedOptions { name value }
}"""
_SF_PRODUCT = """fragment StoreProduct on Product {
  id handle title descriptionHtml vendor productType tags
  featuredImage { ...StoreImage }
  images(first: $images) { nodes { ...StoreImage } }
  options { name }
  variants(first: $variants) { pageInfo { hasNextPage endCursor } nodes { ...StoreVariant } }
}"""
_AD_VARIANT = """fragment StoreVariant on ProductVariant {
  id title availableForSale price selectedOptions { name value }
}"""
_AD_PRODUCT = """fragment StoreProduct on Product {
  id handle title descriptionHtml vendor productType tags status
  media(first: $images) { nodes { ... on MediaImage { image { ...StoreImage } } } }
  options { name }
  variants(first: $variants) { pageInfo { hasNextPage endCursor } nodes { ...StoreVariant } }
}"""


class Dialect:
    """What differs between the Storefront and the Admin API: queries, sizes, visibility."""

    def __init__(self, admin: bool) -> None:
        self.admin = admin
        fragments = "\n".join((_IMAGE, _AD_VARIANT, _AD_PRODUCT) if admin else (_IMAGE, _SF_VARIANT, _SF_PRODUCT))
        self.list_variants = ADMIN_LIST_VARIANTS if admin else LIST_VARIANTS
        self.full_variants = ADMIN_FULL_VARIANTS if admin else FULL_VARIANTS
        self.nodes_chunk = ADMIN_NODES_CHUNK if admin else NODES_CHUNK
        self.max_page = ADMIN_PAGE if admin else MAX_PAGE_SIZE
        self.list_images = ADMIN_LIST_IMAGES if admin else IMAGES
        self.products = f"""query StoreProducts($first: Int!, $after: String, $query: String, $variants: Int!,
    $images: Int!) {{
  products(first: $first, after: $after, query: $query, sortKey: ID) {{
    pageInfo {{ hasNextPage endCursor }} nodes {{ ...StoreProduct }} }}
}}
{fragments}"""
        self.collection_products = f"""query StoreCollectionProducts($id: ID!, $first: Int!, $after: String,
    $variants: Int!, $images: Int!) {{
  collection(id: $id) {{ products(first: $first, after: $after) {{
    pageInfo {{ hasNextPage endCursor }} nodes {{ ...StoreProduct }} }} }}
}}
{fragments}"""
        self.collection_titles = """query StoreCollectionTitles($id: ID!, $after: String) {
  collection(id: $id) { products(first: 250, after: $after) { pageInfo { hasNextPage endCursor }
    nodes { id title } } }
}"""
        self.product = f"""query StoreProductById($id: ID!, $variants: Int!, $images: Int!) {{
  product(id: $id) {{ ...StoreProduct }}
}}
{fragments}"""
        self.nodes = f"""query StoreProductsById($ids: [ID!]!, $variants: Int!, $images: Int!) {{
  nodes(ids: $ids) {{ ... on Product {{ ...StoreProduct }} }}
}}
{fragments}"""
        variant = _AD_VARIANT if admin else _SF_VARIANT
        self.more_variants = f"""query StoreMoreVariants($id: ID!, $after: String, $variants: Int!) {{
  product(id: $id) {{ variants(first: $variants, after: $after) {{
    pageInfo {{ hasNextPage endCursor }} nodes {{ ...StoreVariant }} }} }}
}}
{variant}"""
        self.collections = """query StoreCollections($after: String) {
  collections(first: 250, after: $after) { pageInfo { hasNextPage endCursor } nodes { id title } }
}"""
        self.shop = ("{ shop { name myshopifyDomain primaryDomain { host url } } }" if admin
                     else "{ shop { name primaryDomain { host url } } }")

    def search(self, text: str) -> str:
        """The `query` argument: active products (Admin) whose title contains `text` (when given)."""
        terms = ["status:active"] if self.admin else []
        if text:
            terms.append(f"title:{quoted_search_value(text)}")
        return " AND ".join(terms)


def quoted_search_value(text: str) -> str:
    """`text` as one quoted value of Shopify's search syntax: backslash before \\ " : ( )."""
    return '"' + re.sub(r'([\\"():])', r"\\\1", text) + '"'
