"""Builds the Reflex app: pages, the HTTP API, toasts and the order outbox worker."""

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import reflex as rx

from storefront import wiring
from storefront.api.app import create_api
from storefront.components import styles
from storefront.config import PRODUCTION, Settings
from storefront.pages import (  # noqa: F401  (importing a page module registers its routes)
    cart,
    collections,
    events,
    home,
    new_arrivals,
    newsletter,
    not_found,
    order_status,
    product,
    products,
    shopify,
    store_pages,
    try_on,
)
from storefront.pages.admin import (  # noqa: F401
    dashboard,
    forgot_password,
    login,
    products as admin_products,
    set_password,
)
from storefront.services.admin.auth import DEFAULT_PASSWORD_WARNING
from storefront.services.catalog.store_catalogue import SYNC_JOB, start_catalogue_sync
from storefront.services.events.upload_sweep import SWEEP_JOB, start_upload_sweep
from storefront.services.mail.outbox import start_mail_worker
from storefront.services.media.catalog_images import IDLE_SECONDS
from storefront.services.operations.backup_schedule import BACKUP_JOB, start_scheduled_backups
from storefront.services.orders.fulfilment import start_outbox_worker
from storefront.services.orders.order_cancellation import EXPIRY_JOB, UnpaidOrderExpiry, start_unpaid_order_expiry
from storefront.services.orders.order_tracking import TRACKING_JOB, start_order_tracker
from storefront.services.platform import json_logs, log_redaction
from storefront.services.platform.background import Worker, start_worker
from storefront.services.platform.job_leases import JobLeases, one_at_a_time
from storefront.state import event_timing
from storefront.state.upload_handlers import upload_handlers
from storefront.web.first_view import FirstView
from storefront.web.served_routes import served_routes

# Before anything logs: no token, card field or address reaches the log (Reflex logs failing events whole).
log_redaction.install()
#: The process's one set of services, built from its settings: the API's routes and the pages use it alike.
services = wiring.services()
settings = services.settings
if settings.log_format == "json":
    json_logs.use_json_lines()
api = create_api(settings, services=services, pages=FirstView, upload_handlers=upload_handlers())
DEMO_PROVIDER_WORKERS_WARNING = (
    "REDIS_URL is set for several workers, but the embedded demo provider keeps its orders in each"
    " process's memory: an order sent by one worker is unknown to the others. Set PRINTIFY_API_TOKEN."
)
TEST_PAYMENTS_WARNING = (
    "ALLOW_TEST_PAYMENTS=1: this production store takes Stripe test-mode payments, so no real money"
    " moves while orders still go to the print provider. Only for a staging store."
)
#: The image preparer's job: one process of the store prepares images (services/platform/job_leases.py).
IMAGES_JOB = "catalogue-images"


def job_leases() -> JobLeases:
    """This process's claims on the jobs one process of the store runs at a time."""
    return services.job_leases()


async def stop_and_release(worker: Worker, job: str) -> None:
    """Stop a worker, then let its job go, so another process of the store takes it over at once."""
    await asyncio.to_thread(worker.stop)
    await asyncio.to_thread(job_leases().release, job)


@contextlib.asynccontextmanager
async def order_outbox_worker() -> AsyncIterator[None]:
    """Send paid orders to the provider in the background while the store runs."""
    outbox = await asyncio.to_thread(services.order_outbox)
    worker = start_outbox_worker(outbox, interval_seconds=settings.outbox_interval_seconds)
    try:
        yield
    finally:
        await asyncio.to_thread(worker.stop)


@contextlib.asynccontextmanager
async def mail_outbox_worker() -> AsyncIterator[None]:
    """Send the queued customer emails in the background while the store runs."""
    outbox = services.mail_outbox()
    worker = start_mail_worker(outbox, interval_seconds=settings.outbox_interval_seconds)
    try:
        yield
    finally:
        await asyncio.to_thread(worker.stop)


@contextlib.asynccontextmanager
async def order_tracker() -> AsyncIterator[None]:
    """Re-read sent orders that are not final yet, so a lost webhook never leaves a status stale."""
    interval = settings.order_poll_interval_seconds
    tracker = services.order_tracker()
    worker = start_order_tracker(tracker, every_seconds=min(60.0, interval), leases=job_leases())
    try:
        yield
    finally:
        await stop_and_release(worker, TRACKING_JOB)


@contextlib.asynccontextmanager
async def unpaid_order_expiry() -> AsyncIterator[None]:
    """Cancel checkouts left unpaid past UNPAID_ORDER_TTL_HOURS, with their PaymentIntents."""
    ttl = timedelta(hours=settings.unpaid_order_ttl_hours)
    expiry = UnpaidOrderExpiry(services.session_factory, ttl, gateway=services.stripe, intents=services.intents)
    worker = start_unpaid_order_expiry(expiry, ttl, job_leases())
    try:
        yield
    finally:
        await stop_and_release(worker, EXPIRY_JOB)


@contextlib.asynccontextmanager
async def provider_check() -> AsyncIterator[None]:
    """Check the provider as the store starts, so no shopper's first page view waits for it."""
    health = services.provider_health

    def check_once() -> None:
        health.status()

    start_worker("provider-check", check_once)
    yield


