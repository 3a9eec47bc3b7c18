"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives and can refuse on demand."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.serving import free_port


class SmtpInbox:
    """What the server received; `refuse_next` makes it answer the next DATA commands with 451;
    `answer_after` holds each answer that many seconds (the message is kept even if the sender is
    gone by then, as a real server delivers a message whose 250 was lost)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.refuse_next = 0
        self.refused = 0
        self.answer_after = 0.0
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        if self.answer_after > 0:
            await asyncio.sleep(self.answer_after)
        with self._lock:
            if self.refuse_next > 0:
                self.refuse_next -= 1
                self.refused += 1
                return "451 4.3.0 Try again later"
            message = message_from_bytes(envelope.content, policy=policy.default)
            assert isinstance(message, EmailMessage)
            self.messages.append(message)
        return "250 OK"

    def message_ids(self) -> list[str]:
        with self._lock:
            return [str(message["Message-ID"]) for message in self.messages]


@contextmanager
def smtp_server() -> Iterator[tuple[str, SmtpInbox]]:
    """An SMTP server on 127.0.0.1 for the block: its smtp:// address and its inbox."""
    inbox = SmtpInbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{port}", inbox
    finally:
        controller.stop()
