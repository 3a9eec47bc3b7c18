"""Shopify's ids: gids (`gid://shopify/ProductVariant/44210000000001`) are what the GraphQL APIs
name things with; the numeric id (the gid's last part) is what the spec's routes and cart items
carry. Both directions live here and nowhere else.

Shopify says the gid format is not a public contract, but the plain `gid://shopify/<Type>/<digits>`
form is what every version since 2022-04 answers (contract §0, §4 'Getting the numeric id')."""

from __future__ import annotations

import re

_GID = re.compile(r"^gid://shopify/(?P<kind>[A-Za-z]+)/(?P<number>[1-9][0-9]{0,18})(?:\?.*)?$")
PRODUCT = "Product"
VARIANT = "ProductVariant"
COLLECTION = "Collection"


def numeric_id(gid: str, kind: str) -> int:
    """The number of a gid of `kind` ("Product", "ProductVariant", "Collection"); ValueError for
    anything else (another kind, a base64 id, a number too large for 64 bits)."""
    match = _GID.match(str(gid or "").strip())
    if match is None or match.group("kind") != kind:
        raise ValueError(f"not a {kind} gid: {gid!r}")
    number = int(match.group("number"))
    if number >= 2**63:
        raise ValueError(f"not a {kind} gid: {gid!r}")
    return number


def shopify_gid(kind: str, number: int | str) -> str:
    """The gid of a numeric id (a product page opened by its URL's id, a cart line stored before gids)."""
    value = int(str(number).strip())
    if not 0 < value < 2**63:
        raise ValueError(f"not a Shopify id: {number!r}")
    return f"gid://shopify/{kind}/{value}"
