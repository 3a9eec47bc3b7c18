"""Test helper: record image addresses as prepared (without drawing files), as the preparer would."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import update
from sqlmodel import Session, col

from storefront.models import CatalogImage, ImageSource
from storefront.services.media.catalog_images import src_key
from storefront.services.media.images import PreparedImage, picture

SIZE = 800


def prepared(src: str) -> PreparedImage:
    """The renditions these tests pretend `src` has."""
    return PreparedImage(digest=src_key(src)[:24], width=SIZE, height=SIZE)


def shown(src: str) -> str:
    """The address a page shows for `src` once it is prepared."""
    return picture(prepared(src)).src


def remember_prepared(session: Session, srcs: Iterable[str]) -> None:
    """Record the addresses as prepared: rows already cached get them now, later syncs on upsert."""
    for src in set(srcs):
        done = prepared(src)
        session.merge(
            ImageSource(src_key=src_key(src), src=src, digest=done.digest, width=done.width, height=done.height)
        )
        session.exec(
            update(CatalogImage).where(col(CatalogImage.src) == src).values(digest=done.digest, width=SIZE, height=SIZE)
        )
    session.commit()
