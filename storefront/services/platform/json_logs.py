"""LOG_FORMAT=json: every log record as one JSON object a line (time, level, logger, message), for
a log collector. The message is the one log_redaction.py masked when the record was made (a
traceback rendered into it, masked too), so JSON lines hold no more than text lines do."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime


class JsonLines(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.exc_info[0] is not None:  # only when redaction is not installed
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def use_json_lines() -> None:
    """Every handler of every logger writes JSON lines; the root logger gets one on stderr if it has none."""
    formatter = JsonLines()
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    loggers = [
        root,
        *(logger for logger in logging.root.manager.loggerDict.values() if isinstance(logger, logging.Logger)),
    ]
    for logger in loggers:
        for handler in logger.handlers:
            handler.setFormatter(formatter)
