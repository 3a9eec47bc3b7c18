"""A throwaway PostgreSQL database for a test run or a bench run: one set of steps."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, make_url, text


@contextmanager
def temporary_database(server_url: str, prefix: str, template: str | None = None) -> Iterator[str]:
    """A new database named `prefix` plus a random part on the server of `server_url`, empty or a
    copy of the database `template` (which nobody may be connected to), dropped afterwards (even
    with connections left open); yields its URL."""
    server = make_url(server_url)
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    copy_of = f' TEMPLATE "{template}"' if template else ""
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"{copy_of}'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
