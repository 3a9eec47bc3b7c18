"""Personal data at rest is the store user's only (services/platform/private_files.py): the data
folder 0700, the SQLite database with its WAL files, the sent mail and the signing key 0600, and
the sent mail's .eml files removed after MAIL_FILE_RETENTION_DAYS."""

from __future__ import annotations

import os
import stat
import time
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import text

from storefront import db
from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.mail.mailers import FileMailer
from storefront.services.mail.outbox import MailOutbox, start_mail_worker
from storefront.services.platform.signing import store_secret_key
from storefront.wiring import session_factory
from tests.ordering import FakeClock


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def open_umask() -> object:
    """The umask most servers run with, which made everything 0644 in 0755 folders."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _message(key: str) -> EmailMessage:
    email = EmailMessage()
    email["Subject"], email["From"], email["To"] = "Order SF-000001 confirmed", "shop@example.com", "ann@example.com"
    email["Message-ID"] = f"<{key}@storefront.mail>"
    email.set_content("Ann Example, 12 Analytical Row, Albany")
    return email


def test_the_sqlite_database_and_its_wal_files_are_0600_in_a_0700_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    url = f"sqlite:///{data / 'storefront.db'}"
    db.migrate(url)
    engine = db.make_engine(url)
    with engine.connect() as connection:  # WAL mode: the -wal and -shm files exist while it is open
        connection.execute(text("CREATE TABLE IF NOT EXISTS probe (x INTEGER)"))
        connection.execute(text("INSERT INTO probe VALUES (1)"))
        connection.commit()
        files = sorted(path.name for path in data.iterdir())
        assert files == ["storefront.db", "storefront.db-shm", "storefront.db-wal"]
        assert {name: mode(data / name) for name in files} == dict.fromkeys(files, 0o600)
    engine.dispose()
    assert mode(data) == 0o700


def test_a_database_an_earlier_release_left_readable_is_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for name in ("storefront.db", "storefront.db-wal", "storefront.db-shm"):
        (data / name).touch(mode=0o644)
    db.make_engine(f"sqlite:///{data / 'storefront.db'}").dispose()
    assert {path.name: mode(path) for path in data.iterdir()} == {
        "storefront.db": 0o600, "storefront.db-wal": 0o600, "storefront.db-shm": 0o600,
    }


def test_the_store_makes_its_data_folder_0700_and_tightens_an_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for data in (tmp_path / "new", tmp_path / "old"):
        if data.name == "old":
            data.mkdir(mode=0o755)
            assert mode(data) == 0o755
        monkeypatch.setenv("DATA_DIR", str(data))
        monkeypatch.delenv("UPLOAD_DIR", raising=False)
        create_api(Settings())
        assert mode(data) == 0o700, data.name


def test_sent_mail_is_0600_in_a_0700_folder_and_the_key_is_made_in_a_0700_folder(tmp_path: Path) -> None:
    mailer = FileMailer(tmp_path / "data" / "mail")
    mailer.send(_message("order-SF-000001-confirmed"))
    (written,) = mailer.folder.iterdir()
    assert (mode(mailer.folder), mode(written)) == (0o700, 0o600)
    store_secret_key("", tmp_path / "keys")
    assert (mode(tmp_path / "keys"), mode(tmp_path / "keys" / "secret-key")) == (0o700, 0o600)


def test_sent_mail_files_are_removed_after_the_retention(tmp_path: Path) -> None:
    clock = FakeClock()
    mailer = FileMailer(tmp_path / "mail")
    for key, age in (("old", timedelta(days=31)), ("kept", timedelta(days=29)), ("new", timedelta(0))):
        mailer.send(_message(key))
        written = mailer.path_of(_message(key))
        moment = (clock() - age).timestamp()
        os.utime(written, (moment, moment))
    outbox = MailOutbox(lambda: None, mailer, "shop@example.com", clock, keep_files=timedelta(days=30))  # type: ignore[arg-type, return-value]
    assert outbox.prune_files() == 1
    assert sorted(path.name for path in mailer.folder.iterdir()) == [
        "kept_storefront.mail.eml",
        "new_storefront.mail.eml",
    ]


def test_the_mail_worker_prunes_as_it_starts_and_every_hour(tmp_path: Path, engine: object) -> None:
    mailer = FileMailer(tmp_path / "mail")
    mailer.send(_message("old"))
    moment = time.time() - timedelta(days=31).total_seconds()
    os.utime(mailer.path_of(_message("old")), (moment, moment))
    outbox = MailOutbox(session_factory(engine), mailer, "shop@example.com")  # type: ignore[arg-type]
    worker = start_mail_worker(outbox, interval_seconds=0.05)
    try:
        deadline = time.monotonic() + 10
        while list(mailer.folder.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        worker.stop()
    assert list(mailer.folder.iterdir()) == []


def test_the_retention_is_a_setting_of_30_days(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAIL_FILE_RETENTION_DAYS", raising=False)
    assert Settings().mail_file_retention_days == 30
    monkeypatch.setenv("MAIL_FILE_RETENTION_DAYS", "7")
    assert Settings().mail_file_retention_days == 7
    monkeypatch.setenv("MAIL_FILE_RETENTION_DAYS", "0")
    with pytest.raises(ValueError, match="MAIL_FILE_RETENTION_DAYS"):
        Settings()
