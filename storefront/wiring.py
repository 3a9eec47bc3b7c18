"""Builds the external-service implementations the settings ask for."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront import db
from storefront.services.mail.mailers import mailer_for
from storefront.services.mail.outbox import MailOutbox
from storefront.services.platform.signing import LinkSigner, store_secret_key
from storefront.config import Settings
from storefront.services.admin.auth import AdminAuth
from storefront.services.media.catalog_images import CatalogImagePreparer
from storefront.services.media.image_sources import ImageSourceLoader
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.payments.gateway import PaymentGateway, TestPaymentGateway

if TYPE_CHECKING:
    from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.printify.client import SyncPrintifyClient
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.provider import PrintProvider
from storefront.services.printify.provider_status import ProviderHealth, StoreShop
from storefront.services.shopify.catalogue import StoreCatalogue
from storefront.services.shopify.demo import DemoStoreCatalogue
from storefront.services.shopify.health import StoreHealth
from storefront.services.tryon.engine import TryOnEngine
from storefront.services.tryon.remote import RemoteTryOnEngine

DEMO_MEDIA_URL = "/uploads/demo"
#: Where the demo store catalogue's drawings are written (under upload_dir) and served.
DEMO_STORE_MEDIA_URL = f"{DEMO_MEDIA_URL}/shopify"


#: The demo's orders are costed at once and shipped this long after they go to production.
DEMO_PRODUCTION_SECONDS = 120.0


def print_provider(settings: Settings) -> PrintProvider:
    """The real Printify client when PRINTIFY_API_TOKEN is set, else the embedded demo provider."""
    if settings.printify_api_token:
        return SyncPrintifyClient.from_settings(settings)
    return DemoPrintProvider(
        media_dir=settings.upload_dir / "demo",
        media_url=DEMO_MEDIA_URL,
        costing_seconds=0.0,
        production_seconds=DEMO_PRODUCTION_SECONDS,
    )


def payment_gateway(settings: Settings) -> PaymentGateway:
    """Stripe when STRIPE_SECRET_KEY is set (config checks its other keys), else the test gateway."""
    if not settings.uses_stripe:
        return TestPaymentGateway()
    from storefront.services.payments.stripe_gateway import StripeGateway

    return StripeGateway(
        settings.stripe_secret_key,
        settings.stripe_publishable_key,
        settings.stripe_webhook_secret,
        api_base=settings.stripe_api_base,
    )


@lru_cache(maxsize=4)
def shared_payment_gateway(settings: Settings) -> PaymentGateway:
    """The one payment gateway of this process, shared by the API and the pages (one HTTP client;
    the test gateway's memory of charges and refunds)."""
    return payment_gateway(settings)


def intent_payments(settings: Settings) -> IntentPayments | None:
    """Stripe's side of paying orders for the pages, on the configured database; None without Stripe."""
    from storefront.services.orders.intent_payments import IntentPayments
    from storefront.services.payments.stripe_gateway import StripeGateway

    gateway = shared_payment_gateway(settings)
    if not isinstance(gateway, StripeGateway):
        return None
    return IntentPayments(session_factory(db.get_engine()), gateway, emails=order_emails(settings))


def store_catalogue(settings: Settings) -> StoreCatalogue:
    """The Shopify GraphQL client when SHOPIFY_STORE_DOMAIN and a token are set (a Storefront token,
    or the legacy Admin token SHOPIFY_ACCESS_TOKEN), else the embedded demo catalogue (pictures
    drawn under upload_dir, served at /uploads)."""
    if settings.shopify_store_domain and settings.shopify_connected:
        from storefront.services.shopify.client import ShopifyCatalogue

        return ShopifyCatalogue(settings)
    return DemoStoreCatalogue(media_dir=settings.upload_dir / "demo" / "shopify", media_url=DEMO_STORE_MEDIA_URL)


def tryon_engine(settings: Settings) -> TryOnEngine:
    """The local engine (MediaPipe, offline), or with TRYON_ENGINE=remote the hosted service at
    TRYON_ENDPOINT falling back to the local engine whenever it fails."""
    # Imported here: MediaPipe takes a second to import, and only a try-on needs it.
    from storefront.services.tryon.local import LocalTryOnEngine

    local = LocalTryOnEngine()
    if settings.tryon_engine != "remote":
        return local
    return RemoteTryOnEngine(
        settings.tryon_endpoint,
        settings.tryon_api_key,
        timeout=settings.tryon_timeout_seconds,
        poll_interval=settings.tryon_poll_interval_seconds,
        max_wait=settings.tryon_max_wait_seconds,
        fallback=local,
    )


@lru_cache(maxsize=4)
def shared_tryon_engine(settings: Settings) -> TryOnEngine:
    """The one try-on engine of this process: its models are loaded once and kept."""
    return tryon_engine(settings)


def image_preparer(settings: Settings, session_factory: Callable[[], Session]) -> CatalogImagePreparer:
    """The preparer of catalogue image renditions, reading uploads from disk and the rest over HTTP."""
    loader = ImageSourceLoader(settings.upload_dir, allowed_networks=settings.image_fetch_allowed_networks.split(","))
    return CatalogImagePreparer(session_factory, loader, settings.media_dir)


@lru_cache(maxsize=4)
def shared_print_provider(settings: Settings) -> PrintProvider:
    """The one provider instance of this process (the demo provider keeps its orders in memory)."""
    return print_provider(settings)


@lru_cache(maxsize=4)
def shared_store_catalogue(settings: Settings) -> StoreCatalogue:
    """The one store catalogue of this process: one HTTP client, one answer cache and one view of
    the store's rate-limit bucket, shared by the API and the pages."""
    return store_catalogue(settings)


@lru_cache(maxsize=4)
def store_health(settings: Settings) -> StoreHealth:
    """The cached store-platform status of this process, shared by the banner and the store pages."""
    return StoreHealth(shared_store_catalogue(settings))


@lru_cache(maxsize=4)
def provider_health(settings: Settings) -> ProviderHealth:
    """The cached provider status of this process, shared by the API and the banner."""
    return ProviderHealth(settings, shared_print_provider(settings))


@lru_cache(maxsize=4)
def store_shop(settings: Settings) -> StoreShop:
    """The shop this process sells from (resolved on first use, then remembered)."""
    return StoreShop(settings, shared_print_provider(settings))


def print_shop_id(settings: Settings, provider: PrintProvider) -> int:
    """PRINTIFY_SHOP_ID when it is one of the account's shops, else the first shop; ProviderError otherwise."""
    if provider is shared_print_provider(settings):
        return store_shop(settings)()
    return StoreShop(settings, provider)()


def session_factory(engine: Engine) -> Callable[[], Session]:
    """Sessions on this engine whose objects stay readable after commit."""
    return lambda: Session(engine, expire_on_commit=False)


def order_outbox(settings: Settings, engine: Engine, provider: PrintProvider) -> OrderOutbox:
    """The outbox that sends paid orders to the provider (start it with fulfilment.start_outbox_worker)."""
    shop = store_shop(settings) if provider is shared_print_provider(settings) else StoreShop(settings, provider)
    hold = timedelta(minutes=settings.production_hold_minutes)
    return OrderOutbox(session_factory(engine), provider, shop, production_hold=hold)


@lru_cache(maxsize=4)
def admin_auth(settings: Settings) -> AdminAuth:
    """The admin sign-in of this process on the configured database (the password hashed once)."""
    return AdminAuth(session_factory(db.get_engine()), settings)


def mail_outbox(settings: Settings, engine: Engine) -> MailOutbox:
    """The outbox that sends customer emails (start it with outbox.start_mail_worker)."""
    return MailOutbox(
        session_factory(engine), mailer_for(settings.smtp_url, settings.data_dir), settings.mail_from,
        keep_files=timedelta(days=settings.mail_file_retention_days),
    )


@lru_cache(maxsize=4)
def link_signer(settings: Settings) -> LinkSigner:
    """Signs the links in customer emails with SECRET_KEY (or the key kept in DATA_DIR)."""
    return LinkSigner(store_secret_key(settings.secret_key, settings.data_dir))


def order_emails(settings: Settings) -> OrderEmails:
    """The order emails (links under PUBLIC_URL, signed with the store's key)."""
    return OrderEmails(settings.public_url, link_signer(settings), link_lifetime=timedelta(days=settings.order_link_days))
