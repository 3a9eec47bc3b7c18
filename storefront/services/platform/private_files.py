"""Personal data at rest (the SQLite database, sent mail, the signing key) is readable by the
store's own user only: its folders 0700, its files 0600, whatever the process's umask."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
#: What SQLite writes beside a database in WAL mode (it gives them the database file's mode).
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> Path:
    """`path` (and any missing parent) made, and kept, readable by this user only."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    # mkdir's mode passes through the umask, and a folder an earlier release made is 0755; a
    # shared folder (sticky, like /tmp) named by mistake is left alone.
    if not path.stat().st_mode & stat.S_ISVTX:
        os.chmod(path, PRIVATE_DIR_MODE)
    return path


def write_private(path: Path, data: bytes) -> None:
    """`data` written to `path` whole (a reader never sees half of it), mode 0600."""
    partial = path.with_name(f"{path.name}.part")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(descriptor, "wb") as file:
        os.fchmod(file.fileno(), PRIVATE_FILE_MODE)  # a partial file left by an earlier attempt
        file.write(data)
    partial.replace(path)


def private_sqlite(database: Path) -> None:
    """The SQLite database file made (empty) or kept 0600 before SQLite opens it, so the
    journal files SQLite creates beside it take that mode too; those already there are tightened."""
    database.parent.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    os.close(os.open(database, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
    for path in (database, *(database.with_name(database.name + suffix) for suffix in SQLITE_COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path, PRIVATE_FILE_MODE)
