"""Where the bot's log records go and how each is written.

Every record goes to standard error, one record per line in the ``json`` format:

- ``text`` (the default): ``2026-01-31 12:00:00,123 INFO apps.discord_bot: message``, with an
  exception's traceback on the lines after it;
- ``json`` (``LOG_FORMAT=json``, for log collectors): one JSON object per line, with the keys
  ``time`` (ISO 8601, UTC, milliseconds), ``level``, ``logger``, ``message`` and
  ``exception`` (the traceback as text, ``null`` when there is none).  Newlines inside the
  message or the traceback are escaped, so a record is always exactly one line.

discord.py logs through the same root logger (the bot starts it with ``log_handler=None``).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import TextIO

__all__ = ["LOG_FORMATS", "TEXT_FORMAT", "JsonFormatter", "configure_logging"]

#: The values of ``LOG_FORMAT``.
LOG_FORMATS = ("text", "json")
#: The line of a record in the ``text`` format.
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """A record as one JSON object on one line (see the module docstring for its keys)."""

    def format(self, record: logging.LogRecord) -> str:
        exception = None
        if record.exc_info:
            exception = self.formatException(record.exc_info)
        elif record.exc_text:
            exception = record.exc_text
        if record.stack_info:
            stack = self.formatStack(record.stack_info)
            exception = stack if exception is None else f"{exception}\n{stack}"
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "exception": exception,
        }
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_logging(level: int, log_format: str = "text", stream: TextIO | None = None) -> None:
    """Send the root logger's records at ``level`` and above to ``stream`` (default: standard
    error) in ``log_format`` (one of :data:`LOG_FORMATS`).  Like :func:`logging.basicConfig`,
    it does nothing if the root logger already has a handler."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format {log_format!r} is not one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    logging.basicConfig(level=level, handlers=[handler])
    # aiosqlite logs every statement at DEBUG from its worker thread, after handing the result
    # back: noise at LOG_LEVEL=DEBUG, and a line that can outlive the bot's last words.
    logging.getLogger("aiosqlite").setLevel(max(level, logging.INFO))
