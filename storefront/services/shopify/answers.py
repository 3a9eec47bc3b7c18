"""Reading Shopify's GraphQL answers: products with their variants and images, connections and
their cursors, and a cart's errors and warnings in plain words."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from storefront.services.shopify import ids
from storefront.services.shopify.catalogue import (
    CheckoutLine,
    StoreImage,
    StoreProduct,
    StoreUnavailable,
    StoreVariant,
    price_cents,
)

log = logging.getLogger(__name__)

#: Renditions asked of Shopify's image CDN for a srcset.
IMAGE_WIDTHS = (320, 640, 960)


def _image(raw: Any) -> StoreImage | None:
    if not isinstance(raw, dict) or not raw.get("url"):
        return None
    renditions = tuple((w, str(raw[f"w{w}"])) for w in IMAGE_WIDTHS if raw.get(f"w{w}"))
    return StoreImage(src=str(raw["url"]), alt=str(raw.get("altText") or ""), width=int(raw.get("width") or 0),
                      height=int(raw.get("height") or 0), renditions=renditions)


def _variant(raw: dict[str, Any]) -> StoreVariant:
    price = raw.get("price")
    amount = price.get("amount") if isinstance(price, dict) else price
    gid = str(raw["id"])
    return StoreVariant(
        id=ids.numeric_id(gid, ids.VARIANT),
        title=str(raw.get("title") or ""),
        price_cents=price_cents(amount) if amount is not None else None,
        options=tuple(str(o.get("value") or "") for o in raw.get("selectedOptions") or [] if isinstance(o, dict)),
        gid=gid,
        available=bool(raw.get("availableForSale", True)),
    )


def parse_graphql_product(raw: dict[str, Any], extra_variants: Sequence[dict[str, Any]] = ()) -> StoreProduct:
    """A product from a Storefront or Admin GraphQL answer (the `StoreProduct` fragment); ValueError
    or KeyError when it lacks its id or title. `extra_variants` are the variants of further pages."""
    gid = str(raw["id"])
    if "media" in raw:  # Admin: images are media
        image_nodes = [m.get("image") for m in (raw.get("media") or {}).get("nodes") or [] if isinstance(m, dict)]
    else:
        image_nodes = [*((raw.get("images") or {}).get("nodes") or [])]
        featured = raw.get("featuredImage")
        if isinstance(featured, dict) and all(n.get("url") != featured.get("url") for n in image_nodes
                                              if isinstance(n, dict)):
            image_nodes.insert(0, featured)
    variants = []
    for node in [*((raw.get("variants") or {}).get("nodes") or []), *extra_variants]:
        try:
            variants.append(_variant(node))
        except (KeyError, TypeError, ValueError):
            log.warning("Skipped an unreadable Shopify variant of %s", gid)
    return StoreProduct(
        id=ids.numeric_id(gid, ids.PRODUCT),
        title=str(raw["title"]),
        body_html=str(raw.get("descriptionHtml") or ""),
        vendor=str(raw.get("vendor") or ""),
        product_type=str(raw.get("productType") or ""),
        tags=tuple(str(t) for t in raw.get("tags") or [] if str(t).strip()),
        option_names=tuple(str(o.get("name") or "") for o in raw.get("options") or [] if isinstance(o, dict)),
        variants=tuple(variants),
        images=tuple(image for image in (_image(n) for n in image_nodes) if image is not None),
        gid=gid,
        handle=str(raw.get("handle") or ""),
    )


def refuses_cursor(failure: StoreUnavailable) -> bool:
    """Whether the store answered a request error naming the cursor (Shopify: 'Invalid cursor for
    current pagination sort.', HTTP 200 with errors[]), not an outage."""
    details = failure.details if isinstance(failure.details, dict) else {}
    return details.get("status") in (200, 400) and "cursor" in str(details.get("errors", "")).lower()


def connection_page(data: Any, failure: str) -> tuple[list[Any], str]:
    """(nodes, next cursor or "") of a connection answer; StoreUnavailable when it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise StoreUnavailable(failure, details={"error": "unreadable connection"})
    page = data.get("pageInfo") or {}
    return data["nodes"], str(page.get("endCursor") or "") if page.get("hasNextPage") else ""


def checkout_problems(lines: Sequence[CheckoutLine], payload: dict[str, Any]) -> list[str]:
    """cartCreate's userErrors and stock warnings, each in plain words naming the shopper's line."""
    by_gid = {line.variant_gid: line for line in lines}
    cart = payload.get("cart") if isinstance(payload.get("cart"), dict) else {}
    kept: dict[str, int] = {}
    for node in ((cart.get("lines") or {}).get("nodes") or []) if cart else []:
        merchandise = node.get("merchandise") if isinstance(node, dict) else None
        if isinstance(merchandise, dict) and merchandise.get("id"):
            kept[str(merchandise["id"])] = int(node.get("quantity") or 0)
    problems: list[str] = []
    for error in payload.get("userErrors") or []:
        if not isinstance(error, dict):
            continue
        field = [str(f) for f in error.get("field") or []]
        line = None
        if len(field) >= 3 and field[1] == "lines" and field[2].isdigit() and int(field[2]) < len(lines):
            line = lines[int(field[2])]
        code = str(error.get("code") or "")
        label = line.label if line else "An item"
        if code == "INVALID" and line is not None:
            problems.append(f"{label} is no longer sold by the store. Please remove it from your cart.")
        elif code == "LESS_THAN" and line is not None:
            problems.append(f"{label}: the quantity must be at least 1.")
        elif code == "CART_TOO_LARGE":
            problems.append("Too many different items for one checkout on the store. Please remove some.")
        else:
            problems.append(f"{label}: {error.get('message') or 'the store refused it'}")
    for warning in payload.get("warnings") or []:
        if not isinstance(warning, dict):
            continue
        line = by_gid.get(str(warning.get("target") or ""))
        label = line.label if line else "An item"
        code = str(warning.get("code") or "")
        if code == "MERCHANDISE_OUT_OF_STOCK":
            problems.append(f"{label} is sold out. Please remove it from your cart.")
        elif code == "MERCHANDISE_NOT_ENOUGH_STOCK":
            left = kept.get(line.variant_gid) if line else None
            only = f"only {left} left" if left else "not that many left"
            problems.append(f"{label}: {only} in stock. Please lower the quantity.")
        else:
            problems.append(f"{label}: {warning.get('message') or 'the store changed it'}")
    return problems
