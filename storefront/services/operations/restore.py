"""Restoring a backup archive (backups.py) into an empty store: nothing is touched until every
file of the archive matches its checksum, the database copy carries the migration head and the
counts its manifest names, and this release knows that migration; then the database, the uploads
and the signing key are put in place and the caller migrates the schema forward.

A store that already has data is refused unless the caller says to replace it (`force`)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import create_engine, inspect, text, update
from sqlalchemy.pool import NullPool
from sqlmodel import col

from storefront.models import OutboxJob
from storefront.services.operations import pg_tools
from storefront.services.operations.backups import (
    ARCHIVE_FORMAT,
    COUNTED_TABLES,
    MANIFEST,
    POSTGRES_MEMBER,
    SECRET_KEY_FILE,
    SECRET_KEY_MEMBER,
    SQLITE_MEMBER,
    UPLOADS_PREFIX,
    StoreFiles,
    code_migration_head,
    known_migration,
    sqlite_counts,
)
from storefront.services.platform.private_files import (
    PRIVATE_FILE_MODE,
    SQLITE_COMPANIONS,
    private_dir,
    write_private,
)


class RestoreError(RuntimeError):
    """The archive cannot be restored here; the message says why (nothing was changed)."""


def _safe_member(name: str) -> bool:
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts and bool(path.parts)


def unpack_verified(archive: Path, staging: Path) -> dict[str, Any]:
    """Unpack the archive into `staging` and check it against its manifest: every file listed is
    there with its checksum, and nothing else is; the manifest."""
    digests: dict[str, str] = {}
    manifest: dict[str, Any] | None = None
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                if member.isdir():
                    continue
                if not member.isfile() or not _safe_member(member.name):
                    raise RestoreError(f"the archive holds {member.name!r}, which no backup writes")
                source = tar.extractfile(member)
                assert source is not None
                if member.name == MANIFEST:
                    manifest = json.loads(source.read())
                    continue
                target = staging / member.name
                target.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
                with os.fdopen(descriptor, "wb") as out:
                    for chunk in iter(functools.partial(source.read, 1 << 20), b""):
                        digest.update(chunk)
                        out.write(chunk)
                digests[member.name] = digest.hexdigest()
    except (tarfile.TarError, EOFError, OSError, json.JSONDecodeError) as error:
        raise RestoreError(f"{archive} is not a readable backup archive: {error}") from None
    if manifest is None:
        raise RestoreError(f"{archive} has no {MANIFEST}: not a backup archive of this store")
    if manifest.get("format") != ARCHIVE_FORMAT:
        raise RestoreError(
            f"{archive} is archive format {manifest.get('format')!r}; this release reads {ARCHIVE_FORMAT}"
        )
    listed = {name: entry["sha256"] for name, entry in manifest["files"].items()}
    bad = sorted(name for name in listed if digests.get(name) != listed[name])
    extra = sorted(set(digests) - set(listed))
    if bad or extra:
        raise RestoreError(
            "the archive does not match its checksums"
            + (f"; changed or missing: {', '.join(bad)}" if bad else "")
            + (f"; not in the manifest: {', '.join(extra)}" if extra else "")
        )
    return manifest


def check_migration(manifest: dict[str, Any]) -> str:
    """The archive's migration head, refused when this release does not know it."""
    head = manifest["database"].get("migration_head")
    if not head or not known_migration(head):
        raise RestoreError(
            f"the archive's database is at migration {head!r}, which this release (head {code_migration_head()})"
            " does not know: restore it with the release that made it, or a newer one"
        )
    return head


def what_is_there(store: StoreFiles) -> list[str]:
    """What the target store already holds (empty list: nothing, a restore may go ahead)."""
    found = []
    if store.backend == "sqlite":
        path = store.sqlite_path
        if path.is_file() and path.stat().st_size > 0:
            with sqlite3.connect(path) as connection:
                tables = connection.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
            connection.close()
            if tables:
                found.append(f"the database {path} has {tables} tables")
    else:
        engine = create_engine(store.db_url, poolclass=NullPool)
        try:
            with engine.connect() as db:
                tables = inspect(db).get_table_names()
        finally:
            engine.dispose()
        if tables:
            found.append(f"the database has {len(tables)} tables")
    if store.upload_dir.is_dir() and any(path.is_file() for path in store.upload_dir.rglob("*")):
        found.append(f"the uploads folder {store.upload_dir} has files")
    if (store.data_dir / SECRET_KEY_FILE).is_file():
        found.append(f"{store.data_dir / SECRET_KEY_FILE} exists")
    return found


