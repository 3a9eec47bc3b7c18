"""Content: the store's own pages of text (privacy, terms, refunds, shipping, contact), their
defaults written from the settings, staff's Markdown edits rendered and sanitised (`store_pages.py`),
and the contact form's messages to the support address through the mail outbox (`contact.py`).

May use: platform, mail, orders, shopify.
"""
