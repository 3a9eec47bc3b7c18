"""One archive that holds everything a store needs to come back: a consistent copy of the
database (SQLite's online backup API while the store writes, or a `pg_dump` custom-format dump in
one snapshot on PostgreSQL), the uploads folder with its media renditions, and the signing key,
with a manifest (versions, migration head, counts) and a SHA-256 checksum of every file in it.

Written as `<name>.part` and renamed when whole, readable by the store's user only (it holds the
signing key and every customer's order)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
import socket
import sqlite3
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from storefront.config import PROJECT_ROOT
from storefront.services.operations import pg_tools
from storefront.services.platform.private_files import PRIVATE_FILE_MODE, private_dir

#: Raised when the archive layout changes in a way an older `restore` cannot read.
ARCHIVE_FORMAT = 1
ARCHIVE_PREFIX = "storefront-backup-"
ARCHIVE_SUFFIX = ".tar.gz"
MANIFEST = "manifest.json"
SQLITE_MEMBER = "database/storefront.sqlite"
POSTGRES_MEMBER = "database/storefront.pgdump"
UPLOADS_PREFIX = "uploads/"
SECRET_KEY_MEMBER = "secret-key"
SECRET_KEY_FILE = "secret-key"
#: What the manifest counts, by table: enough to see at a glance that a restore brought them back.
COUNTED_TABLES = {
    "orders": "orders",
    "products": "catalog_product",
    "events": "event",
    "subscribers": "newsletter_subscriber",
}


class BackupError(RuntimeError):
    """A backup could not be made; the message says why (nothing half-written is left)."""


@dataclass(frozen=True)
class StoreFiles:
    """Where one store keeps what a backup holds (from the settings)."""

    db_url: str
    data_dir: Path
    upload_dir: Path
    #: True when SECRET_KEY is set (then DATA_DIR/secret-key is not the key in use).
    secret_key_configured: bool = False

    @property
    def backend(self) -> str:
        return make_url(self.db_url).get_backend_name()

    @property
    def sqlite_path(self) -> Path:
        database = make_url(self.db_url).database
        if self.backend != "sqlite" or not database or database == ":memory:":
            raise BackupError(f"not a SQLite database file: {make_url(self.db_url).render_as_string()}")
        return Path(database)


def code_migration_head() -> str:
    """The newest Alembic revision this release knows."""
    config = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "alembic"))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise BackupError("this release has no migrations")
    return head


def known_migration(revision: str) -> bool:
    """Whether this release's migrations include `revision` (an archive from a newer release does not)."""
    config = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "alembic"))
    try:
        return ScriptDirectory.from_config(config).get_revision(revision) is not None
    except Exception:  # noqa: BLE001 - alembic raises several kinds for an unknown revision
        return False


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def archive_name(now: datetime) -> str:
    return f"{ARCHIVE_PREFIX}{now.strftime('%Y%m%dT%H%M%S%fZ')}{ARCHIVE_SUFFIX}"


def archives_in(directory: Path) -> list[Path]:
    """The finished archives in `directory`, oldest first (their names sort by time)."""
    if not directory.is_dir():
        return []
    return sorted(
        path for path in directory.iterdir()
        if path.is_file() and path.name.startswith(ARCHIVE_PREFIX) and path.name.endswith(ARCHIVE_SUFFIX)
    )


