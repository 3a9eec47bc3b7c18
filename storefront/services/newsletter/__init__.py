"""Newsletter: the addresses that asked for the store's news, with double opt-in.

Signing up (`subscriptions.py`) keeps an address once, lower-cased, and queues a confirmation
email with a signed, expiring confirm link; only a confirmed address counts, until it follows the
unsubscribe link every newsletter message carries. The page answers alike for a new and a known
address. The confirmation email is rendered from the Jinja2 templates in `templates/`
(`emails.py`), with NEWSLETTER_WELCOME_PERCENT a single-use welcome code emailed on the
first confirmation; the back office counts confirmed subscribers and exports them as CSV.

May use: platform, mail, discounts.
"""
