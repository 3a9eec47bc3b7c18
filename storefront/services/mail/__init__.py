"""Mail: the emails the store writes to its customers.

Messages are queued in the database in the transaction that causes them (`outbox.py`) and sent
by one worker at a time, retried with backoff, through SMTP or, with no SMTP_URL, written as
.eml files under DATA_DIR/mail/ (`mailers.py`). Messages are rendered from the Jinja2 templates
in templates/ (`templates.py`: HTML autoescaped, plain text), in the store's name and colours,
with the support address, postal address and policy links in every footer; their pictures are
JPEG copies of the WebP renditions (`pictures.py`), which Outlook on the desktop does not show.

May use: platform, collections, media.
"""
