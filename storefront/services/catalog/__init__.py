"""Catalog: the products in the cache and what shoppers see of them.

Collections and the storefront's read side of the cached catalogue (`catalog.py`), listing cards
kept ready by session hooks (`listing.py`), the one search rule (`text_search.py`), copying the
provider's products into the cache (`sync.py`), the store's start-up sync (`store_catalogue.py`)
and the demo's first catalogue with its tiles (`seed.py`). Nothing here calls the provider while
a shopper waits.

May use: platform, collections, media, printify.
"""