@contextlib.asynccontextmanager
async def catalogue_sync() -> AsyncIterator[None]:
    """With a real Printify shop, copy its catalogue into the cache as the store starts."""
    if settings.uses_demo_provider:  # the demo catalogue is seeded by `manage prepare`
        yield
        return
    worker = start_catalogue_sync(services.session_factory, services.provider, services.shop, leases=job_leases())
    try:
        yield
    finally:
        await stop_and_release(worker, SYNC_JOB)


@contextlib.asynccontextmanager
async def catalogue_images() -> AsyncIterator[None]:
    """Prepare the renditions of catalogue images that arrive by sync or webhook."""
    preparer = services.image_preparer()
    step = one_at_a_time(
        job_leases(), IMAGES_JOB, preparer.step, lease_seconds=IDLE_SECONDS * 3, idle_seconds=IDLE_SECONDS
    )
    worker = start_worker("catalogue-images", step)
    try:
        yield
    finally:
        await stop_and_release(worker, IMAGES_JOB)


@contextlib.asynccontextmanager
async def upload_sweep() -> AsyncIterator[None]:
    """Remove event photos no event uses (an unsaved form's, a deleted event's) after a week."""
    worker = start_upload_sweep(
        services.session_factory, settings.upload_dir, settings.media_dir, job_leases()
    )
    try:
        yield
    finally:
        await stop_and_release(worker, SWEEP_JOB)


@contextlib.asynccontextmanager
async def scheduled_backups() -> AsyncIterator[None]:
    """With BACKUP_DIR, a backup every BACKUP_EVERY_HOURS, the newest BACKUP_KEEP kept."""
    if settings.backup_dir is None:
        yield
        return
    worker = start_scheduled_backups(
        wiring.store_files(settings), settings.backup_dir, timedelta(hours=settings.backup_every_hours),
        settings.backup_keep, job_leases(),
    )
    try:
        yield
    finally:
        await stop_and_release(worker, BACKUP_JOB)


app = rx.App(
    style=styles.base_style,
    stylesheets=["/styles.css"],
    # The icons live in assets/ and are served at the root; browsers ask for /favicon.ico anyway.
    head_components=[
        rx.el.link(rel="icon", href="/favicon.ico", sizes="any"),
        rx.el.link(rel="apple-touch-icon", href="/apple-touch-icon.png"),
    ],
    html_lang="en",
    # The API in front of the Reflex backend (its steps cap and count Reflex's uploads too), then
    # prerendered pages served at their own address.
    api_transformer=[api, served_routes],
    # One toast at a time: a new one replaces the older (spec section 4).
    toaster=rx.toast.provider(
        position="bottom-right",
        visible_toasts=1,
        custom_attrs={"hotkey": ["F8"], "duration": 5000},
    ),
)
app.register_lifespan_task(order_outbox_worker)
app.register_lifespan_task(mail_outbox_worker)
app.register_lifespan_task(catalogue_sync)
app.register_lifespan_task(provider_check)
app.register_lifespan_task(order_tracker)
app.register_lifespan_task(catalogue_images)
app.register_lifespan_task(upload_sweep)
app.register_lifespan_task(unpaid_order_expiry)
app.register_lifespan_task(scheduled_backups)


@contextlib.asynccontextmanager
async def operations_figures() -> AsyncIterator[None]:
    """/metrics counts this worker's open websockets and times its event handlers."""
    event_timing.install()
    if settings.log_format == "json":  # handlers the server added as it started write JSON too
        json_logs.use_json_lines()

    def websockets() -> int:
        namespace = app.event_namespace
        return len(namespace.sid_to_token) if namespace is not None else 0

    services.websockets = websockets
    yield


app.register_lifespan_task(operations_figures)


@contextlib.asynccontextmanager
async def startup_warnings(checked: Settings = settings) -> AsyncIterator[None]:
    """Say loudly at start-up what an owner must fix before going live."""
    if checked.admin_uses_default_password:
        logging.getLogger("storefront").warning(DEFAULT_PASSWORD_WARNING)
    if checked.redis_url and checked.uses_demo_provider:
        logging.getLogger("storefront").warning(DEMO_PROVIDER_WORKERS_WARNING)
    if checked.store_env == PRODUCTION and checked.stripe_test_mode:
        logging.getLogger("storefront").warning(TEST_PAYMENTS_WARNING)
    yield


app.register_lifespan_task(startup_warnings)


#: The young generation's size before a collection (Python's default is 700 allocations): events
#: of 200 shoppers at once keep thousands of objects alive in flight, and the default passed over
#: them about every 2 events (0.9 ms of CPU an event in all, measured with gc.callbacks); collected
#: every 20,000 the passes cost about 0.2 ms an event. Garbage cycles (a Reflex state tree loaded
#: for an event is one) wait at most that many allocations.
GC_YOUNG_THRESHOLD = 20_000


@contextlib.asynccontextmanager
async def settled_heap() -> AsyncIterator[None]:
    """Once the app has started, the objects it built (pages, components, state classes: about
    220,000) are left out of the garbage collector's passes (`gc.freeze`): each full pass over them
    took 130-420 ms, a stall for every connected shopper. Registered last, after every other start-up."""
    gc.collect()
    gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


app.register_lifespan_task(settled_heap)
