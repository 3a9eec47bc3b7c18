"""The second store's catalogue (Shopify): the read model, its demo and its HTTP client.

May use: platform, media, catalog.
"""
