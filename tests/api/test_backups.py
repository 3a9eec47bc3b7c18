"""Backups that restore (services/operations/backups.py, restore.py), on SQLite and PostgreSQL:
an archive taken from a store with orders, a paid order, an admin session, a subscriber, an event,
an upload and a signing key brings all of them back into an empty store; a store that is not
empty, an archive that does not match its checksums and one from an unknown migration are refused
and change nothing."""

from __future__ import annotations

import io
import json
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, select

from storefront.api.app import create_api
from storefront.config import Settings
from storefront.db import make_engine, migrate
from storefront.models import AdminSession, Event, NewsletterSubscriber, Order, OutboxJob
from storefront.services.operations import pg_tools
from storefront.services.operations.backups import MANIFEST, StoreFiles, archives_in, create_backup, prune
from storefront.services.operations.restore import RestoreError, restore_backup
from storefront.services.payments.gateway import TestPaymentGateway
from tests.api.staff import as_owner, owner_headers
from tests.conftest import TEST_DATABASE_URL
from tests.databases import temporary_database
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

ORDERS = "/api/printify/orders"
ADMIN_SESSION = "/api/admin/session"
PHOTO = b"\xff\xd8\xff\xe0 an event photo"


def store_of(database_url: str, data_dir: Path) -> StoreFiles:
    return StoreFiles(db_url=database_url, data_dir=data_dir, upload_dir=data_dir / "uploads")


@contextmanager
def empty_store(database_url: str, root: Path) -> Iterator[StoreFiles]:
    """An empty store of the same kind: a new data folder, and a new database on PostgreSQL."""
    data_dir = root / "restored"
    if make_url(database_url).get_backend_name() == "sqlite":
        yield store_of(f"sqlite:///{data_dir / 'storefront.db'}", data_dir)
        return
    with temporary_database(TEST_DATABASE_URL, "storefront_restore") as url:
        yield store_of(url, data_dir)


def rows(engine: Engine) -> dict[str, object]:
    """What the tests compare before and after: orders, sessions, subscribers, events."""
    with Session(engine) as session:
        return {
            "orders": sorted(
                (o.number, o.status, o.payment_status, o.total_cents) for o in session.exec(select(Order))
            ),
            "sessions": sorted(s.token_hash for s in session.exec(select(AdminSession))),
            "subscribers": sorted(s.email for s in session.exec(select(NewsletterSubscriber))),
            "events": sorted(e.title for e in session.exec(select(Event))),
        }


@pytest.fixture
def shop(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[StoreFiles, dict[str, str]]:
    """A store with two orders (one paid), a signed-in admin, a subscriber, an event and a photo."""
    data_dir = tmp_path / "data"
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    provider = seed_demo(engine, tmp_path)
    client = TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider))
    tee = pick(engine)
    placed = [client.post(ORDERS, json=order_payload((tee, n)), headers={"Idempotency-Key": f"k{n}"}) for n in (1, 2)]
    assert [response.status_code for response in placed] == [201, 201]
    number, token = placed[0].json()["order"]["id"], placed[0].json()["accessToken"]
    paid = client.post(
        f"{ORDERS}/{number}/process-payment",
        json={
            "paymentId": "pay_1700000000000_abc123",
            "shopId": "store",
            "paymentMethod": "card",
            "cardData": GOOD_CARD,
        },
        headers={"X-Order-Token": token},
    )
    assert paid.status_code == 200, paid.text
    headers = owner_headers(client)
    with Session(engine) as session:
        session.add(NewsletterSubscriber(email="grace@example.com"))
        session.add(Event(title="Spring Pop-Up", description="Tees", location="Albany", starts_at="2030-04-01T10:00"))
        session.commit()
    (data_dir / "uploads" / "events").mkdir(parents=True, exist_ok=True)
    (data_dir / "uploads" / "events" / "photo.jpg").write_bytes(PHOTO)
    (data_dir / "secret-key").write_text("the-store-signing-key")
    return store_of(str(engine.url.render_as_string(hide_password=False)), data_dir), headers


def test_a_backup_restores_orders_sessions_subscribers_events_uploads_and_the_key(
    shop: tuple[StoreFiles, dict[str, str]], engine: Engine, database_url: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, admin_headers = shop
    before = rows(engine)
    archive = create_backup(store, tmp_path / "backups")
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile(MANIFEST).read())  # type: ignore[union-attr]
    assert manifest["database"]["counts"]["orders"] == 2
    assert manifest["database"]["counts"]["subscribers"] == 1
    assert manifest["secret_key"] == "file"
    assert archive.stat().st_mode & 0o077 == 0
    with empty_store(database_url, tmp_path) as target:
        restore_backup(archive, target, migrate=migrate)
        restored = make_engine(target.db_url)
        try:
            assert rows(restored) == before
            assert (target.upload_dir / "events" / "photo.jpg").read_bytes() == PHOTO
            assert (target.data_dir / "secret-key").read_text() == "the-store-signing-key"
            # The admin's session still opens the back office on the restored store.
            monkeypatch.setenv("DATA_DIR", str(target.data_dir))
            client = TestClient(create_api(Settings(), engine=restored, gateway=TestPaymentGateway()))
            assert client.get(ADMIN_SESSION, headers=admin_headers).status_code == 200
            assert client.get(ADMIN_SESSION).status_code == 401
        finally:
            restored.dispose()


