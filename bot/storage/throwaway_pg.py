"""A throwaway PostgreSQL server for tests and benchmarks (not for production data).

:func:`start_throwaway_postgres` starts one in a directory, with the ``pgserver`` wheel (the
dev extra; it works as root by running the server as a ``pgserver`` user), or else with the
machine's own binaries (``/usr/lib/postgresql/*/bin``, run as ``nobody`` through ``runuser``
when we are root).  The server listens on a Unix socket only.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg

__all__ = [
    "PostgresUnavailable",
    "ThrowawayPostgres",
    "start_throwaway_postgres",
    "throwaway_database",
]


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server could be started; the message says what was tried."""


@dataclass
class ThrowawayPostgres:
    """A running server: :meth:`url` of a database on it, :meth:`stop` when done."""

    socket_dir: Path
    how: str  # "pgserver" or the pg_ctl path
    _stop: Any = field(repr=False, default=None)

    def url(self, database: str = "postgres") -> str:
        """A ``postgresql://`` URL of ``database`` on this server (user ``postgres``)."""
        return f"postgresql://postgres@/{quote(database)}?host={quote(str(self.socket_dir))}"

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()


def start_throwaway_postgres(root: str | os.PathLike[str]) -> ThrowawayPostgres:
    """Start a fresh server whose data lives under ``root`` (an empty directory)."""
    root = Path(root)
    problems: list[str] = []
    try:
        return _with_pgserver(root / "pgserver")
    except ImportError:
        problems.append("the pgserver wheel is not installed (pip install -e '.[dev]')")
    except (OSError, subprocess.SubprocessError, AssertionError) as exc:
        problems.append(f"pgserver failed: {exc}")
    try:
        return _with_system_binaries(root / "system")
    except (OSError, subprocess.SubprocessError) as exc:
        problems.append(f"the machine's PostgreSQL failed: {exc}")
    raise PostgresUnavailable("; ".join(problems))


@contextlib.asynccontextmanager
async def throwaway_database(root: Path, name: str) -> AsyncIterator[str]:
    """The URL of a new database ``name`` on a throwaway server started under ``root`` (an
    empty directory), stopped when the block ends."""
    server = await asyncio.to_thread(start_throwaway_postgres, root)
    try:
        admin = await asyncpg.connect(server.url())
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
        yield server.url(name)
    finally:
        await asyncio.to_thread(server.stop)


def _with_pgserver(pgdata: Path) -> ThrowawayPostgres:
    import pgserver  # the dev extra

    server = pgserver.get_server(pgdata, cleanup_mode="stop")
    info = server.get_postmaster_info()
    if info.socket_dir is None:
        server.cleanup()
        raise OSError("pgserver started a server without a Unix socket")
    return ThrowawayPostgres(Path(info.socket_dir), "pgserver", server.cleanup)


def _with_system_binaries(pgdata: Path) -> ThrowawayPostgres:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if not candidates and shutil.which("initdb"):
        candidates = [str(shutil.which("initdb"))]
    if not candidates:
        raise FileNotFoundError("no initdb in /usr/lib/postgresql/*/bin or on PATH")
    bin_dir = Path(candidates[0]).parent
    pgdata.mkdir(parents=True, exist_ok=True)
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(pgdata, "nobody", "nogroup" if _group_exists("nogroup") else None)
        for parent in pgdata.parents:  # let nobody reach its data directory
            parent.chmod(parent.stat().st_mode | 0o011)
        prefix = ["runuser", "-u", "nobody", "--"]
    subprocess.run(
        [
            *prefix,
            str(bin_dir / "initdb"),
            "-D",
            str(pgdata),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    options = f"-c listen_addresses='' -k {pgdata} -c fsync=off"
    subprocess.run(
        [
            *prefix,
            str(bin_dir / "pg_ctl"),
            "-D",
            str(pgdata),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "-l",
            str(pgdata / "log"),
            "start",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )

    def stop() -> None:
        subprocess.run(
            [*prefix, str(bin_dir / "pg_ctl"), "-D", str(pgdata), "-m", "fast", "-w", "stop"],
            check=False,
            capture_output=True,
            timeout=60,
        )

    return ThrowawayPostgres(pgdata, str(bin_dir / "pg_ctl"), stop)


def _group_exists(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True
