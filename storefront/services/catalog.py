"""Catalogue rules: collection derivation (listing and search arrive with the shopper's path)."""

from __future__ import annotations

from collections.abc import Iterable

from storefront.collections import DEFAULT_COLLECTION_KEY, DERIVATION_ORDER


def _matching_collection(text: str) -> str | None:
    lowered = text.lower()
    for collection in DERIVATION_ORDER:
        if any(keyword in lowered for keyword in collection.keywords):
            return collection.key
    return None


def derive_collection(tags: Iterable[str], title: str, description: str) -> str:
    """The collection key of a product: tags first, then title plus description, default swdnn."""
    return (
        _matching_collection(" ".join(tags))
        or _matching_collection(f"{title} {description}")
        or DEFAULT_COLLECTION_KEY
    )
