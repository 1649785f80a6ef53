"""The lock that gives a SQLite database file to one durak-bot process, whatever path names it.

The lock is an ``flock`` on the database file itself, so it belongs to the file (its device and
inode), not to a name: a second process is refused whether it names the file by the same path,
through a symlink, through a symlinked directory or by a hard link.  SQLite's own locks are
``fcntl`` byte-range locks, which Linux keeps apart from ``flock``, so this lock never stands in
the way of a reader such as ``durak-bot backup`` (on network file systems that emulate
``flock`` with ``fcntl`` it would: keep the database on a local disk, as SQLite asks anyway).

Two rules of POSIX locks shape the code: closing *any* descriptor of a file drops every
``fcntl`` lock the process holds on it, SQLite's included.  So the descriptor is closed only
after the process's SQLite connection to the file is closed, and a file this process already
holds is refused from its identity alone, without opening it a second time.

Earlier releases locked ``<path>.lock`` (the path as typed) instead; that lock is taken too, so
an earlier release started beside this one is refused, and this one beside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import TextIO

from bot.storage.base import DatabaseUnavailable

__all__ = ["HeldFile", "hold_database_file"]

#: The (device, inode) of every database file this process holds.
_HELD: set[tuple[int, int]] = set()


class HeldFile:
    """A database file held by this process; :meth:`release` (idempotent) lets it go."""

    def __init__(self, fd: int, identity: tuple[int, int], legacy: TextIO | None) -> None:
        self._fd: int | None = fd
        self.identity = identity
        self._legacy = legacy

    def release(self) -> None:
        """Unlock and close.  Call it only once this process's SQLite connection to the file
        is closed (closing the descriptor drops the process's ``fcntl`` locks on the file)."""
        legacy, self._legacy = self._legacy, None
        if legacy is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(legacy, fcntl.LOCK_UN)
            legacy.close()
        fd, self._fd = self._fd, None
        if fd is not None:
            _HELD.discard(self.identity)
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def hold_database_file(path: str) -> HeldFile:
    """Create the file's directory and the (empty) file if needed and take its exclusive lock.
    Raises :class:`DatabaseUnavailable` (one line naming ``path``) if it cannot be had."""
    parent = Path(path).expanduser().absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseUnavailable(
            f"database {path}: cannot create its directory {parent} ({exc.strerror or exc})"
        ) from exc
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DatabaseUnavailable(f"database {path}: its directory {parent} is not writable")
    try:
        known: tuple[int, int] | None = _identity(os.stat(path))
    except OSError:
        known = None  # not made yet (or unreadable: opening it says why)
    if known in _HELD:
        raise _in_use(path, str(os.getpid()))
    fd = _open(path)
    identity = _identity(os.fstat(fd))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)  # no SQLite connection of this process is on it (see _HELD)
        raise _in_use(path, _flock_holder(identity) or _legacy_holder(path)) from None
    _HELD.add(identity)
    held = HeldFile(fd, identity, None)
    try:
        held._legacy = _hold_legacy(path)
    except BaseException:
        held.release()
        raise
    return held


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _open(path: str) -> int:
    """A descriptor of the database file, made empty if missing (SQLite takes an empty file
    as a new database; 0644 as SQLite makes it).  Read-only if the file is (SQLite then says
    so), as a lock needs no write access."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except PermissionError:
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise DatabaseUnavailable(
                f"database {path} cannot be opened ({exc.strerror or exc})"
            ) from exc
    except OSError as exc:
        raise DatabaseUnavailable(
            f"database {path} cannot be opened ({exc.strerror or exc})"
        ) from exc


def _in_use(path: str, holder: str) -> DatabaseUnavailable:
    return DatabaseUnavailable(
        f"database {path} is in use by another durak-bot process (pid {holder}): "
        "SQLite serves one process; stop the other one, or use PostgreSQL "
        "(DATABASE_URL=postgresql://…) for several"
    )


def _flock_holder(identity: tuple[int, int]) -> str | None:
    """The pid holding an ``flock`` on the file (Linux's ``/proc/locks``), if it can be seen."""
    dev, ino = identity
    wanted = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("->" marks a waiter)
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:
            return fields[4]
    return None


def _legacy_path(path: str) -> Path:
    return Path(path + ".lock")


def _legacy_holder(path: str) -> str:
    """The pid an earlier holder wrote in ``<path>.lock``, or ``"?"``."""
    try:
        return _legacy_path(path).read_text(encoding="utf-8").strip() or "?"
    except (OSError, UnicodeDecodeError):
        return "?"


def _hold_legacy(path: str) -> TextIO:
    """Take the lock of earlier releases, ``<path>.lock``, and note this process's pid in it."""
    lock_path = _legacy_path(path)
    try:
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held open
    except PermissionError:
        # Made by another user: a read-only handle locks as well (the pid is not noted).
        try:
            handle = open(lock_path, encoding="utf-8")  # noqa: SIM115 - held open
        except OSError as exc:
            raise DatabaseUnavailable(
                f"database {path}: cannot open {lock_path} ({exc.strerror or exc})"
            ) from exc
    except OSError as exc:
        raise DatabaseUnavailable(
            f"database {path}: cannot create {lock_path} ({exc.strerror or exc})"
        ) from exc
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise _in_use(path, holder) from None
    if handle.writable():
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
    return handle
