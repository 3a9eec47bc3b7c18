"""Catalogue rules: collection derivation and the storefront's read side of the cached catalogue.

Every read here comes from the database cache (catalog_product, catalog_variant, catalog_image);
nothing calls the print provider. Shoppers only ever see products that are active and published.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TypeVar

from sqlalchemy import func
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from storefront.models import CatalogImage, CatalogProduct, CatalogVariant
from storefront.services.catalog.text_search import search_condition
from storefront.services.collections import COLLECTIONS, DEFAULT_COLLECTION_KEY, DERIVATION_ORDER
from storefront.services.media.images import Picture, PreparedImage, picture
from storefront.services.platform.errors import NotFoundError, ValidationError

_Row = TypeVar("_Row", CatalogVariant, CatalogImage)

PLACEHOLDER_IMAGE = "/images/product-placeholder.jpg"
PLACEHOLDER_PICTURE = Picture(src=PLACEHOLDER_IMAGE, srcset="", width=800, height=800)
SIZE_ORDER: tuple[str, ...] = ("XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL")
PRODUCT_NOT_FOUND = "Product not found"
SIZE_NOT_AVAILABLE = "Size not available"
COLOR_NOT_AVAILABLE = "Color not available"
PREVIEW_POSITION = "preview"

_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_CSS_COLOUR_NAME = re.compile(r"[a-z]+")


# --------------------------------------------------------------------------- collection derivation


def _word_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """Any of `words` as a whole word, case-insensitive, optionally plural ('Zetas', 'Redz')."""
    alternatives = "|".join(re.escape(word) for word in words)
    return re.compile(rf"\b(?:{alternatives})[sz]?\b", re.IGNORECASE)


# An explicit collection key outranks every looser keyword ('HWDRN tee for a Kappa' is hwdrn).
_KEY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (collection.key, _word_pattern([collection.key])) for collection in DERIVATION_ORDER
)
_KEYWORD_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (collection.key, _word_pattern(collection.keywords)) for collection in DERIVATION_ORDER
)


def _matching_collection(text: str) -> str | None:
    """The collection named in `text`: keys first, then keywords, each in the spec's order."""
    text = text.replace("\u2019", "'")  # a typographic apostrophe still spells K's
    for patterns in (_KEY_PATTERNS, _KEYWORD_PATTERNS):
        found = next((key for key, pattern in patterns if pattern.search(text)), None)
        if found is not None:
            return found
    return None


def derive_collection(tags: Iterable[str], title: str, description: str) -> str:
    """The collection key of a product: tags first, then title plus description, default swdnn."""
    return (
        _matching_collection(" ".join(tags))
        or _matching_collection(f"{title} {description}")
        or DEFAULT_COLLECTION_KEY
    )


# --------------------------------------------------------------------------- read models


@dataclass(frozen=True, slots=True)
class ColourChoice:
    """One colour a shopper can choose: its swatch, price, sizes with their prices, and its image."""

    name: str
    swatch: str  # a CSS colour: the provider's hex, else the name when CSS knows it, else ""
    price_cents: int  # its first enabled variant's price
    sizes: tuple[str, ...]
    size_prices: dict[str, int]
    picture: Picture  # the colour's own mockup, else the product's image

    @property
    def image_url(self) -> str:
        return self.picture.src


@dataclass(frozen=True, slots=True)
class ProductSummary:
    """A product as a listing card shows it; price in cents, None when no variant is enabled.

    `colors` are the colours to choose between: empty when the product comes in one colour only."""

    id: str
    name: str
    description: str
    price_cents: int | None
    picture: Picture
    collection_key: str
    is_active: bool
    has_variants: bool
    sizes: tuple[str, ...]
    colors: tuple[ColourChoice, ...]

    @property
    def image_url(self) -> str:
        return self.picture.src


@dataclass(frozen=True, slots=True)
class ProductDetail(ProductSummary):
    """A product as its detail page shows it: summary plus HTML description and each size's price."""

    description_html: str
    size_prices: dict[str, int]
    is_sample: bool


