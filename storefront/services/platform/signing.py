"""Signed links: a value and its purpose, with an optional expiry, signed by the store's secret key.

A link in an email must open one thing (an order's page, one subscription) and nothing else, and
must not be forgeable from what it shows. The signature is an HMAC-SHA256 over the purpose, the
value and the expiry, compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

from storefront.services.platform.private_files import private_dir

SECRET_KEY_FILE = "secret-key"


def store_secret_key(configured: str, data_dir: Path) -> bytes:
    """SECRET_KEY, or the random key kept in DATA_DIR (made on first use) when it is not set."""
    if configured:
        return configured.encode()
    path = data_dir / SECRET_KEY_FILE
    if not path.exists():
        private_dir(data_dir)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            pass
        else:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(48))
    return path.read_text().strip().encode()


def signed_expiry(signature: str) -> datetime | None:
    """When a signature made by `LinkSigner.sign` expires; None for one that never does (or that is
    not a signature: `verify` refuses those)."""
    expires_text = signature.partition(".")[0]
    if not (expires_text.isascii() and expires_text.isdigit()) or len(expires_text) > 12 or not int(expires_text):
        return None
    return datetime.fromtimestamp(int(expires_text), tz=UTC)


class LinkSigner:
    """Signs and checks values for one store."""

    def __init__(self, secret: bytes) -> None:
        if not secret:
            raise ValueError("a signing key is needed")
        self._secret = secret

    def _digest(self, purpose: str, value: str, expires: int) -> str:
        message = f"{purpose}\n{value}\n{expires}".encode()
        mac = hmac.new(self._secret, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def sign(self, purpose: str, value: str, expires_at: datetime | None = None) -> str:
        """The signature of `value` for `purpose`, valid until `expires_at` (never expires when None)."""
        expires = int(expires_at.timestamp()) if expires_at else 0
        return f"{expires}.{self._digest(purpose, value, expires)}"

    def verify(self, purpose: str, value: str, signature: str, now: datetime) -> bool:
        """Whether `signature` was made by `sign(purpose, value, ...)` and has not expired."""
        expires_text, _, digest = signature.partition(".")
        # isdigit() alone takes '²' and other Unicode digits, which int() refuses.
        if not (expires_text.isascii() and expires_text.isdigit()) or not digest or len(signature) > 200:
            return False
        expires = int(expires_text)
        if expires and now.timestamp() > expires:
            return False
        return hmac.compare_digest(digest, self._digest(purpose, value, expires))
