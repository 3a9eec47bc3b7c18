"""SQLModel tables. The schema is created only by the Alembic migrations in alembic/versions."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

#: The integer range both databases store (SQLite INTEGER, PostgreSQL BIGINT): ids and offsets
#: outside it are refused before the database driver fails on them with an error of its own.
DB_INT_MIN = -(2**63)
DB_INT_MAX = 2**63 - 1


def utcnow() -> datetime:
    return datetime.now(UTC)


class CatalogProduct(SQLModel, table=True):
    """A provider product as cached for the storefront, with its collection placement."""

    __tablename__ = "catalog_product"

    id: str = Field(primary_key=True, max_length=64)
    shop_id: int = Field(index=True)
    title: str = Field(max_length=255)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    tags_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    collection_key: str = Field(index=True, max_length=16)
    #: True once staff placed the product by hand; sync then keeps the placement.
    collection_assigned: bool = Field(default=False)
    #: Shown on the storefront (the admin visibility toggle).
    is_active: bool = Field(default=True, index=True)
    #: When staff archived it: hidden from the store and the back office's lists, kept for the
    #: orders that name it; a sync leaves it archived.
    archived_at: datetime | None = Field(default=None, index=True)
    #: Whether it was shown when staff archived it: Restore brings it back as it was.
    shown_before_archive: bool | None = Field(default=None)
    is_published: bool = Field(default=False)
    blueprint_id: int | None = Field(default=None)
    print_provider_id: int | None = Field(default=None)
    provider_created_at: datetime | None = Field(default=None, index=True)
    provider_updated_at: datetime | None = Field(default=None)
    synced_at: datetime = Field(default_factory=utcnow)
    #: The listing card (services/catalog/listing.py), rebuilt whenever the variants or images change.
    card_json: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class CatalogVariant(SQLModel, table=True):
    """One variant (colour and size) of a cached product; price in cents."""

    __tablename__ = "catalog_variant"
    __table_args__ = (UniqueConstraint("product_id", "variant_id", name="uq_catalog_variant"),)

    id: int | None = Field(default=None, primary_key=True)
    product_id: str = Field(
        sa_column=Column(String(64), ForeignKey("catalog_product.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    variant_id: int = Field(sa_column=Column(Integer, nullable=False))
    sku: str = Field(default="", max_length=128)
    title: str = Field(default="", max_length=255)
    price_cents: int
    is_enabled: bool = Field(default=True)
    color: str = Field(default="", max_length=64)
    #: The colour's swatch as '#rrggbb' when the provider gives one, else "".
    color_hex: str = Field(default="", max_length=16)
    size: str = Field(default="", max_length=32)
    sort_order: int = Field(default=0)


class CatalogImage(SQLModel, table=True):
    """One mockup image of a cached product."""

    __tablename__ = "catalog_image"

    id: int | None = Field(default=None, primary_key=True)
    product_id: str = Field(
        sa_column=Column(String(64), ForeignKey("catalog_product.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    src: str = Field(sa_column=Column(Text, nullable=False))
    position: str = Field(default="", max_length=32)
    is_default: bool = Field(default=False)
    sort_order: int = Field(default=0)
    #: The one colour of the variants this image shows; "" when it shows several or none.
    color: str = Field(default="", max_length=64)
    #: The renditions of `src` (services/media/images.py): their digest, "" until prepared, and the
    #: source's size in pixels. Copied from `image_source`, so reads need no join.
    digest: str = Field(default="", max_length=32, index=True)
    width: int = Field(default=0)
    height: int = Field(default=0)


class ImageSource(SQLModel, table=True):
    """One image address the store has copied in (or tried to): fetched once, then remembered.

    Keyed by the SHA-256 of the address, so a product re-synced with the same images finds its
    renditions without fetching anything again."""

    __tablename__ = "image_source"

    src_key: str = Field(primary_key=True, max_length=64)
    src: str = Field(sa_column=Column(Text, nullable=False))
    digest: str = Field(default="", max_length=32)
    width: int = Field(default=0)
    height: int = Field(default=0)
    attempts: int = Field(default=0)
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    #: When a failed source may be tried again (None once prepared).
    retry_at: datetime | None = Field(default=None)
    prepared_at: datetime | None = Field(default=None)


# --- Events ---------------------------------------------------------------------------------------


class Event(SQLModel, table=True):
    """A tour date or event. Its times are the wall-clock times of the place, as the admin typed
    them ('yyyy-mm-ddThh:mm', which also sorts in time order); the price is in cents."""

    __tablename__ = "event"

    id: int | None = Field(default=None, primary_key=True)
    title: str = Field(max_length=200)
    description: str = Field(sa_column=Column(Text, nullable=False))
    location: str = Field(max_length=200)
    starts_at: str = Field(max_length=16, index=True)
    ends_at: str | None = Field(default=None, max_length=16)
    images_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    videos_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    links_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    registrations_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    is_active: bool = Field(default=True, index=True)
    featured: bool = Field(default=False)
    capacity: int | None = Field(default=None)
    price_cents: int | None = Field(default=None)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


# --- Orders ---------------------------------------------------------------------------------------
# Card numbers and CVVs never reach these tables: an order keeps the gateway's payment id, the card
# brand and the last four digits only.


class Order(SQLModel, table=True):
    """A placed order: customer, shipping address, repriced totals in cents, payment and fulfilment."""

    __tablename__ = "orders"

    id: int | None = Field(default=None, primary_key=True)
    #: Public order number shown to the shopper and sent to the provider as external_id.
    number: str = Field(max_length=32, unique=True)
    #: Key of the request that created the order; a retried request finds the order by it.
    idempotency_key: str = Field(max_length=255, unique=True)
    #: SHA-256 of the validated request, to tell a retry from a different cart under the same key.
    request_fingerprint: str = Field(max_length=64)
    #: SHA-256 of the shopper's access token; the token itself is handed out once and never stored.
    access_token_hash: str = Field(max_length=64)

    customer_email: str = Field(max_length=254)
    customer_name: str = Field(max_length=200)
    customer_phone: str | None = Field(default=None, max_length=40)

    first_name: str = Field(max_length=100)
    last_name: str = Field(max_length=100)
    address1: str = Field(max_length=255)
    address2: str | None = Field(default=None, max_length=255)
    city: str = Field(max_length=100)
    state_code: str = Field(max_length=64)
    zip: str = Field(max_length=20)
    country_code: str = Field(max_length=2)
    #: The billing address as JSON when it differs from the shipping address, else None.
    billing_address_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))

    subtotal_cents: int
    shipping_cents: int
    tax_cents: int = Field(default=0)
    total_cents: int

    #: services.orders.statuses.OrderStatus and PaymentStatus values.
    status: str = Field(max_length=16, index=True)
    payment_status: str = Field(max_length=16, index=True)
    #: When the payment in progress (CHARGING) was claimed; a stale claim may be taken over.
    payment_claimed_at: datetime | None = Field(default=None)
    payment_id: str | None = Field(default=None, max_length=128)
    card_brand: str | None = Field(default=None, max_length=32)
    card_last4: str | None = Field(default=None, max_length=4)
    #: The gateway that takes (took) the payment: 'test' or 'stripe' (PaymentGateway.name).
    payment_provider: str = Field(default="test", max_length=16)
    #: The Stripe PaymentIntent the shopper pays now (an amended order gets a new one).
    payment_intent_id: str | None = Field(default=None, max_length=64, index=True)
    #: The gateway's latest refund of the order, once one was asked for.
    refund_id: str | None = Field(default=None, max_length=64)
    #: What the gateway has refunded of the total so far (partial refunds add up to it).
    refunded_cents: int = Field(default=0)

    printify_order_id: str | None = Field(default=None, max_length=64, index=True)
    printify_status: str | None = Field(default=None, max_length=32)
    tracking_number: str | None = Field(default=None, max_length=128)
    #: The shipment's carrier code ("usps") and tracking page, from the provider's shipment.
    tracking_carrier: str | None = Field(default=None, max_length=64)
    tracking_url: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    shipped_at: datetime | None = Field(default=None)
    delivered_at: datetime | None = Field(default=None)
    #: When the provider's copy of the order was last read (webhook or poll).
    provider_checked_at: datetime | None = Field(default=None, index=True)
    #: Why the provider refused the order for good; set, the order needs a person (no more retries).
    attention_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: Signed into the links of the order's emails; staff revoking them moves it on, so every link
    #: sent before opens nothing (0: links signed over the number alone, as before revocation existed).
    link_generation: int = Field(default=0)
    #: The discount code the order was placed with (as staff wrote it), what it took off the
    #: subtotal, and whether the order holds one of the code's uses (given back once, on cancel).
    discount_id: int | None = Field(default=None, index=True)
    discount_code: str | None = Field(default=None, max_length=40)
    discount_cents: int = Field(default=0)
    discount_claimed: bool = Field(default=False)

    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)


class OrderItem(SQLModel, table=True):
    """One line of an order, priced from the catalogue when the order was placed."""

    __tablename__ = "order_item"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    product_id: str = Field(max_length=64)
    variant_id: str = Field(max_length=64)
    name: str = Field(max_length=255)
    size: str = Field(max_length=32)
    #: The chosen colour ("" for a product offered in one colour only).
    color: str = Field(default="", max_length=64)
    quantity: int
    unit_price_cents: int
    image_url: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class PaymentAttempt(SQLModel, table=True):
    """One charge sent to the payment gateway for an order, whatever its outcome (no card data)."""

    __tablename__ = "payment_attempt"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    #: The gateway's idempotency key: order number plus the client's paymentId.
    gateway_key: str = Field(max_length=255)
    amount_cents: int
    #: services.orders.statuses.AttemptStatus value.
    status: str = Field(max_length=16)
    #: Who asked (client address), for tracing card testing.
    client: str = Field(default="", max_length=64)
    payment_id: str | None = Field(default=None, max_length=128)
    card_brand: str | None = Field(default=None, max_length=32)
    card_last4: str | None = Field(default=None, max_length=4)
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = Field(default=None)


class OrderRefund(SQLModel, table=True):
    """One refund staff asked for: an amount, or lines, of a paid order (several add up to its total)."""

    __tablename__ = "order_refund"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    #: The request's own key: a repeated request (a double click) finds its refund by it.
    request_key: str = Field(max_length=160, unique=True)
    amount_cents: int
    #: The refunded lines as JSON [{"itemId": 1, "quantity": 1}], or None for an amount.
    lines_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: requested, succeeded, pending (taken, not confirmed) or failed.
    status: str = Field(max_length=16)
    refund_id: str | None = Field(default=None, max_length=64)
    actor: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow)


class OrderHistory(SQLModel, table=True):
    """What happened to an order that staff should see: refunds, cancellations, expiry, with who and when."""

    __tablename__ = "order_history"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    at: datetime = Field(default_factory=utcnow)
    #: The admin's username, or 'system' for the store's own jobs and 'stripe' for Stripe's events.
    actor: str = Field(max_length=100)
    #: services.orders.order_history action names ('refunded', 'cancelled', 'expired', ...).
    action: str = Field(max_length=32)
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class RateCounter(SQLModel, table=True):
    """Requests counted per key and fixed time window, shared by every worker through the database."""

    __tablename__ = "rate_counter"

    key: str = Field(primary_key=True, max_length=200)
    #: Start of the window in whole seconds since the epoch.
    window_start: int = Field(primary_key=True, index=True)
    count: int = Field(default=0)


class OutboxJob(SQLModel, table=True):
    """Work that must reach an outside service after a commit (e.g. 'send_order'), retried until done."""

    __tablename__ = "outbox_job"
    # One job of a kind per order: a payment retried in parallel cannot queue the order twice.
    __table_args__ = (UniqueConstraint("kind", "order_id", name="uq_outbox_job_kind_order"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)
    order_id: int = Field(
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    attempts: int = Field(default=0)
    #: Set while an attempt may have reached the provider without us learning its outcome
    #: (a timeout, or a worker that died mid-send): the next attempt looks before it resends.
    outcome_unknown: bool = Field(default=False)
    next_attempt_at: datetime = Field(default_factory=utcnow, index=True)
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    done_at: datetime | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow)


class AdminSession(SQLModel, table=True):
    """A signed-in admin; the browser holds the token, the database only its SHA-256."""

    __tablename__ = "admin_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)
    username: str = Field(max_length=100)
    client: str = Field(default="", max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)
    revoked_at: datetime | None = Field(default=None)


class WebhookDelivery(SQLModel, table=True):
    """A provider webhook delivery already applied (its id makes a redelivery a no-op)."""

    __tablename__ = "webhook_delivery"

    id: str = Field(primary_key=True, max_length=128)
    topic: str = Field(max_length=64)
    resource_id: str = Field(default="", max_length=64)
    received_at: datetime = Field(default_factory=utcnow, index=True)


class JobLease(SQLModel, table=True):
    """Which process runs a job that one process at a time should run (services/platform/job_leases.py)."""

    __tablename__ = "job_lease"

    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=200)
    #: The holder keeps the job until then (it renews while it works); then anyone may take it.
    held_until: datetime
    #: When a run of the job last finished (a start-up job done by another process is not redone).
    finished_at: datetime | None = Field(default=None)


class MailMessage(SQLModel, table=True):
    """An email to a customer, queued in the transaction that caused it and sent by the mail outbox.

    Rendered when queued, so what was sent is what the admin's history shows. The Message-ID is
    derived from what the message is about (an order and its event, a subscription): queuing the
    same message twice keeps one row, and a resend after a lost answer keeps its Message-ID.
    """

    __tablename__ = "mail_message"

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=250, unique=True)
    #: services.mail kinds ('order-confirmed', 'order-shipped', 'newsletter-confirm', ...).
    kind: str = Field(max_length=32)
    order_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("orders.id", ondelete="CASCADE"), index=True, nullable=True),
    )
    recipient: str = Field(max_length=320)
    subject: str = Field(max_length=300)
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: str = Field(sa_column=Column(Text, nullable=False))
    attempts: int = Field(default=0)
    next_attempt_at: datetime = Field(default_factory=utcnow, index=True)
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    sent_at: datetime | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    #: The address of a newsletter message's List-Unsubscribe header (one-click, RFC 8058); None for others.
    list_unsubscribe: str | None = Field(default=None, max_length=2000)
    #: Where a reply goes when not the support address (a contact message: the shopper who wrote it).
    reply_to: str | None = Field(default=None, max_length=320)


class NewsletterSubscriber(SQLModel, table=True):
    """An address given to the newsletter form: it counts once confirmed (double opt-in) and until
    it unsubscribes. Kept lower-cased, once."""

    __tablename__ = "newsletter_subscriber"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=320, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    confirmed_at: datetime | None = Field(default=None, index=True)
    unsubscribed_at: datetime | None = Field(default=None)
    #: When the last confirmation email was queued: a repeat sign-up re-sends it at most this often.
    last_confirmation_sent_at: datetime | None = Field(default=None)


class StorePage(SQLModel, table=True):
    """A policy or contact page's text as staff wrote it (Markdown); a page with no row shows its
    default, written from the settings."""

    __tablename__ = "store_page"

    slug: str = Field(primary_key=True, max_length=32)
    markdown: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)


# --- Discounts ------------------------------------------------------------------------------------


class DiscountCode(SQLModel, table=True):
    """A discount code staff made: what it takes off, when and for whom, and how often it was used."""

    __tablename__ = "discount_code"

    id: int | None = Field(default=None, primary_key=True)
    #: The code as staff wrote it, and upper-cased: codes are matched without regard to case.
    code: str = Field(max_length=40)
    code_key: str = Field(max_length=40, unique=True)
    #: services.discounts.rules: 'percent', 'amount' or 'free_shipping'.
    kind: str = Field(max_length=16)
    percent: int = Field(default=0)
    amount_cents: int = Field(default=0)
    starts_at: datetime | None = Field(default=None)
    ends_at: datetime | None = Field(default=None)
    min_subtotal_cents: int = Field(default=0)
    usage_limit: int | None = Field(default=None)
    per_customer_limit: int | None = Field(default=None)
    #: 'all', 'collections' or 'products', with the collection keys or product ids as a JSON list.
    scope: str = Field(default="all", max_length=16)
    scope_values_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    active: bool = Field(default=True)
    #: Uses held by orders (claimed with a compare-and-set, given back when an order is cancelled).
    used_count: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class DiscountEmailUse(SQLModel, table=True):
    """How many uses of a code the orders of one email address hold (the per-customer limit)."""

    __tablename__ = "discount_email_use"
    __table_args__ = (UniqueConstraint("discount_id", "email_key"),)

    id: int | None = Field(default=None, primary_key=True)
    discount_id: int = Field(
        sa_column=Column(Integer, ForeignKey("discount_code.id", ondelete="CASCADE"), nullable=False)
    )
    email_key: str = Field(max_length=254)
    used_count: int = Field(default=0)


class StaffAccount(SQLModel, table=True):
    """A person who signs in to the back office: the owner (bootstrapped from ADMIN_USERNAME and
    ADMIN_PASSWORD) or someone the owner invited. Passwords are kept only as Argon2id hashes."""

    __tablename__ = "staff_account"

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=100, unique=True)
    #: Lower-cased; None for an owner bootstrapped without one.
    email: str | None = Field(default=None, max_length=320, unique=True)
    #: services.staff.roles: 'owner', 'staff' or 'fulfilment'.
    role: str = Field(max_length=16)
    #: None until an invited person sets a password.
    password_hash: str | None = Field(default=None, max_length=200)
    #: The owner's password is still ADMIN_PASSWORD (never changed in the back office): the settings decide it.
    password_from_settings: bool = Field(default=False)
    password_changed_at: datetime | None = Field(default=None)
    #: The one live invitation or reset link (its random part); cleared when used: each link works once.
    link_nonce: str | None = Field(default=None, max_length=64)
    disabled_at: datetime | None = Field(default=None)
    created_at: datetime = Field(default_factory=utcnow)
    #: The base32 TOTP secret: pending until `totp_enabled_at` is set by a first right code.
    totp_secret: str | None = Field(default=None, max_length=64)
    totp_enabled_at: datetime | None = Field(default=None)
    #: The last time step a code was accepted for: a code works once.
    totp_last_step: int | None = Field(default=None)
    #: SHA-256 hashes of the unused recovery codes (a JSON list).
    recovery_codes_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))


class StaffPolicy(SQLModel, table=True):
    """The owner's rules for every account (one row, id 1)."""

    __tablename__ = "staff_policy"

    id: int = Field(default=1, primary_key=True)
    require_two_factor: bool = Field(default=False)


class ActivityEntry(SQLModel, table=True):
    """One staff action: who, when, what (with before and after for an edit) and from which address,
    written in the same transaction as the action."""

    __tablename__ = "activity_entry"

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    actor: str = Field(max_length=100, index=True)
    #: services.staff.activity actions ('sign-in', 'product-edit', 'refund', ...).
    action: str = Field(max_length=40, index=True)
    #: What was acted on ('product 123', 'order SF-000001', 'account sam').
    target: str = Field(default="", max_length=200)
    before_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    client: str = Field(default="", max_length=64)