@dataclass(frozen=True, slots=True)
class LinePrice:
    """The unit price of a cart line, the provider variant it orders and the line's colour ("" when
    the product comes in one colour only)."""

    price_cents: int
    variant_id: str
    color: str = ""


# --------------------------------------------------------------------------- pure helpers


def opening_colour(product: ProductSummary) -> ColourChoice | None:
    """The colour a product page opens on, before the shopper picks (the first); None for a product
    in one colour. The page's state and the first HTML's opening view both start from it."""
    return product.colors[0] if product.colors else None


def plain_text(description_html: str) -> str:
    """Description HTML as plain text: tags stripped, entities decoded, whitespace collapsed."""
    text = html.unescape(_TAG.sub(" ", description_html or ""))
    return _SPACE.sub(" ", text).strip()


def image_picture(image: CatalogImage | None) -> Picture:
    """The renditions of a cached image; the placeholder until they are prepared (never the
    provider's own address: provider images are copied in, not hot-linked)."""
    if image is None or not image.digest:
        return PLACEHOLDER_PICTURE
    return picture(PreparedImage(digest=image.digest, width=image.width, height=image.height))


def chosen_image(images: Iterable[CatalogImage]) -> CatalogImage | None:
    """The 'preview' image, else the first image by sort_order; None when there is none."""
    ordered = sorted((image for image in images if image.src), key=lambda image: image.sort_order)
    preview = next((i for i in ordered if (i.position or "").lower() == PREVIEW_POSITION), None)
    return preview or (ordered[0] if ordered else None)


def pick_image(images: Iterable[CatalogImage]) -> Picture:
    """The picture of the chosen image, else the placeholder."""
    return image_picture(chosen_image(images))


def _in_colour(variant: CatalogVariant, color: str | None) -> bool:
    """Whether the variant is of `color`; no colour (None or "") matches every variant."""
    return not color or variant.color == color


def enabled_colours(variants: Iterable[CatalogVariant]) -> tuple[str, ...]:
    """Distinct colours of enabled variants in provider order (a variant without colour adds none)."""
    seen: dict[str, None] = {}
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and variant.color:
            seen.setdefault(variant.color)
    return tuple(seen)


def enabled_sizes(variants: Iterable[CatalogVariant]) -> tuple[str, ...]:
    """Distinct sizes of enabled variants in SIZE_ORDER; unknown sizes after, first-seen order."""
    seen: list[str] = []
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and variant.size and variant.size not in seen:
            seen.append(variant.size)
    return in_size_order(seen)


def in_size_order(sizes: Iterable[str]) -> tuple[str, ...]:
    """Sizes in SIZE_ORDER; unknown sizes after, in the order given."""
    rank = {size: index for index, size in enumerate(SIZE_ORDER)}
    # sorted() is stable, so unknown sizes (all ranked last) keep their first-seen order.
    return tuple(sorted(sizes, key=lambda size: rank.get(size, len(SIZE_ORDER))))


def first_enabled_variant(
    variants: Iterable[CatalogVariant], size: str | None = None, color: str | None = None
) -> CatalogVariant | None:
    """The variant a line ships: the first enabled one in provider order, of exactly `size` when
    given (an empty size matches nothing), of any size when None; of `color` when one is given."""
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and (size is None or (size and variant.size == size)) and _in_colour(variant, color):
            return variant
    return None


def listing_price(variants: Iterable[CatalogVariant]) -> int | None:
    """Price of the first enabled variant in provider order, None when none is enabled."""
    variant = first_enabled_variant(variants)
    return variant.price_cents if variant is not None else None


def size_prices(variants: Sequence[CatalogVariant]) -> dict[str, int]:
    """Each offered size's price: what line_price charges for that size."""
    prices: dict[str, int] = {}
    for size in enabled_sizes(variants):
        variant = first_enabled_variant(variants, size)
        if variant is not None:
            prices[size] = variant.price_cents
    return prices


