"""``durak-bot backup FILE``: a consistent copy of the SQLite database, taken while the bot runs.

The copy is made with SQLite's online backup API in one step, that is inside one read
transaction: it holds every transaction committed before it began (so every action the bot
acknowledged by then) and none half-written, including what is still in the WAL, which a copy
of the file alone can miss.  It only reads the database: it takes no part of the bot's lock
(:mod:`bot.storage.file_lock`), and in WAL mode the bot keeps writing while it runs.

``FILE``'s directory is created if it is missing (``backups/…`` works on the first run).  The
copy is written beside ``FILE`` under a temporary name, checked (``PRAGMA quick_check``), synced
to disk and only then given its name, so ``FILE`` is either absent or a whole backup; an
existing ``FILE`` is never overwritten, and a backup that fails removes the directories it
created.  It is a plain SQLite database in rollback-journal mode: to restore it, stop the bot
and put it in place of the database file (see docs/OPERATING.md, "Backups").  A PostgreSQL
database is refused: ``pg_dump`` backs it up.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

from bot.storage.base import StorageError
from bot.storage.url import parse_database_url, redact_url

__all__ = ["BackupRefused", "backup_database", "backup_sqlite"]

#: How long the backup waits for a lock the bot holds for a moment (a checkpoint), in seconds.
_BUSY_TIMEOUT = 30.0


class BackupRefused(StorageError):
    """No backup was made; ``str(exc)`` is one line saying why.  Nothing was written."""


def backup_database(url: str, target: str) -> str:
    """Back up the database of ``url`` (``DATABASE_URL``) into the new file ``target``.
    Returns one line describing the copy; raises :class:`BackupRefused`."""
    try:
        parsed = parse_database_url(url)
    except ValueError as exc:
        raise BackupRefused(f"DATABASE_URL: {exc}") from exc
    if parsed.backend != "sqlite":
        raise BackupRefused(
            f"database {redact_url(url)} is PostgreSQL: durak-bot backup copies SQLite files "
            "only; back it up with pg_dump (see docs/OPERATING.md, “Backups”)"
        )
    return backup_sqlite(parsed.location, target)


def backup_sqlite(source: str, target: str) -> str:
    """Copy the SQLite database ``source`` into the new file ``target`` (see the module).
    Returns one line describing the copy; raises :class:`BackupRefused`."""
    if source == ":memory:" or not Path(source).is_file():
        raise BackupRefused(f"database {source} does not exist: there is nothing to back up")
    destination = Path(target)
    if os.path.lexists(destination):
        raise BackupRefused(f"{target} exists: name a new file (a backup never overwrites one)")
    folder = destination.absolute().parent
    created = _make_folder(folder, target)
    try:
        try:
            fd, partial = tempfile.mkstemp(
                dir=folder, prefix=f".{destination.name}.", suffix=".part"
            )
        except OSError as exc:
            raise BackupRefused(
                f"{target}: cannot write in {folder} ({exc.strerror or exc})"
            ) from exc
        os.close(fd)
        try:
            summary = _copy(source, partial)
            _name(partial, destination)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise
    except BaseException:
        _remove_folders(created)
        raise
    return f"backed up {source} to {target} ({summary})"


def _make_folder(folder: Path, target: str) -> list[Path]:
    """Create ``folder`` and its missing parents; the directories created, outermost first.
    Refused (and nothing left behind) if a parent is a file or a directory cannot be made."""
    missing: list[Path] = []
    existing = folder
    while not existing.exists():
        missing.append(existing)
        existing = existing.parent
    if not existing.is_dir():
        raise BackupRefused(f"{target}: {existing} is not a directory")
    created: list[Path] = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except OSError as exc:
            _remove_folders(created)
            raise BackupRefused(
                f"{target}: cannot create the directory {path} ({exc.strerror or exc})"
            ) from exc
        created.append(path)
    return created


def _remove_folders(created: list[Path]) -> None:
    """Remove the directories :func:`_make_folder` created (innermost first), if empty."""
    for path in reversed(created):
        with contextlib.suppress(OSError):
            path.rmdir()


def _copy(source: str, partial: str) -> str:
    """Copy ``source`` into the empty file ``partial``, check and sync it; what it holds."""
    try:
        src = sqlite3.connect(
            f"file:{quote(str(Path(source).absolute()))}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT
        )
    except sqlite3.Error as exc:
        raise BackupRefused(f"database {source} cannot be opened: {exc}") from exc
    try:
        dst = sqlite3.connect(partial, timeout=_BUSY_TIMEOUT)
        try:
            src.backup(dst)  # pages=-1: every page in one step, one read transaction
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            (check,) = dst.execute("PRAGMA quick_check").fetchone()
            if check != "ok":
                raise BackupRefused(f"the copy of {source} failed its check: {check}")
            summary = _summary(dst, source)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise BackupRefused(f"database {source} could not be copied: {exc}") from exc
    finally:
        src.close()
    with open(partial, "rb") as copy:
        os.fsync(copy.fileno())
    return summary


def _summary(con: sqlite3.Connection, source: str) -> str:
    """The schema version and game count of a copy; refused if it is no durak-bot database."""
    try:
        (version,) = con.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
        (games,) = con.execute("SELECT COUNT(*) FROM games").fetchone()
    except sqlite3.OperationalError:
        raise BackupRefused(
            f"database {source} is not a durak-bot database (it has no schema_version or "
            "games table): nothing was written"
        ) from None
    return f"schema version {version}, {games} game{'' if games == 1 else 's'}"


def _name(partial: str, destination: Path) -> None:
    """Give the finished copy its name, never replacing a file made in the meantime."""
    try:
        os.link(partial, destination)
    except FileExistsError:
        raise BackupRefused(
            f"{destination} exists: name a new file (a backup never overwrites one)"
        ) from None
    except OSError:  # a file system without hard links: rename (checked just before)
        if os.path.lexists(destination):
            raise BackupRefused(f"{destination} exists: name a new file") from None
        os.rename(partial, destination)
    else:
        os.unlink(partial)
    with contextlib.suppress(OSError):  # the new name is durable once its directory is synced
        dir_fd = os.open(destination.absolute().parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
