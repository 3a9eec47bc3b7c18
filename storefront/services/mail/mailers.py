"""Where a message goes: an SMTP server (SMTP_URL), or an .eml file under DATA_DIR/mail/."""

from __future__ import annotations

import logging
import re
import smtplib
import ssl
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from storefront.services.platform.private_files import private_dir, write_private

logger = logging.getLogger(__name__)

SMTP_TIMEOUT_SECONDS = 30
MAIL_DIR = "mail"


class Mailer(Protocol):
    """Delivers one message; raises when it could not (the outbox retries it later)."""

    def send(self, message: EmailMessage) -> None: ...


def _say_where_files_go() -> None:
    """Each written file's path reaches the console: without SMTP it is the only way to find a
    message, and the app configures no logging of its own (so INFO would be dropped)."""
    if not logger.isEnabledFor(logging.INFO):
        logger.setLevel(logging.INFO)
    if not logger.hasHandlers():
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)


class FileMailer:
    """Writes each message as `<Message-ID>.eml` under a folder: `make run` shows them with no mail server.

    Named by the Message-ID, so a message written again after a lost answer replaces itself. The
    files hold customers' names and addresses: the folder is 0700, each file 0600, and `prune`
    removes those older than the retention."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        _say_where_files_go()

    def path_of(self, message: EmailMessage) -> Path:
        name = re.sub(r"[^A-Za-z0-9._-]", "_", str(message["Message-ID"]).strip("<>"))[:150]
        return self.folder / f"{name}.eml"

    def send(self, message: EmailMessage) -> None:
        private_dir(self.folder)
        path = self.path_of(message)
        write_private(path, message.as_bytes())
        logger.info("Email %r to %s written to %s", message["Subject"], message["To"], path)

    def prune(self, before: datetime) -> int:
        """Remove the messages written before `before`; returns how many went."""
        removed = 0
        for path in self.folder.glob("*.eml*"):
            try:
                if path.stat().st_mtime < before.timestamp():
                    path.unlink()
                    removed += 1
            except FileNotFoundError:  # another worker of the store removed it first
                continue
        if removed:
            logger.info("Removed %d email files older than %s from %s", removed, before.isoformat(), self.folder)
        return removed


class SmtpMailer:
    """Sends through an SMTP server: smtp:// with STARTTLS (required when there are credentials,
    so a password never crosses the network in clear), smtps:// with implicit TLS."""

    def __init__(self, url: str, timeout: float = SMTP_TIMEOUT_SECONDS) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("SMTP_URL must look like smtp://user:password@host:587 or smtps://host:465")
        self._implicit_tls = parts.scheme == "smtps"
        self._host = parts.hostname
        self._port = parts.port or (465 if self._implicit_tls else 587)
        self._user = unquote(parts.username or "")
        self._password = unquote(parts.password or "")
        self._timeout = timeout

    def send(self, message: EmailMessage) -> None:
        context = ssl.create_default_context()
        if self._implicit_tls:
            client: smtplib.SMTP = smtplib.SMTP_SSL(self._host, self._port, timeout=self._timeout, context=context)
        else:
            client = smtplib.SMTP(self._host, self._port, timeout=self._timeout)
        with client:
            client.ehlo()
            if not self._implicit_tls:
                if client.has_extn("starttls"):
                    client.starttls(context=context)
                    client.ehlo()
                elif self._user:
                    raise smtplib.SMTPException("the SMTP server offers no STARTTLS: the password is not sent in clear")
            if self._user:
                client.login(self._user, self._password)
            client.send_message(message)


def mailer_for(smtp_url: str, data_dir: Path) -> Mailer:
    """SMTP when SMTP_URL is set, else .eml files under DATA_DIR/mail/."""
    return SmtpMailer(smtp_url) if smtp_url else FileMailer(data_dir / MAIL_DIR)
