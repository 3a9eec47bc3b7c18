"""Command line for the store's setup steps: `python -m storefront.manage migrate|seed|prepare`."""

from __future__ import annotations

import argparse
import logging

from sqlmodel import Session

from storefront.config import Settings, get_settings
from storefront.db import get_engine, migrate, session_scope
from storefront.services.events.demo_events import seed_events_if_empty
from storefront.services.catalog.listing import fill_missing_cards
from storefront.services.catalog.seed import prepare_media, seed_catalogue_if_empty
from storefront.services.platform.private_files import private_dir
from storefront.wiring import image_preparer, print_provider, store_catalogue

log = logging.getLogger("storefront.manage")


def seed(settings: Settings) -> None:
    provider = print_provider(settings)
    written = prepare_media(settings, provider)
    # The demo store catalogue's drawings, so its first page view does not wait for them.
    ensure_store_images = getattr(store_catalogue(settings), "ensure_images", None)
    if callable(ensure_store_images):
        written += ensure_store_images()
    if not settings.uses_demo_provider:
        # The store syncs the real shop's catalogue itself when it starts (and retries until it can).
        log.info("images written: %d; the catalogue is synced from Printify when the store starts", written)
        return
    with session_scope(get_engine()) as session:
        count = seed_catalogue_if_empty(session, provider)
        events = seed_events_if_empty(session, settings.upload_dir, settings.media_dir)
    log.info("images written: %d; products seeded: %d; events seeded: %d", written, count, events)
    prepare_images(settings)


def prepare_images(settings: Settings) -> None:
    """Make the renditions of every catalogue image that has none (files lost are made again)."""
    engine = get_engine()
    preparer = image_preparer(settings, lambda: Session(engine))
    lost = preparer.forget_missing_files()
    report = preparer.prepare_due()
    log.info("image renditions: %d sources prepared, %d failed, %d lost files remade", report.prepared, report.failed, lost)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="storefront.manage")
    parser.add_argument("command", choices=["migrate", "seed", "prepare"])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    settings = get_settings()
    private_dir(settings.data_dir)
    if args.command in ("migrate", "prepare"):
        migrate(settings.db_url)
        log.info("database migrated: %s", settings.db_url.split("@")[-1])
        with session_scope(get_engine()) as session:
            log.info("listing cards written: %d", fill_missing_cards(session))
    if args.command in ("seed", "prepare"):
        seed(settings)


if __name__ == "__main__":
    main()
