"""The listing's search in its address (/products?q=...), as the header's search field opens it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from storefront.state.catalog import listing_url
from storefront.state.header import HeaderState


@pytest.mark.parametrize(
    ("query", "url"),
    [("hoodie", "/products?q=hoodie"), ("  hoodie ", "/products?q=hoodie"), ("", "/products"), ("   ", "/products")],
)
def test_the_listing_address_carries_the_trimmed_query(query: str, url: str) -> None:
    assert listing_url(query) == url


def test_a_query_with_reserved_characters_comes_back_as_typed() -> None:
    query = "tee & hoodie #1 50%"
    assert parse_qs(urlsplit(listing_url(query)).query)["q"] == [query]


def test_submitting_the_header_search_closes_it_and_opens_the_listing() -> None:
    state = HeaderState(_reflex_internal_init=True)  # type: ignore[call-arg]
    state.search_open = True
    redirect = state.search({"q": " hoodie "})
    assert state.search_open is False
    assert "/products?q=hoodie" in str(redirect)
