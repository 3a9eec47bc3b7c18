"""Command line for the store's setup and operations: `python -m storefront.manage
migrate|seed|prepare|backup [DIR]|restore ARCHIVE [--force]`."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from sqlmodel import Session

from storefront.config import PROJECT_ROOT, Settings, get_settings
from storefront.db import get_engine, migrate, session_scope
from storefront.services.catalog.listing import fill_missing_cards
from storefront.services.catalog.seed import prepare_media, seed_catalogue_if_empty
from storefront.services.events.demo_events import seed_events_if_empty
from storefront.services.operations.backups import BackupError, create_backup
from storefront.services.operations.pg_tools import PgToolsError
from storefront.services.operations.restore import RestoreError, restore_backup
from storefront.services.platform import json_logs, log_redaction
from storefront.services.platform.private_files import private_dir
from storefront.wiring import image_preparer, print_provider, store_catalogue, store_files

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
    log.info(
        "image renditions: %d sources prepared, %d failed, %d lost files remade", report.prepared, report.failed, lost
    )


#: Where `manage backup` writes without a folder named and without BACKUP_DIR: outside DATA_DIR,
#: so removing the data folder does not take its backups with it.
DEFAULT_BACKUP_DIR = PROJECT_ROOT / "backups"


def backup(settings: Settings, directory: Path | None) -> Path:
    target = create_backup(store_files(settings), directory or settings.backup_dir or DEFAULT_BACKUP_DIR)
    log.info("backup written: %s", target)
    return target


def restore(settings: Settings, archive: Path, force: bool) -> None:
    manifest = restore_backup(archive, store_files(settings), migrate=migrate, force=force)
    counts = ", ".join(f"{count} {label}" for label, count in manifest["database"]["counts"].items())
    log.info("restored %s (taken %s): %s; database migrated forward", archive, manifest["created_at"], counts)
    if manifest["secret_key"] == "setting":
        log.warning("the store that made this backup had SECRET_KEY set: set the same SECRET_KEY here,"
                    " or the links in emails already sent stop working")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="storefront.manage")
    parser.add_argument("command", choices=["migrate", "seed", "prepare", "backup", "restore"])
    parser.add_argument("path", nargs="?", type=Path, help="backup: the folder to write to; restore: the archive")
    parser.add_argument("--force", action="store_true", help="restore: replace a store that is not empty")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    log_redaction.install()
    settings = get_settings()
    if settings.log_format == "json":
        json_logs.use_json_lines()
    private_dir(settings.data_dir)
    if args.command in ("backup", "restore"):
        if args.command == "restore" and args.path is None:
            parser.error("restore needs the archive to restore: manage restore ARCHIVE [--force]")
        try:
            if args.command == "backup":
                backup(settings, args.path)
            else:
                restore(settings, args.path, args.force)
        except (BackupError, RestoreError, PgToolsError) as error:
            log.error("%s failed: %s", args.command, error)
            sys.exit(1)
        return
    if args.command in ("migrate", "prepare"):
        migrate(settings.db_url)
        log.info("database migrated: %s", settings.db_url.split("@")[-1])
        with session_scope(get_engine()) as session:
            log.info("listing cards written: %d", fill_missing_cards(session))
    if args.command in ("seed", "prepare"):
        seed(settings)


if __name__ == "__main__":
    main()
