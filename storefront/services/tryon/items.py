"""The Available Items of the try-on page: tops from the catalogue, and the picture each is cut from.

A catalogue picture may come with a transparent cut-out of the garment beside it, named by
`images.cutout_path` (the demo catalogue draws one for every front mockup). The engine then uses the
cut-out as it is; without one it cuts the garment from the picture's largest rendition itself.

`POST /api/try-on` is given a picture, not an item: `store_garment` recognises a picture that is
one of the store's own (the source a catalogue picture was prepared from, by its digest, or one of
its renditions, byte for byte), so the API dresses the photo in the same prepared garment as the page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

from sqlmodel import Session, col, select

from storefront.models import CatalogImage, CatalogProduct
from storefront.services.catalog.catalog import LISTING_ORDER, chosen_image, matching
from storefront.services.media.images import (
    cutout_path,
    digest_of,
    rendition_name,
    rendition_url,
    rendition_widths,
)
from storefront.services.media.uploads import UPLOADS_URL
from storefront.services.platform.errors import NotFoundError

#: How many items the page offers (spec: 'list of three Available Items').
ITEM_COUNT = 3
#: Newest products looked at when picking the items.
CANDIDATES = 200
ITEM_GONE = "This item can no longer be tried on. Choose another one."

#: Garments a person wears on the upper body, by family; the page offers one of each family first.
_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tee", re.compile(r"\b(t-?shirts?|tees?|tank\s*tops?|jerseys?|polos?)\b", re.IGNORECASE)),
    ("hoodie", re.compile(r"\b(hoodies?|hooded)\b", re.IGNORECASE)),
    ("sweatshirt", re.compile(r"\b(crewnecks?|sweatshirts?|sweaters?|jumpers?|long\s*sleeve)\b", re.IGNORECASE)),
)


@dataclass(frozen=True, slots=True)
class TryOnItem:
    """A product offered on the try-on page: its picture (`image_url`, a rendition) and where the
    garment is cut from (`src`, the catalogue picture's source, prepared as `digest` at `width`)."""

    id: str
    name: str
    image_url: str
    src: str
    digest: str
    width: int


def family(title: str, tags: list[str]) -> str | None:
    """'tee', 'hoodie' or 'sweatshirt' for a top (by its title, then its tags); None for anything else."""
    for text in (title, " ".join(tags)):
        for name, pattern in _FAMILIES:
            if pattern.search(text):
                return name
    return None


def _tags(tags_json: str) -> list[str]:
    try:
        tags = json.loads(tags_json or "[]")
    except ValueError:
        return []
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


class _Top(NamedTuple):
    id: str
    title: str
    kind: str
    collection: str
    picture: CatalogImage


def _tops(session: Session, *conditions: Any, limit: int = CANDIDATES) -> list[_Top]:
    """Shown tops (matching `conditions` too) with a prepared picture, newest first."""
    rows = session.exec(
        select(CatalogProduct.id, CatalogProduct.title, CatalogProduct.tags_json, CatalogProduct.collection_key)
        .where(*matching(), *conditions)
        .order_by(*LISTING_ORDER)
        .limit(limit)
    ).all()
    kinds = {pid: kind for pid, title, tags, _ in rows if (kind := family(title, _tags(tags))) is not None}
    pictures = _pictures(session, list(kinds))
    return [
        _Top(pid, title, kinds[pid], collection, pictures[pid])
        for pid, title, _, collection in rows
        if pid in kinds and pid in pictures
    ]


def available_items(session: Session, count: int = ITEM_COUNT, first: str = "") -> list[TryOnItem]:
    """Up to `count` shown tops with a prepared picture, newest first, one of each family before a
    second of any (a tee, a hoodie and a sweatshirt when the catalogue has them), each from another
    collection where the catalogue allows, so the items differ in look too. The product `first`
    (a shopper coming from its page) leads the list when it is such a top."""
    tops = _tops(session)
    chosen = _tops(session, col(CatalogProduct.id) == first, limit=1) if first else []
    tops = [top for top in tops if top.id != first]
    for kind in dict.fromkeys(top.kind for top in tops):
        if any(top.kind == kind for top in chosen):
            continue
        used = {top.collection for top in chosen}
        of_kind = [top for top in tops if top.kind == kind]
        chosen.append(next((top for top in of_kind if top.collection not in used), of_kind[0]))
    picked = {top.id for top in chosen}
    ordered = chosen + [top for top in tops if top.id not in picked]
    return [_item(top) for top in ordered[:count]]


class ItemView(TypedDict):
    """An item as the try-on page lists it."""

    id: str
    name: str
    image_url: str


def item_views(session: Session, first: str = "") -> list[ItemView]:
    """The available items (`first` leading) as the try-on page lists them."""
    return [ItemView(id=i.id, name=i.name, image_url=i.image_url) for i in available_items(session, first=first)]


def find_item(session: Session, product_id: str) -> TryOnItem:
    """The item of this product when it can still be tried on; NotFoundError otherwise."""
    found = _tops(session, col(CatalogProduct.id) == product_id, limit=1)
    if not found:
        raise NotFoundError(ITEM_GONE)
    return _item(found[0])


def _pictures(session: Session, product_ids: list[str]) -> dict[str, CatalogImage]:
    """Each product's chosen picture, when it is prepared (has renditions)."""
    grouped: dict[str, list[CatalogImage]] = {}
    if product_ids:
        for image in session.exec(select(CatalogImage).where(col(CatalogImage.product_id).in_(product_ids))).all():
            grouped.setdefault(image.product_id, []).append(image)
    chosen = {pid: chosen_image(images) for pid, images in grouped.items()}
    return {pid: image for pid, image in chosen.items() if image is not None and image.digest}


def _item(top: _Top) -> TryOnItem:
    image = top.picture
    widths = rendition_widths(image.width)
    shown = max((w for w in widths if w <= 640), default=widths[0])
    return TryOnItem(
        id=top.id,
        name=top.title,
        image_url=rendition_url(image.digest, shown),
        src=image.src,
        digest=image.digest,
        width=image.width,
    )


def garment_picture(item: TryOnItem, upload_dir: Path, media_dir: Path) -> bytes:
    """The bytes the garment is cut from: the picture's cut-out when it has one (a picture served
    from the uploads folder), else its largest rendition; NotFoundError when neither is there."""
    if item.src.startswith(UPLOADS_URL + "/"):
        local = (upload_dir / item.src.removeprefix(UPLOADS_URL + "/")).resolve()
        cutout = cutout_path(local)
        if local.is_relative_to(upload_dir.resolve()) and cutout.is_file():
            return cutout.read_bytes()
    rendition = media_dir / rendition_name(item.digest, rendition_widths(item.width)[-1])
    try:
        return rendition.read_bytes()
    except OSError:
        raise NotFoundError(ITEM_GONE) from None


def recognised_item(session: Session, picture: bytes, media_dir: Path) -> TryOnItem | None:
    """The item whose picture these bytes are: the source its picture was prepared from, or one of
    that picture's renditions (among the newest CANDIDATES tops); None for any other picture."""
    digest = digest_of(picture)
    owners = session.exec(select(CatalogImage.product_id).where(col(CatalogImage.digest) == digest)).all()
    for product_id in dict.fromkeys(owners):
        found = _tops(session, col(CatalogProduct.id) == product_id, limit=1)
        if found and found[0].picture.digest == digest:
            return _item(found[0])
    size = len(picture)
    for top in _tops(session):
        for width in rendition_widths(top.picture.width):
            path = media_dir / rendition_name(top.picture.digest, width)
            try:
                # The size first: only a file of the same length is read and compared.
                if path.stat().st_size == size and path.read_bytes() == picture:
                    return _item(top)
            except OSError:
                continue
    return None


def store_garment(session: Session, picture: bytes, upload_dir: Path, media_dir: Path) -> bytes | None:
    """The bytes the page cuts the garment from (`garment_picture`) when `picture` is one of an
    item's own pictures (`recognised_item`); None for a picture the store did not make."""
    item = recognised_item(session, picture, media_dir)
    if item is None:
        return None
    try:
        return garment_picture(item, upload_dir, media_dir)
    except NotFoundError:
        return None


def offers_try_on(name: str) -> bool:
    """Whether a product's page offers Try It On: a garment worn on the upper body, by its name."""
    return bool(family(name, []))