def swatch_colour(variant: CatalogVariant) -> str:
    """The CSS colour of a variant's swatch: its hex, else its name when that is a plain word
    ('Black', 'Royal Blue' -> 'royalblue'; a name CSS does not know leaves the swatch blank)."""
    if variant.color_hex:
        return variant.color_hex
    name = variant.color.lower().replace(" ", "")
    return name if _CSS_COLOUR_NAME.fullmatch(name) else ""


def colour_image(images: Sequence[CatalogImage], color: str) -> Picture | None:
    """The image of one colour (its 'preview', else its first), None when no image is of it alone."""
    own = [image for image in images if image.color == color and image.src]
    return pick_image(own) if own else None


def colour_choices(variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> tuple[ColourChoice, ...]:
    """The colours a shopper chooses between, in provider order; empty for a one-colour product."""
    # One pass in provider order (every listing card needs this): each colour's first enabled
    # variant, and the price of its first enabled variant of each size, as line_price picks them.
    firsts: dict[str, CatalogVariant] = {}
    prices: dict[str, dict[str, int]] = {}
    for variant in sorted(variants, key=lambda v: v.sort_order):
        if variant.is_enabled and variant.color:
            firsts.setdefault(variant.color, variant)
            if variant.size:
                prices.setdefault(variant.color, {}).setdefault(variant.size, variant.price_cents)
    if len(firsts) < 2:
        return ()
    fallback = pick_image(images)
    choices: list[ColourChoice] = []
    for colour, first in firsts.items():
        by_size = prices.get(colour, {})
        sizes = in_size_order(by_size)
        choices.append(
            ColourChoice(
                name=colour,
                swatch=swatch_colour(first),
                price_cents=first.price_cents,
                sizes=sizes,
                size_prices={size: by_size[size] for size in sizes},
                picture=colour_image(images, colour) or fallback,
            )
        )
    return tuple(choices)


def _summary(row: CatalogProduct, variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> ProductSummary:
    """The listing card of a cached product."""
    price_cents = listing_price(variants)
    return ProductSummary(
        id=row.id,
        name=row.title,
        description=plain_text(row.description),
        price_cents=price_cents,
        picture=pick_image(images),
        collection_key=row.collection_key,
        is_active=row.is_active,
        has_variants=price_cents is not None,
        sizes=enabled_sizes(variants),
        colors=colour_choices(variants, images),
    )


def _detail(row: CatalogProduct, variants: Sequence[CatalogVariant], images: Sequence[CatalogImage]) -> ProductDetail:
    """The detail view of a cached product."""
    summary = _summary(row, variants, images)
    return ProductDetail(
        **{field.name: getattr(summary, field.name) for field in fields(summary)},
        description_html=row.description,
        size_prices=size_prices(variants),
        is_sample=False,
    )


# --------------------------------------------------------------------------- sample products


def _sample(product_id: str, name: str, price_cents: int, description_html: str) -> ProductDetail:
    """One built-in sample product (swdnn, sizes S-XL at one price, placeholder image)."""
    sizes = ("S", "M", "L", "XL")
    return ProductDetail(
        id=product_id,
        name=name,
        description=plain_text(description_html),
        price_cents=price_cents,
        picture=PLACEHOLDER_PICTURE,
        collection_key=DEFAULT_COLLECTION_KEY,
        is_active=True,
        has_variants=True,
        sizes=sizes,
        colors=(),
        description_html=description_html,
        size_prices=dict.fromkeys(sizes, price_cents),
        is_sample=True,
    )


#: The spec's built-in fallbacks for /product/{id}: shown, never listed, never orderable.
SAMPLE_PRODUCTS: tuple[ProductDetail, ...] = (
    _sample(
        "sample-1",
        "SWDNN Classic Crimson Tee",
        2499,
        "<p>A soft ringspun cotton tee in crimson with the SWDNN letters printed in cream across the chest.</p>"
        "<p>Regular fit, ribbed crew neck and double-stitched hems.</p>",
    ),
    _sample(
        "sample-2",
        "SWDNN Signature Pullover Hoodie",
        4999,
        "<p>A cosy cotton-blend fleece hoodie with a lined hood, drawstrings and a kangaroo pocket.</p>"
        "<p>Crimson body with cream SWDNN lettering.</p>",
    ),
    _sample(
        "sample-3",
        "SWDNN Everyday Cream Tee",
        1999,
        "<p>A lightweight everyday tee in cream with a small crimson SWDNN mark on the chest.</p>"
        "<p>Pre-shrunk cotton for a fit that lasts.</p>",
    ),
)
SAMPLE_PRODUCTS_BY_ID: dict[str, ProductDetail] = {p.id: p for p in SAMPLE_PRODUCTS}


# --------------------------------------------------------------------------- queries


def _shown() -> ColumnElement[bool]:
    """SQL condition: the product is shown to shoppers (active and published)."""
    return (col(CatalogProduct.is_active).is_(True)) & (col(CatalogProduct.is_published).is_(True))


def _grouped_by_product(session: Session, model: type[_Row], product_ids: Sequence[str]) -> dict[str, list[_Row]]:
    """Rows of `model` for these products in their sort order, grouped by product id (one query)."""
    grouped: dict[str, list[_Row]] = {pid: [] for pid in product_ids}
    if not product_ids:
        return grouped
    rows = session.exec(
        select(model).where(col(model.product_id).in_(product_ids)).order_by(col(model.sort_order), col(model.id))
    ).all()
    for row in rows:
        grouped[row.product_id].append(row)
    return grouped


def _variants_by_product(session: Session, product_ids: Sequence[str]) -> dict[str, list[CatalogVariant]]:
    return _grouped_by_product(session, CatalogVariant, product_ids)


def _images_by_product(session: Session, product_ids: Sequence[str]) -> dict[str, list[CatalogImage]]:
    return _grouped_by_product(session, CatalogImage, product_ids)


def matching(
    *, query: str = "", collection_key: str | None = None, match_description: bool = False
) -> list[ColumnElement[bool]]:
    """SQL conditions of a storefront search: shown, the query in the title (or the description,
    case-insensitive substring, from the text index), in the collection when one is given."""
    conditions = [_shown()]
    searched = search_condition(query, in_description=match_description)
    if searched is not None:
        conditions.append(searched)
    if collection_key is not None:
        conditions.append(col(CatalogProduct.collection_key) == collection_key.strip().lower())
    return conditions


#: The listing order, newest first: undated last on every backend, then title, then id (unique),
#: so the order is total and a keyset cursor can resume it.
LISTING_ORDER = (
    col(CatalogProduct.provider_created_at).is_(None),
    col(CatalogProduct.provider_created_at).desc(),
    col(CatalogProduct.title),
    col(CatalogProduct.id),
)


def search_products(
    session: Session,
    *,
    query: str = "",
    collection_key: str | None = None,
    match_description: bool = False,
    limit: int | None = None,
    offset: int = 0,
) -> list[ProductSummary]:
    """Shown products whose title (or description) contains the query, newest first."""
    statement = (
        select(CatalogProduct)
        .where(*matching(query=query, collection_key=collection_key, match_description=match_description))
        .order_by(*LISTING_ORDER)
    )
    if offset:
        statement = statement.offset(max(offset, 0))
    if limit is not None:
        statement = statement.limit(max(limit, 0))
    rows = session.exec(statement).all()
    ids = [row.id for row in rows]
    variants = _variants_by_product(session, ids)
    images = _images_by_product(session, ids)
    return [_summary(row, variants[row.id], images[row.id]) for row in rows]


def newest_products(session: Session, limit: int = 12) -> list[ProductSummary]:
    """The newest shown products."""
    return search_products(session, limit=limit)


def collection_counts(session: Session) -> dict[str, int]:
    """Shown products per collection key, every collection present (0 when empty)."""
    rows = session.exec(
        select(CatalogProduct.collection_key, func.count())
        .where(_shown())
        .group_by(col(CatalogProduct.collection_key))
    ).all()
    found = {key: int(count) for key, count in rows}
    return {collection.key: found.get(collection.key, 0) for collection in COLLECTIONS}


def _shown_product(session: Session, product_id: str) -> CatalogProduct | None:
    """The cached product if it is shown to shoppers, else None."""
    row = session.get(CatalogProduct, product_id) if product_id else None
    return row if row is not None and row.is_active and row.is_published else None


def storefront_handle(product_id: str) -> str:
    """Where the storefront shows a product (the `external.handle` told to the provider)."""
    return f"/product/{product_id}"


def get_product(session: Session, product_id: str) -> ProductDetail:
    """A shown cached product, else the sample with this id; NotFoundError otherwise."""
    row = _shown_product(session, product_id)
    if row is not None:
        ids = [row.id]
        return _detail(row, _variants_by_product(session, ids)[row.id], _images_by_product(session, ids)[row.id])
    sample = SAMPLE_PRODUCTS_BY_ID.get(product_id)
    if sample is not None:
        return sample
    raise NotFoundError(PRODUCT_NOT_FOUND)


@dataclass(frozen=True, slots=True)
class OrderableProduct:
    """What pricing a cart line needs of a shown product: its name, variants and images."""

    id: str
    name: str
    variants: tuple[CatalogVariant, ...]
    images: tuple[CatalogImage, ...]

    @property
    def has_variants(self) -> bool:
        return listing_price(self.variants) is not None

    def line_image(self, color: str) -> str:
        """The picture a line of `color` shows: the colour's own, else the product's."""
        fallback = pick_image(self.images)
        if color and len(enabled_colours(self.variants)) > 1:
            return (colour_image(self.images, color) or fallback).src
        return fallback.src


def orderable_products(session: Session, product_ids: Iterable[str]) -> dict[str, OrderableProduct]:
    """The shown products among `product_ids` (samples and hidden ones are absent), read in two
    queries however many there are: names with variants (the prices), then images."""
    ids = list(dict.fromkeys(pid for pid in product_ids if pid))
    if not ids:
        return {}
    rows = session.exec(
        select(CatalogProduct.id, CatalogProduct.title, CatalogVariant)
        .outerjoin(CatalogVariant, col(CatalogVariant.product_id) == col(CatalogProduct.id))
        .where(col(CatalogProduct.id).in_(ids), _shown())
        .order_by(col(CatalogVariant.sort_order), col(CatalogVariant.id))
    ).all()
    names: dict[str, str] = {}
    variants: dict[str, list[CatalogVariant]] = {}
    for product_id, title, variant in rows:
        names[product_id] = title
        found = variants.setdefault(product_id, [])
        if variant is not None:
            found.append(variant)
    images = _images_by_product(session, list(names))
    return {
        pid: OrderableProduct(pid, names[pid], tuple(variants[pid]), tuple(images[pid])) for pid in names
    }


def line_price(session: Session, product_id: str, size: str, color: str = "") -> LinePrice:
    """Unit price of a cart line: the first enabled variant of exactly that size, in that colour.

    Without a colour (carts and API callers from before colours) it is the first colour that comes
    in the size, and the line takes that colour when the product comes in several."""
    row = _shown_product(session, product_id)
    if row is None:  # unknown, hidden, or a sample (samples cannot be ordered)
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return price_in(_variants_by_product(session, [row.id])[row.id], size, color)


def price_in(variants: Sequence[CatalogVariant], size: str, color: str = "") -> LinePrice:
    """line_price's rule over a product's variants already read."""
    colours = enabled_colours(variants)
    if color and color not in colours:
        raise ValidationError(COLOR_NOT_AVAILABLE, {"color": COLOR_NOT_AVAILABLE})
    variant = first_enabled_variant(variants, size, color)
    if variant is None:
        raise ValidationError(SIZE_NOT_AVAILABLE, {"size": SIZE_NOT_AVAILABLE})
    return LinePrice(
        price_cents=variant.price_cents,
        variant_id=str(variant.variant_id),
        color=variant.color if len(colours) > 1 else "",
    )
