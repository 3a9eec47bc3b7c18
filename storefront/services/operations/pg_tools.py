"""PostgreSQL's own dump and restore tools (`pg_dump`, `pg_restore`), found and checked before use.

A custom-format dump is the one consistent copy of a live PostgreSQL database: it is taken in one
snapshot while the store writes. `pg_dump` refuses a server of a newer major version than its own,
so the tools are checked against the server first and a missing or older client stops the backup
with a message saying what to install (Debian: `postgresql-client-15` for a 15.x server).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from sqlalchemy.engine import URL, make_url


class PgToolsError(RuntimeError):
    """The PostgreSQL client tools are missing, too old for the server, or failed."""


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise PgToolsError(
            f"{name} was not found on PATH: install PostgreSQL's client tools of the server's major version"
            " or newer (Debian/Ubuntu: apt-get install postgresql-client-15 for a 15.x server)"
        )
    return found


def tool_major_version(name: str) -> int:
    """The major version of a client tool (`pg_dump (PostgreSQL) 15.20` -> 15)."""
    output = subprocess.run([_tool(name), "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"\)\s*(\d+)", output)
    if match is None:
        raise PgToolsError(f"could not read the version of {name} from {output!r}")
    return int(match.group(1))


def check_tool_for_server(name: str, server_version_num: int) -> int:
    """The tool's major version, refused when it is older than the server's (`server_version_num`
    as PostgreSQL reports it, e.g. 150020)."""
    server_major = server_version_num // 10000
    major = tool_major_version(name)
    if major < server_major:
        raise PgToolsError(
            f"{name} is version {major} but the server is PostgreSQL {server_major}: install"
            f" postgresql-client-{server_major} (or newer) and put its {name} first on PATH"
        )
    return major


def libpq_target(url: str | URL) -> tuple[str, dict[str, str]]:
    """The database as a libpq URI for the tools' --dbname, without its password, and the environment
    that carries the password (PGPASSWORD), so no password shows in the process list."""
    parsed = make_url(url) if isinstance(url, str) else url
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def run_tool(name: str, args: list[str], env: dict[str, str]) -> None:
    """Run a client tool; a failure raises with what it printed."""
    result = subprocess.run([_tool(name), *args], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise PgToolsError(f"{name} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")


def dump(url: str, snapshot: str | None, target: Path) -> None:
    """A custom-format dump of the database into `target`, within `snapshot` when given (the one
    the backup counted its rows in)."""
    dbname, env = libpq_target(url)
    args = ["--format=custom", "--no-owner", "--no-privileges", f"--file={target}", f"--dbname={dbname}"]
    if snapshot:
        args.append(f"--snapshot={snapshot}")
    run_tool("pg_dump", args, env)


def restore(url: str, source: Path) -> None:
    """Load a custom-format dump into the (empty) database, all or nothing."""
    dbname, env = libpq_target(url)
    run_tool(
        "pg_restore",
        ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", f"--dbname={dbname}", str(source)],
        env,
    )
