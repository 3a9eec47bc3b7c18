"""Business rules in plain Python (no Reflex), one package per commerce domain.

Each package's __init__ says what the domain owns and which other domains it may use ("May
use: ..."); imports between domains never go round in a circle, and platform uses none
(tests/unit/project/test_layering.py holds the code to all three).

`catalog.listing` is imported here so that its session hooks, which keep each product's listing
card in step with its variants and images, are installed before any service writes the catalogue."""

from storefront.services.catalog import listing as _listing  # noqa: F401