def prune(directory: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` archives; the ones removed."""
    old = archives_in(directory)[:-keep] if keep > 0 else []
    for path in old:
        path.unlink(missing_ok=True)
    return old


def sqlite_counts(connection: sqlite3.Connection) -> tuple[str | None, dict[str, int]]:
    """The migration head and the counted tables of a SQLite database (0 for a table it lacks)."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    head = None
    if "alembic_version" in tables:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        head = row[0] if row else None
    counts = {
        label: connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] if table in tables else 0
        for label, table in COUNTED_TABLES.items()
    }
    return head, counts


def copy_sqlite(source: Path, target: Path) -> dict[str, Any]:
    """A consistent copy of a live SQLite database by its online backup API (one step: a writer
    between steps would make the copy start over), and what the manifest says of it."""
    if not source.is_file():
        raise BackupError(f"the database file {source} does not exist: nothing to back up")
    with sqlite3.connect(source, timeout=30) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
        # The copy stands alone: no write-ahead log beside it.
        copy.execute("PRAGMA journal_mode=DELETE")
        head, counts = sqlite_counts(copy)
        check = copy.execute("PRAGMA quick_check").fetchone()[0]
    origin.close()
    copy.close()
    if check != "ok":
        raise BackupError(f"the copy of the database failed SQLite's check: {check}")
    return {"backend": "sqlite", "sqlite_version": sqlite3.sqlite_version, "migration_head": head, "counts": counts}


def dump_postgres(db_url: str, target: Path) -> dict[str, Any]:
    """A `pg_dump` of the database in the very snapshot the counts are read in (an exported
    snapshot held open by a REPEATABLE READ transaction while the dump runs)."""
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with (
            engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection,
            connection.begin(),
        ):
            server = int(connection.execute(text("SHOW server_version_num")).scalar_one())
            pg_dump_major = pg_tools.check_tool_for_server("pg_dump", server)
            snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar_one()
            tables = set(connection.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            ).scalars())
            head = (
                connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
                if "alembic_version" in tables else None
            )
            counts = {
                label: int(connection.execute(text(f'SELECT COUNT(*) FROM "{table}"')).scalar_one())
                if table in tables else 0
                for label, table in COUNTED_TABLES.items()
            }
            pg_tools.dump(db_url, snapshot, target)
    finally:
        engine.dispose()
    return {
        "backend": "postgresql",
        "server_version_num": server,
        "pg_dump_major": pg_dump_major,
        "migration_head": head,
        "counts": counts,
    }


def _upload_files(upload_dir: Path) -> Iterator[tuple[str, Path]]:
    """Every file under the uploads folder (media renditions included) as (member name, path);
    half-written files (`.part`) are left out."""
    if not upload_dir.is_dir():
        return
    for path in sorted(upload_dir.rglob("*")):
        if path.is_file() and not path.is_symlink() and not path.name.endswith(".part"):
            yield UPLOADS_PREFIX + path.relative_to(upload_dir).as_posix(), path


class _Hashing(io.RawIOBase):
    """Reads a file while hashing exactly the bytes the archive receives."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.digest.update(data)
        return data


def _add_file(archive: tarfile.TarFile, name: str, path: Path) -> tuple[str, int] | None:
    """Add a file; its checksum and size, None when it went away before it could be read."""
    try:
        file = path.open("rb")
    except FileNotFoundError:  # an upload removed by the sweep since it was listed
        return None
    with file:
        info = archive.gettarinfo(fileobj=file, arcname=name)
        info.mode = PRIVATE_FILE_MODE
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        hashing = _Hashing(file)
        archive.addfile(info, hashing)
        return hashing.digest.hexdigest(), info.size


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("alembic", "sqlalchemy", "sqlmodel", "reflex", "psycopg"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    return versions


def create_backup(store: StoreFiles, directory: Path, *, now: datetime | None = None) -> Path:
    """Write one archive of the store into `directory`; its path."""
    now = now or datetime.now(UTC)
    private_dir(directory)
    target = directory / archive_name(now)
    partial = target.with_name(target.name + ".part")
    files: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(dir=directory, prefix=".backup-") as work:
        if store.backend == "sqlite":
            database_member, database_file = SQLITE_MEMBER, Path(work) / "storefront.sqlite"
            database = copy_sqlite(store.sqlite_path, database_file)
        elif store.backend == "postgresql":
            database_member, database_file = POSTGRES_MEMBER, Path(work) / "storefront.pgdump"
            database = dump_postgres(store.db_url, database_file)
        else:
            raise BackupError(f"backups support SQLite and PostgreSQL, not {store.backend}")
        if database["migration_head"] is None:
            raise BackupError("the database was never migrated (no alembic_version): nothing to back up")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        try:
            with os.fdopen(descriptor, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as archive:
                added = _add_file(archive, database_member, database_file)
                assert added is not None
                files[database_member] = {"sha256": added[0], "size": added[1]}
                secret = store.data_dir / SECRET_KEY_FILE
                if secret.is_file():
                    added = _add_file(archive, SECRET_KEY_MEMBER, secret)
                    if added is not None:
                        files[SECRET_KEY_MEMBER] = {"sha256": added[0], "size": added[1]}
                for name, path in _upload_files(store.upload_dir):
                    added = _add_file(archive, name, path)
                    if added is not None:
                        files[name] = {"sha256": added[0], "size": added[1]}
                manifest = {
                    "format": ARCHIVE_FORMAT,
                    "created_at": now.isoformat(),
                    "host": socket.gethostname(),
                    "versions": _versions(),
                    "code_migration_head": code_migration_head(),
                    "database": database,
                    "secret_key": "setting" if store.secret_key_configured else (
                        "file" if SECRET_KEY_MEMBER in files else "none"
                    ),
                    "files": files,
                }
                body = json.dumps(manifest, indent=2, sort_keys=True).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mode, info.mtime = len(body), PRIVATE_FILE_MODE, int(now.timestamp())
                archive.addfile(info, io.BytesIO(body))
            partial.replace(target)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    return target
