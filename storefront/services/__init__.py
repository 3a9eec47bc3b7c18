"""Business rules in plain Python (no Reflex).

`listing` is imported here so that its session hooks, which keep each product's listing card in
step with its variants and images, are installed before any service writes the catalogue."""

from storefront.services.catalog import listing as _listing  # noqa: F401
