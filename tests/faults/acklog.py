"""The ack log: one JSON object per line, written by a player process as soon as the service
acknowledged a command (the command returned), or refused it.

Each line is handed to the kernel by one ``write`` on a file opened ``O_APPEND`` before the next
command is pressed, so a SIGKILL loses no line that was written: what the log holds is what was
acknowledged.  ``fsync`` runs every :data:`FSYNC_EVERY` lines (it guards against a machine
crash, which the campaign does not simulate).  A line without its newline (torn by a kill in
the middle of a write) is not an acknowledgement and is skipped by :func:`read_logs`.

Kinds of line (``k``):

- ``act``: an action acknowledged: ``ch`` channel, ``game`` game id, ``v`` the game's version
  after it (the action is the ``v``-th of the game's log), ``a`` the action as the game stores
  it (``"SEAT ACTION"``);
- ``join``: a lobby seat acknowledged: ``ch``, ``user`` (a user id never used twice in a
  campaign, so the seat is that join's);
- ``refused``: a command refused: ``what`` (``join`` or ``act``), ``error`` (the class of the
  :class:`bot.errors.ServiceError`), ``ch`` and, for a join, ``user``;
- ``ready``: the process restored its service and starts pressing (``p``: its instance).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FSYNC_EVERY", "AckLog", "LogLines", "read_logs"]

#: Lines between two ``fsync`` calls.
FSYNC_EVERY = 32


class AckLog:
    """An append-only ack log (see the module)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._unsynced = 0

    def write(self, **line: Any) -> None:
        """Append one line (one ``write`` call: whole, or not at all after a kill)."""
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        written = os.write(self._fd, data)
        if written != len(data):  # a regular file takes a small write whole, unless disk full
            raise OSError(f"short write to the ack log {self.path}")
        self._unsynced += 1
        if self._unsynced >= FSYNC_EVERY:
            os.fsync(self._fd)
            self._unsynced = 0

    def close(self) -> None:
        os.fsync(self._fd)
        os.close(self._fd)


@dataclass
class LogLines:
    """The lines of every ack log of a campaign, by kind, and the torn lines skipped."""

    acts: list[dict[str, Any]]
    joins: list[dict[str, Any]]
    refused: list[dict[str, Any]]
    ready: int = 0
    torn: int = 0


def _lines(path: Path) -> Iterator[str | None]:
    """The complete lines of ``path``; ``None`` for a torn last line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    parts = text.split("\n")
    yield from parts[:-1]
    if parts[-1]:
        yield None


def read_logs(paths: Iterable[str | os.PathLike[str]]) -> LogLines:
    """Every acknowledged line of the logs at ``paths``."""
    out = LogLines([], [], [])
    for path in paths:
        for text in _lines(Path(path)):
            if text is None:
                out.torn += 1
                continue
            line = json.loads(text)
            kind = line.get("k")
            if kind == "act":
                out.acts.append(line)
            elif kind == "join":
                out.joins.append(line)
            elif kind == "refused":
                out.refused.append(line)
            elif kind == "ready":
                out.ready += 1
    return out
