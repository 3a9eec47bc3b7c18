"""Keeps secrets out of the logs: tokens, card fields and addresses are masked in every record.

Reflex logs a failing event whole (its payload, and the router data with the request's headers),
and an exception's text may quote what it was given. Every record is masked as it is created,
for every logger and handler: the message is rendered, masked and frozen, and a traceback is
rendered and masked into the message, so no handler formats the raw values afterwards.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Callable

REDACTED = "[redacted]"

#: Names whose values never reach a log (a key containing any of these, in any case).
_SENSITIVE_NAME = (
    r"token|password|passwd|secret|authorization|cookie|card|cvc|cvv|expir|address|street|line1|line2"
    r"|email|phone|postal|zip|kept|remembered"
)
#: A key is a whole run of name characters holding a sensitive name. The key is tried only where
#: such a run starts and taken whole without backtracking (a lookahead finds the name, then `++`),
#: so the time is linear in the text: `[\w.\-]*(?:name)[\w.\-]*` tried at every position of a long
#: name (Reflex's state tokens are 120 characters) took milliseconds a record.
_KEYED_VALUE = re.compile(
    rf"""(?P<quote>['"]?)(?<![\w.\-])(?P<key>(?=[\w.\-]*?(?:{_SENSITIVE_NAME}))[\w.\-]++)(?P=quote)"""
    r"""(?P<sep>\s*[:=]\s*)"""
    r"""(?P<value>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\{[^{}]*\}|\[[^\[\]]*\]|[^\s,;)}\]]+)""",
    re.IGNORECASE,
)
#: A card number: 13 to 19 digits, maybe in groups.
_CARD_NUMBER = re.compile(r"(?<![\w.])\d(?:[ -]?\d){12,18}(?![\w.])")
#: A bearer secret's shape: 32 or more URL-safe characters with letters and digits mixed.
_SECRET_LIKE = re.compile(
    r"(?<![\w\-/.])(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{32,}(?![\w\-/.])"
)


def redact(text: str) -> str:
    """`text` with sensitive values masked."""
    text = _KEYED_VALUE.sub(lambda m: f"{m['quote']}{m['key']}{m['quote']}{m['sep']}{REDACTED!r}", text)
    text = _CARD_NUMBER.sub(REDACTED, text)
    return _SECRET_LIKE.sub(REDACTED, text)


_installed: Callable[..., logging.LogRecord] | None = None


def install() -> None:
    """Mask every log record created from now on in this process (installing twice is harmless)."""
    global _installed
    if _installed is not None:
        return
    make_record = logging.getLogRecordFactory()

    def masked_record(*args: object, **kwargs: object) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string still gets logged, masked
            message = f"{record.msg!r} {record.args!r}"
        if record.exc_info and record.exc_info[0] is not None:
            message = f"{message}\n{''.join(traceback.format_exception(*record.exc_info)).rstrip()}"
            # Handlers (Reflex's rich console among them) would render the raw traceback again.
            record.exc_info, record.exc_text = None, None
            record.traceback_logged = True
        record.msg, record.args = redact(message), ()
        return record

    logging.setLogRecordFactory(masked_record)
    _installed = masked_record
