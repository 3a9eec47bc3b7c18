"""The composition root: `services()` is the process's one `Services` (storefront/container.py),
built from its settings on first use and shared by the API and the Reflex states; the functions
below build each external-service implementation the settings ask for."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront import db
from storefront.config import Settings
from storefront.services.content.store_pages import ShopFacts
from storefront.services.mail.mailers import mailer_for
from storefront.services.mail.outbox import MailOutbox
from storefront.services.mail.pictures import email_picture
from storefront.services.mail.templates import Contact, address_lines, store_contact
from storefront.services.media.catalog_images import CatalogImagePreparer
from storefront.services.media.image_sources import ImageSourceLoader
from storefront.services.operations.backups import StoreFiles
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.payments.gateway import PaymentGateway, TestPaymentGateway
from storefront.services.platform.signing import LinkSigner, store_secret_key

if TYPE_CHECKING:
    pass
from storefront.config import get_settings
from storefront.services.printify.client import SyncPrintifyClient
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.provider import PrintProvider
from storefront.services.printify.provider_status import StoreShop
from storefront.services.shopify.catalogue import StoreCatalogue
from storefront.services.shopify.demo import DemoStoreCatalogue
from storefront.services.tryon.engine import TryOnEngine
from storefront.services.tryon.remote import RemoteTryOnEngine

if TYPE_CHECKING:
    from storefront.container import Services


class _Installed:
    """The process's services: built once, on first use (or installed by a test)."""

    services: Services | None = None
    lock = threading.Lock()


def services() -> Services:
    """The one `Services` of this process, built from `get_settings()` on first use: what the Reflex
    states call, the same object storefront.py hands to the API."""
    current = _Installed.services
    if current is None:
        with _Installed.lock:
            if _Installed.services is None:
                from storefront.container import Services  # the container builds with the functions below

                _Installed.services = Services(get_settings())
            current = _Installed.services
    return current


def use(installed: Services | None) -> Services | None:
    """Make `installed` the process's services (None: build them from the settings again on next
    use); the services it replaces. For tests and for a process that builds its own before start."""
    with _Installed.lock:
        previous, _Installed.services = _Installed.services, installed
    return previous


def session_scope() -> AbstractContextManager[Session]:
    """A session on the services' database, committed on success and rolled back on error (the states' sessions)."""
    return db.session_scope(services().engine)


def read_scope() -> AbstractContextManager[Session]:
    """A read-only session on the services' database, each statement its own transaction (see db.read_scope)."""
    return db.read_scope(services().engine)


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


def image_preparer(settings: Settings, session_factory: Callable[[], Session]) -> CatalogImagePreparer:
    """The preparer of catalogue image renditions, reading uploads from disk and the rest over HTTP."""
    loader = ImageSourceLoader(settings.upload_dir, allowed_networks=settings.image_fetch_allowed_networks.split(","))
    return CatalogImagePreparer(session_factory, loader, settings.media_dir)


def session_factory(engine: Engine) -> Callable[[], Session]:
    """Sessions on this engine whose objects stay readable after commit."""
    return lambda: Session(engine, expire_on_commit=False)


def order_outbox(settings: Settings, engine: Engine, provider: PrintProvider, shop: StoreShop) -> OrderOutbox:
    """The outbox that sends paid orders to the provider (start it with fulfilment.start_outbox_worker)."""
    hold = timedelta(minutes=settings.production_hold_minutes)
    return OrderOutbox(session_factory(engine), provider, shop, production_hold=hold)


def mail_outbox(settings: Settings, engine: Engine) -> MailOutbox:
    """The outbox that sends customer emails (start it with outbox.start_mail_worker)."""
    return MailOutbox(
        session_factory(engine), mailer_for(settings.smtp_url, settings.data_dir), settings.mail_from,
        keep_files=timedelta(days=settings.mail_file_retention_days), reply_to=settings.support_address,
    )


def link_signer(settings: Settings) -> LinkSigner:
    """Signs the links in customer emails with SECRET_KEY (or the key kept in DATA_DIR)."""
    return LinkSigner(store_secret_key(settings.secret_key, settings.data_dir))


def mail_contact(settings: Settings) -> Contact:
    """Every email's footer: the support address, the shop's postal address, the policies."""
    return store_contact(settings.shop_name, settings.support_address, settings.shop_address, settings.public_url)


def shop_facts(settings: Settings) -> ShopFacts:
    """What the policies' default texts say about the shop."""
    return ShopFacts(
        settings.shop_name, settings.support_address, address_lines(settings.shop_address), settings.ship_to,
        settings.public_url,
    )


def order_emails(settings: Settings) -> OrderEmails:
    """The order emails of these settings: links under PUBLIC_URL signed with the store's key
    (ORDER_LINK_DAYS), the support address and policies in the footer, JPEG copies of the pictures."""
    return OrderEmails(
        settings.public_url,
        link_signer(settings),
        link_lifetime=timedelta(days=settings.order_link_days),
        contact=mail_contact(settings),
        picture=partial(email_picture, media_dir=settings.media_dir),
    )


def store_files(settings: Settings) -> StoreFiles:
    """What a backup of this store holds (services/operations/backups.py), from its settings."""
    return StoreFiles(
        db_url=settings.db_url,
        data_dir=settings.data_dir,
        upload_dir=settings.upload_dir,
        secret_key_configured=bool(settings.secret_key),
    )
