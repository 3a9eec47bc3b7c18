"""Storefront: a print-on-demand apparel shop with an admin back office."""