def test_a_store_that_is_not_empty_is_refused_unless_forced(
    shop: tuple[StoreFiles, dict[str, str]], engine: Engine, tmp_path: Path
) -> None:
    store, _ = shop
    archive = create_backup(store, tmp_path / "backups")
    with Session(engine) as session:
        session.add(NewsletterSubscriber(email="after-the-backup@example.com"))
        session.commit()
    after = rows(engine)
    with pytest.raises(RestoreError, match="the store is not empty .*pass --force"):
        restore_backup(archive, store, migrate=migrate)
    assert rows(engine) == after
    engine.dispose()
    restore_backup(archive, store, migrate=migrate, force=True)
    assert "after-the-backup@example.com" not in rows(engine)["subscribers"]  # type: ignore[operator]
    assert len(rows(engine)["orders"]) == 2  # type: ignore[arg-type]


def _rewrite(archive: Path, change: dict[str, bytes]) -> Path:
    """A copy of the archive with some members' contents replaced (the manifest left as it was)."""
    copy = archive.with_name("tampered.tar.gz")
    with tarfile.open(archive) as source, tarfile.open(copy, "w:gz") as target:
        for member in source:
            data = source.extractfile(member).read()  # type: ignore[union-attr]
            data = change.get(member.name, data)
            member.size = len(data)
            target.addfile(member, io.BytesIO(data))
    return copy


def test_an_archive_that_does_not_match_its_checksums_restores_nothing(
    shop: tuple[StoreFiles, dict[str, str]], database_url: str, tmp_path: Path
) -> None:
    store, _ = shop
    tampered = _rewrite(create_backup(store, tmp_path / "backups"), {"uploads/events/photo.jpg": b"not the photo"})
    with empty_store(database_url, tmp_path) as target:
        with pytest.raises(
            RestoreError, match="does not match its checksums; changed or missing: uploads/events/photo.jpg"
        ):
            restore_backup(tampered, target, migrate=migrate)
        assert not (target.upload_dir / "events" / "photo.jpg").exists()
        assert not target.data_dir.joinpath("secret-key").exists()


def test_an_archive_from_a_migration_this_release_does_not_know_is_refused(
    shop: tuple[StoreFiles, dict[str, str]], engine: Engine, database_url: str, tmp_path: Path
) -> None:
    store, _ = shop
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0099_from_the_future'"))
    archive = create_backup(store, tmp_path / "backups")
    with (
        empty_store(database_url, tmp_path) as target,
        pytest.raises(RestoreError, match="migration '0099_from_the_future', which this release .* does not know"),
    ):
        restore_backup(archive, target, migrate=migrate)


def test_a_backup_taken_while_orders_are_written_is_consistent(
    shop: tuple[StoreFiles, dict[str, str]], engine: Engine, database_url: str, tmp_path: Path
) -> None:
    store, _ = shop
    stop = threading.Event()
    written = [0]

    def write() -> None:
        while not stop.is_set():
            with Session(engine) as session:
                session.add(NewsletterSubscriber(email=f"busy{written[0]}@example.com"))
                session.commit()
            written[0] += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while written[0] < 20:
            stop.wait(0.01)
        archive = create_backup(store, tmp_path / "backups")
    finally:
        stop.set()
        writer.join()
    with empty_store(database_url, tmp_path) as target:
        manifest = restore_backup(archive, target, migrate=migrate)  # checks the restored counts against these
        restored = make_engine(target.db_url)
        with Session(restored) as session:
            subscribers = session.exec(select(func.count()).select_from(NewsletterSubscriber)).one()
        restored.dispose()
    assert subscribers == manifest["database"]["counts"]["subscribers"] >= 21
    assert written[0] >= subscribers - 1


def test_only_the_newest_archives_are_kept(shop: tuple[StoreFiles, dict[str, str]], tmp_path: Path) -> None:
    store, _ = shop
    made = [create_backup(store, tmp_path / "backups") for _ in range(3)]
    assert prune(tmp_path / "backups", keep=2) == made[:1]
    assert archives_in(tmp_path / "backups") == made[1:]


def test_a_missing_pg_dump_is_named_with_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pg_tools.PgToolsError, match="pg_dump was not found on PATH: .*postgresql-client-15"):
        pg_tools.check_tool_for_server("pg_dump", 150020)


def test_a_pg_dump_older_than_the_server_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "pg_dump"
    old.write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 13.9'\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pg_tools.PgToolsError, match="pg_dump is version 13 but the server is PostgreSQL 15"):
        pg_tools.check_tool_for_server("pg_dump", 150020)


def test_orders_the_backup_had_not_sent_are_looked_up_at_the_provider_before_sending(
    shop: tuple[StoreFiles, dict[str, str]], database_url: str, tmp_path: Path
) -> None:
    store, _ = shop
    archive = create_backup(store, tmp_path / "backups")
    with empty_store(database_url, tmp_path) as target:
        restore_backup(archive, target, migrate=migrate)
        restored = make_engine(target.db_url)
        with Session(restored) as session:
            waiting = session.exec(select(OutboxJob).where(OutboxJob.done_at == None)).all()  # noqa: E711
        restored.dispose()
    assert [job.kind for job in waiting] == ["send_order"]  # the paid order of the fixture
    assert all(job.outcome_unknown for job in waiting)
