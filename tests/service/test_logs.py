"""``LOG_FORMAT=json``: one JSON object per line, with the time, level, logger, message and
exception text of each record; a bad ``LOG_FORMAT`` is a configuration problem."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime

import pytest

from apps.config import Settings
from apps.logs import JsonFormatter, configure_logging
from bot.errors import ConfigError

FIELDS = {"time", "level", "logger", "message", "exception"}


def _records(stream: io.StringIO) -> list[dict[str, object]]:
    lines = stream.getvalue().splitlines()
    assert lines
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    for record in records:
        assert set(record) == FIELDS
        datetime.fromisoformat(str(record["time"]))
    return records


def test_each_record_is_one_json_line_with_its_exception() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    log = logging.getLogger("durak.test.json")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    try:
        log.info("game %d started in %s", 7, "#général")
        log.warning('a "quoted"\nmessage on two lines')
        try:
            raise ValueError("the deadline is not a number")
        except ValueError:
            log.exception("game 7 could not be restored")
    finally:
        log.removeHandler(handler)
    info, warning, error = _records(stream)
    assert info == info | {"level": "INFO", "logger": "durak.test.json", "exception": None}
    assert info["message"] == "game 7 started in #général"
    assert warning["message"] == 'a "quoted"\nmessage on two lines'
    assert error["level"] == "ERROR" and error["message"] == "game 7 could not be restored"
    assert isinstance(error["exception"], str)
    assert error["exception"].startswith("Traceback")
    assert "ValueError: the deadline is not a number" in error["exception"]


def test_settings_read_log_format() -> None:
    assert Settings.from_env({}, dotenv_path=None).log_format == "text"
    assert Settings.from_env({"LOG_FORMAT": "JSON"}, dotenv_path=None).log_format == "json"
    with pytest.raises(ConfigError, match="LOG_FORMAT='xml' is not one of text, json"):
        Settings.from_env({"LOG_FORMAT": "xml"}, dotenv_path=None)


def test_configure_logging_writes_json_to_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    stream = io.StringIO()
    configure_logging(logging.INFO, "json", stream)
    logging.getLogger("bot.test").debug("not at INFO")
    logging.getLogger("bot.test").info("at INFO")
    (record,) = _records(stream)
    assert record["message"] == "at INFO" and record["logger"] == "bot.test"
