"""Services: everything the API routes and the Reflex states use, built once from the settings.

One object per process (`wiring.services()`; storefront.py hands the same one to the API), so the
pages and the API share one gateway, one provider, one store catalogue, one clock and the same
limiters. Tests build their own, with another engine, gateway, provider or clock, and hand it to
`create_api(services=...)` or install it for the states with `wiring.use(...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cached_property

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront import db, wiring
from storefront.config import PRODUCTION, Settings
from storefront.models import utcnow
from storefront.services.admin.auth import AdminAuth
from storefront.services.catalog.store_catalogue import SYNC_JOB
from storefront.services.content.contact import ContactForm
from storefront.services.content.store_pages import ShopFacts
from storefront.services.mail.outbox import MailOutbox
from storefront.services.mail.templates import Contact
from storefront.services.media import uploads as media_uploads
from storefront.services.media.catalog_images import CatalogImagePreparer
from storefront.services.newsletter.subscriptions import Newsletter
from storefront.services.operations.health import HealthChecks
from storefront.services.operations.metrics import StoreCollector
from storefront.services.orders import checkout, order_lookup
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.orders.order_cancellation import OrderCancellations
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_payment import OrderPayments
from storefront.services.orders.order_tracking import OrderTracker
from storefront.services.orders.provider_events import ProviderEvents
from storefront.services.payments.gateway import PaymentGateway, TestPaymentGateway
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.platform.job_leases import JobLeases
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.platform.signing import LinkSigner
from storefront.services.printify.provider import PrintProvider
from storefront.services.printify.provider_status import ProviderHealth, StoreShop
from storefront.services.shopify import throttle as shopify_throttle
from storefront.services.shopify.catalogue import StoreCatalogue
from storefront.services.shopify.health import StoreHealth
from storefront.services.staff.accounts import StaffAccounts
from storefront.services.staff.two_factor import TwoFactor
from storefront.services.tryon import throttle
from storefront.services.tryon.engine import TryOnEngine

TOO_MANY_REFRESHES = "Too many configuration refreshes from your address. Please wait a minute and try again."
REFRESHES_PER_MINUTE = 5
TOO_MANY_PAYMENT_REQUESTS = "Too many payment attempts from your address. Please wait a minute and try again."
TOO_MANY_RESETS = "Too many password reset requests from your address. Please wait a minute and try again."
RESETS_PER_MINUTE = 5


class Services:
    """What the routes and the states use; anything not injected is built from the settings on first use."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine | None = None,
        gateway: PaymentGateway | None = None,
        provider: PrintProvider | None = None,
        clock: Callable[[], datetime] = utcnow,
        tryon_engine: TryOnEngine | None = None,
        store_catalogue: StoreCatalogue | None = None,
    ) -> None:
        self.settings = settings
        self._engine = engine
        self._gateway = gateway
        self._provider = provider
        self._tryon_engine = tryon_engine
        self._store_catalogue = store_catalogue
        #: What limits, sessions and payments read the time from (tests pin it).
        self.clock = clock

    # The database.

    @cached_property
    def engine(self) -> Engine:
        return self._engine or db.get_engine()

    @cached_property
    def session_factory(self) -> Callable[[], Session]:
        return wiring.session_factory(self.engine)

    def job_leases(self) -> JobLeases:
        """This process's claims on the jobs one process of the store runs at a time."""
        return JobLeases(self.session_factory)

    # Payments, refunds and cancellations.

    @cached_property
    def gateway(self) -> PaymentGateway:
        """The gateway new orders are paid through: Stripe when STRIPE_SECRET_KEY is set."""
        return self._gateway or wiring.payment_gateway(self.settings)

    @cached_property
    def test_gateway(self) -> TestPaymentGateway:
        """The built-in gateway: it takes the payments without Stripe, and refunds what it took."""
        return self.gateway if isinstance(self.gateway, TestPaymentGateway) else TestPaymentGateway()

    @cached_property
    def stripe(self) -> StripeGateway | None:
        return self.gateway if isinstance(self.gateway, StripeGateway) else None

    @cached_property
    def payments(self) -> OrderPayments:
        return OrderPayments(
            self.session_factory, self.test_gateway, max_declines=self.settings.payment_declines_per_order,
            clock=self.clock, emails=self.emails,
        )

    @cached_property
    def intents(self) -> IntentPayments | None:
        """Orders paid through Stripe (None with the test gateway)."""
        if self.stripe is None:
            return None
        return IntentPayments(self.session_factory, self.stripe, clock=self.clock, emails=self.emails)

    @cached_property
    def cancellations(self) -> OrderCancellations:
        """Refunds and cancellations, each through the gateway that took the payment."""
        gateways: dict[str, PaymentGateway] = {self.test_gateway.name: self.test_gateway}
        if self.stripe is not None:
            gateways[self.stripe.name] = self.stripe
        return OrderCancellations(
            self.session_factory, gateways, self.provider, lambda: self.shop_id, intents=self.intents, clock=self.clock,
            emails=self.emails,
        )

    # Email.

    @cached_property
    def emails(self) -> OrderEmails:
        """The order emails, their links under this store's PUBLIC_URL."""
        return wiring.order_emails(self.settings)

    @cached_property
    def link_signer(self) -> LinkSigner:
        """Signs the links in customer emails with SECRET_KEY (or the key kept in DATA_DIR)."""
        return wiring.link_signer(self.settings)

    @cached_property
    def mail_contact(self) -> Contact:
        return wiring.mail_contact(self.settings)

    @cached_property
    def newsletter(self) -> Newsletter:
        """Sign-ups, confirmations and unsubscribes, their links signed and under PUBLIC_URL."""
        return Newsletter(
            self.session_factory, self.link_signer, self.settings.public_url, self.clock, contact=self.mail_contact,
            welcome_percent=self.settings.newsletter_welcome_percent,
        )

    def mail_outbox(self) -> MailOutbox:
        """The outbox that sends customer emails (start it with outbox.start_mail_worker)."""
        return wiring.mail_outbox(self.settings, self.engine)

    # The shop's own pages.

    @cached_property
    def shop_facts(self) -> ShopFacts:
        return wiring.shop_facts(self.settings)

    @cached_property
    def contact_form(self) -> ContactForm:
        """The contact form, its messages queued to SUPPORT_EMAIL."""
        return ContactForm(self.session_factory, self.settings.support_address, self.clock)

    # Staff.

    @cached_property
    def auth(self) -> AdminAuth:
        """The admin sign-in (the password hashed once)."""
        return AdminAuth(self.session_factory, self.settings, self.clock)

    @cached_property
    def staff_accounts(self) -> StaffAccounts:
        """Invitations, password changes and resets (links signed, under PUBLIC_URL; reset requests
        limited per address), disabling and removing."""
        return StaffAccounts(
            self.session_factory, self.link_signer, self.settings.public_url, self.clock,
            reset_limiter=self.reset_limiter,
        )

    @cached_property
    def two_factor(self) -> TwoFactor:
        """TOTP enrolment with recovery codes (the codes themselves are checked at sign-in, by `auth`)."""
        return TwoFactor(self.session_factory, self.clock, production=self.settings.store_env == PRODUCTION)

    @cached_property
    def reset_limiter(self) -> RateLimiter:
        """Password reset requests per client address and minute (each may send an email)."""
        return self._per_minute(RESETS_PER_MINUTE, TOO_MANY_RESETS)

    # Limits, each per client address; the pages and the API count in the same ones.

    def _per_minute(self, limit: int, message: str) -> RateLimiter:
        """A limit of `limit` requests per client address and minute, refused with `message`."""
        return RateLimiter(self.session_factory, limit=limit, window_seconds=60, message=message, clock=self.clock)

    @cached_property
    def order_limiter(self) -> RateLimiter:
        """New orders per client address and hour (ORDERS_PER_HOUR), from the checkout page or the API."""
        return checkout.order_limiter(self.session_factory, self.settings.orders_per_hour, self.clock)

    @cached_property
    def payment_limiter(self) -> RateLimiter:
        """Card checks and payments per client address and minute (card testing is done in bulk)."""
        return self._per_minute(self.settings.payment_requests_per_minute, TOO_MANY_PAYMENT_REQUESTS)

    @cached_property
    def lookup_limiter(self) -> RateLimiter:
        """Guest order lookups per client address and minute, counted apart from payments."""
        return order_lookup.lookup_limiter(self.session_factory, self.settings.payment_requests_per_minute, self.clock)

    @cached_property
    def refresh_limiter(self) -> RateLimiter:
        """Anonymous forced re-checks of the provider per client address and minute."""
        return self._per_minute(REFRESHES_PER_MINUTE, TOO_MANY_REFRESHES)

    @cached_property
    def tryon_limiter(self) -> RateLimiter:
        """Try-ons and try-on photo uploads per client address and minute, the page's and the API's."""
        return throttle.tryon_limiter(self.session_factory, self.clock)

    @cached_property
    def upload_limiter(self) -> RateLimiter:
        """Photo-picker uploads to Reflex's /_upload per client address and minute."""
        return media_uploads.upload_limiter(self.session_factory, self.clock)

    @cached_property
    def store_limiter(self) -> RateLimiter:
        """Store-catalogue (Shopify) requests per client address and minute, the pages' and the API's."""
        return shopify_throttle.store_limiter(self.session_factory, self.clock)

    # Try-on.

    @cached_property
    def tryon_engine(self) -> TryOnEngine:
        """The try-on engine: its models are loaded once and kept."""
        return self._tryon_engine or wiring.tryon_engine(self.settings)

    # The print provider.

    @cached_property
    def provider(self) -> PrintProvider:
        """The print provider (the demo provider keeps its orders in memory: one per process)."""
        return self._provider or wiring.print_provider(self.settings)

    @cached_property
    def shop(self) -> StoreShop:
        """The shop this store sells from (resolved on first use, then remembered)."""
        return StoreShop(self.settings, self.provider)

    @property
    def shop_id(self) -> int:
        """PRINTIFY_SHOP_ID when it is one of the account's shops, else the first shop; ProviderError otherwise."""
        return self.shop()

    @cached_property
    def provider_health(self) -> ProviderHealth:
        """The provider's cached status, shared by the API and the banner."""
        return ProviderHealth(self.settings, self.provider)

    def order_tracker(self) -> OrderTracker:
        """The poll that keeps sent orders in step with the provider's copy (ORDER_POLL_INTERVAL_SECONDS;
        start it with order_tracking.start_order_tracker)."""
        return OrderTracker(
            self.session_factory, self.provider, self.shop,
            interval=timedelta(seconds=self.settings.order_poll_interval_seconds), clock=self.clock,
            emails=self.emails,
        )

    def provider_events(self) -> ProviderEvents:
        """The provider's webhook deliveries for our shop, signed with PRINTIFY_WEBHOOK_SECRET."""
        return ProviderEvents(
            self.session_factory, self.provider, lambda: self.shop_id, self.settings.printify_webhook_secret,
            clock=self.clock, emails=self.emails,
        )

    def order_outbox(self) -> OrderOutbox:
        """The outbox that sends paid orders to the provider (start it with fulfilment.start_outbox_worker)."""
        return wiring.order_outbox(self.settings, self.engine, self.provider, self.shop)

    def image_preparer(self) -> CatalogImagePreparer:
        return wiring.image_preparer(self.settings, self.session_factory)

    # The store catalogue (Shopify).

    @cached_property
    def store_catalogue(self) -> StoreCatalogue:
        """One HTTP client, one answer cache and one view of the store's rate-limit bucket."""
        return self._store_catalogue or wiring.store_catalogue(self.settings)

    @cached_property
    def store_health(self) -> StoreHealth:
        """The store platform's cached status, shared by the banner, the store pages and the API."""
        return StoreHealth(self.store_catalogue)

    # Operations.

    @cached_property
    def health(self) -> HealthChecks:
        """What /health looks at: the database, Redis when REDIS_URL is set, the queues."""
        return HealthChecks(self.engine, self.settings.redis_url, sync_job=SYNC_JOB, clock=self.clock)

    #: The open websockets of this process (storefront.py points it at Reflex's once the app runs).
    websockets: Callable[[], int] | None = None

    @cached_property
    def metrics(self) -> StoreCollector:
        """What /metrics reads from the database at each scrape."""
        return StoreCollector(
            self.engine, websockets=lambda: self.websockets() if self.websockets else 0, clock=self.clock
        )