def _check_copy(head: str, expected: dict[str, int], found_head: str | None, found: dict[str, int]) -> None:
    if found_head != head:
        raise RestoreError(f"the restored database is at migration {found_head!r}, the manifest says {head!r}")
    if found != expected:
        raise RestoreError(f"the restored database holds {found}, the manifest says {expected}")


def _restore_sqlite(store: StoreFiles, staged: Path, head: str, counts: dict[str, int]) -> None:
    with sqlite3.connect(staged) as connection:
        check = connection.execute("PRAGMA integrity_check").fetchone()[0]
        found_head, found = sqlite_counts(connection)
    connection.close()
    if check != "ok":
        raise RestoreError(f"the archive's database fails SQLite's integrity check: {check}")
    _check_copy(head, counts, found_head, found)
    target = store.sqlite_path
    private_dir(target.parent)
    # The copy is moved beside the database first (same file system), then over it in one rename.
    beside = target.with_name(f".{target.name}.restoring")
    shutil.copyfile(staged, beside)
    os.chmod(beside, PRIVATE_FILE_MODE)
    for suffix in SQLITE_COMPANIONS:  # an old write-ahead log must not be replayed onto the copy
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    beside.replace(target)


def _restore_postgres(store: StoreFiles, staged: Path, head: str, counts: dict[str, int], force: bool) -> None:
    engine = create_engine(store.db_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            server = int(connection.execute(text("SHOW server_version_num")).scalar_one())
        pg_tools.check_tool_for_server("pg_restore", server)
        if force:
            # Everything in the schema goes (tables, the search index's functions, extensions in it),
            # so the dump loads into what it was taken from: nothing.
            with engine.begin() as connection:
                schema = connection.execute(text("SELECT current_schema()")).scalar_one()
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        pg_tools.restore(store.db_url, staged)
        with engine.connect() as connection:
            found_head = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
            found = {
                label: int(connection.execute(text(f'SELECT COUNT(*) FROM "{table}"')).scalar_one())
                for label, table in COUNTED_TABLES.items()
            }
    finally:
        engine.dispose()
    _check_copy(head, counts, found_head, found)


def _restore_files(store: StoreFiles, staging: Path) -> int:
    """Put the uploads and the signing key in place; how many files."""
    placed = 0
    uploads = staging / UPLOADS_PREFIX.rstrip("/")
    if uploads.is_dir():
        for path in sorted(uploads.rglob("*")):
            if path.is_file():
                target = store.upload_dir / path.relative_to(uploads)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                placed += 1
    secret = staging / SECRET_KEY_MEMBER
    if secret.is_file():
        private_dir(store.data_dir)
        write_private(store.data_dir / SECRET_KEY_FILE, secret.read_bytes())
        placed += 1
    return placed


def restore_backup(
    archive: Path, store: StoreFiles, *, migrate: Callable[[str], None], force: bool = False
) -> dict[str, Any]:
    """Restore `archive` into the store (empty, or replaced when `force`), then migrate it forward
    with `migrate(db_url)`; the archive's manifest."""
    if not archive.is_file():
        raise RestoreError(f"{archive} does not exist")
    if not force:
        found = what_is_there(store)
        if found:
            raise RestoreError(
                "the store is not empty (" + "; ".join(found) + "): restore into an empty data folder and"
                " database, or pass --force to replace what is there"
            )
    private_dir(store.data_dir)
    with tempfile.TemporaryDirectory(dir=store.data_dir, prefix=".restore-") as work:
        staging = Path(work)
        manifest = unpack_verified(archive, staging)
        head = check_migration(manifest)
        database = manifest["database"]
        if database["backend"] != store.backend:
            raise RestoreError(
                f"the archive holds a {database['backend']} database and this store uses {store.backend}:"
                " restore it into a store with the same kind of database"
            )
        counts = {label: int(database["counts"].get(label, 0)) for label in COUNTED_TABLES}
        if store.backend == "sqlite":
            _restore_sqlite(store, staging / SQLITE_MEMBER, head, counts)
        else:
            _restore_postgres(store, staging / POSTGRES_MEMBER, head, counts, force)
        _restore_files(store, staging)
    migrate(store.db_url)
    _doubt_waiting_jobs(store.db_url)
    return manifest


def _doubt_waiting_jobs(db_url: str) -> int:
    """Mark every outbox job the backup had not finished as maybe done: the store it came from may
    have sent those orders after the backup was taken, so the outbox asks the provider for each
    (by its number) before it sends it again. How many were marked."""
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            return connection.execute(
                update(OutboxJob).where(col(OutboxJob.done_at).is_(None)).values(outcome_unknown=True)
            ).rowcount
    finally:
        engine.dispose()
