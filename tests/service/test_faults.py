"""Faults found by issue 11's fault tests of the one-process build, each fixed.

These tests use only what the old build had too (``SqliteStorage(path)``, the service, raw
SQLite), so they can be run against it to see them fail."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.errors import StorageFailure
from bot.service import GameService
from bot.storage import SqliteStorage
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CAROL, CH, GUILD, open_table, play_out, settle
from .test_restart import crash, play_some

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


# ------------------------------------------------------------------ two processes, one file
@pytest.fixture
def held_by_another_process(db_path: Path) -> Iterator[subprocess.Popen[str]]:
    """A second Python process that opens ``db_path`` with the bot's storage and keeps it."""
    script = (
        "import asyncio, sys\n"
        "from bot.storage import SqliteStorage\n"
        "async def main():\n"
        f"    st = SqliteStorage({str(db_path)!r})\n"
        "    await st.open()\n"
        "    print('ready', flush=True)\n"
        "    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)\n"
        "    await st.close()\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    yield proc
    proc.communicate("", timeout=30)


async def test_a_second_process_on_the_sqlite_file_is_refused(
    db_path: Path, held_by_another_process: subprocess.Popen[str]
) -> None:
    second = SqliteStorage(db_path)
    with pytest.raises(Exception, match="in use by another durak-bot process") as info:
        await second.open()
    message = str(info.value)
    assert str(db_path) in message and f"pid {held_by_another_process.pid}" in message
    assert "\n" not in message
    held_by_another_process.communicate("", timeout=30)  # the other process stops
    await second.open()  # then the file is free
    await second.close()


def _start_bot(db_path: Path, cwd: Path) -> tuple[int, str]:
    """Start the real bot on ``db_path`` (a well-formed token, no network needed: the database
    is checked first); its exit code and its one line of stderr (asserted to be one)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEV_GUILD_ID", "DATABASE_URL")}
    env.update(
        DATABASE_PATH=str(db_path),
        PYTHONPATH=str(ROOT),
        DISCORD_TOKEN="AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCCCC",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "apps"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return proc.returncode, lines[0]


def test_bot_start_on_a_held_file_is_one_clear_line(
    tmp_path: Path, db_path: Path, held_by_another_process: subprocess.Popen[str]
) -> None:
    code, line = _start_bot(db_path, tmp_path)
    assert code == 2
    assert "in use by another durak-bot process" in line and str(db_path) in line


def test_bot_start_on_an_unusable_database_path_is_one_clear_line(tmp_path: Path) -> None:
    """Checked before connecting to Discord: one line naming the path and why, exit code 2
    (root may write anywhere, but nobody can make a directory under a plain file)."""
    (tmp_path / "file").write_text("not a directory")
    path = tmp_path / "file" / "sub" / "durak.sqlite3"
    code, line = _start_bot(path, tmp_path)
    assert code == 2
    assert str(path) in line and "cannot create its directory" in line


# ------------------------------------------------------------------ orphan live rows
async def test_an_orphan_live_row_no_longer_blocks_its_channel(make_service, db_path) -> None:
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 2)
    await a.close()
    async with stored.opened(db_path) as storage:  # as two processes left it: the series
        (live,) = await stored.live_games(storage)  # ended, its live row not
        await storage.end_series(live.series_id, 0.0)

    b = await make_service()
    assert b.state(CH) == "none"
    table = await open_table(b, ALICE, BOB)  # /durak new + start in that channel works again
    assert table.version == 0
    assert [r for r, _ in await stored.results(b.storage, GUILD)] == ["aborted", "live"]


# ------------------------------------------------------------------ restart on a clock set back
async def _stored_deadline(svc: GameService) -> float | None:
    (live,) = await stored.live_games(svc.storage)
    deadline: float | None = live.meta["deadline"]
    return deadline


async def test_a_clock_set_back_does_not_stretch_the_turn(make_service, clock, db_path) -> None:
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 3)
    await crash(a)

    back = ManualClock(clock.now() - 3600)  # the machine restarts with its clock an hour back
    b = await make_service(clock=back)
    table = await b.table(CH)
    assert table.deadline is not None and table.deadline <= back.now() + 60  # one turn at most
    assert await _stored_deadline(b) == table.deadline  # and stored back
    await crash(b)
    c = await make_service(clock=back)  # a crash loop on that clock does not renew it
    assert (await c.table(CH)).deadline == table.deadline
    await back.advance(60)
    await settle(c)
    after = await c.table(CH)
    assert after.version == 4 and after.recent[-1].auto == "timeout"


async def test_a_crash_loop_after_a_graceful_stop_still_times_out(
    make_service, clock, db_path
) -> None:
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 3)
    await clock.advance(20)
    await a.close()  # stores the 40 s left

    b = await make_service()
    assert (await b.table(CH)).deadline == clock.now() + 40
    await clock.advance(30)
    await crash(b)
    c = await make_service()  # 10 s are left, not the 40 s stored at the graceful stop
    assert (await c.table(CH)).deadline == clock.now() + 10
    await crash(c)
    await clock.advance(10)
    d = await make_service()
    assert (await d.table(CH)).deadline == clock.now() + 10  # the restore grace, once
    await clock.advance(10)
    await settle(d)
    assert (await d.table(CH)).recent[-1].auto == "timeout"


# ------------------------------------------------------------------ a read-only database
def _as_unprivileged(action: Callable[[], str]) -> str:
    """``action()`` in a forked child that runs as ``nobody`` when we are root (root may write
    anything), or directly otherwise.  Returns its result text (or the exception raised)."""
    if os.geteuid() != 0:
        try:
            return action()
        except Exception as exc:  # the text is what the test looks at
            return f"{type(exc).__name__}: {exc}"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            text = action()
        except BaseException as exc:  # report everything to the parent
            text = f"{type(exc).__name__}: {exc}"
        os.write(write, text.encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()


def _open_once(path: Path) -> str:
    async def go() -> str:
        st = SqliteStorage(path)
        await st.open()
        await st.close()
        return "opened"

    return asyncio.run(go())


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory that ``nobody`` can reach (pytest's own tmp_path is private to root)."""
    with tempfile.TemporaryDirectory(prefix="durak-faults-") as name:
        path = Path(name)
        path.chmod(0o777)
        yield path


def test_a_read_only_database_is_refused_at_open(shared_dir: Path) -> None:
    path = shared_dir / "durak.sqlite3"
    assert _open_once(path) == "opened"  # made by its owner
    path.chmod(0o444)
    text = _as_unprivileged(lambda: _open_once(path))
    assert text != "opened"
    assert "read-only" in text and str(path) in text and "\n" not in text


def test_an_unwritable_directory_is_refused_at_open(shared_dir: Path) -> None:
    locked = shared_dir / "locked"
    locked.mkdir(mode=0o755)
    path = locked / "durak.sqlite3"
    text = _as_unprivileged(lambda: _open_once(path))
    assert text != "opened"
    assert str(path) in text and "not writable" in text and "\n" not in text


async def test_a_directory_that_cannot_be_made_is_refused_at_open(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    path = tmp_path / "file" / "sub" / "durak.sqlite3"
    with pytest.raises(Exception, match="cannot create its directory") as info:
        await SqliteStorage(path).open()
    assert str(path) in str(info.value)


# ------------------------------------------------------------------ /durak new after a series
def _lobby_writes_fail(path: Path) -> None:
    """From now on the database refuses every new lobby row (as a disk error would)."""
    con = sqlite3.connect(path)
    try:
        with con:
            con.execute(
                "CREATE TRIGGER lobby_write_fails BEFORE INSERT ON lobbies "
                "BEGIN SELECT RAISE(ABORT, 'injected: the lobby cannot be written'); END"
            )
    finally:
        con.close()


async def test_a_new_lobby_that_cannot_be_stored_leaves_the_finished_series(
    make_service, db_path
) -> None:
    """``/durak new`` in a channel whose series is finished ends the series and stores the
    lobby in one transaction: when the lobby's write fails, "nothing was changed" is true."""
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    finished = await play_out(svc)
    assert svc.state(CH) == "finished"
    _lobby_writes_fail(db_path)

    with pytest.raises(StorageFailure) as info:
        await svc.open_lobby(CH, GUILD, CAROL, "Carol")
    assert "nothing was changed" in info.value.message.key
    assert svc.state(CH) == "finished"  # in memory: the series still waits for a rematch
    assert (await svc.series(CH)).active
    assert (await stored.series(svc.storage, finished.series_id)).active  # and stored
    await svc.close()

    restarted = await make_service()  # a restart finds the series too, and its rematch works
    assert restarted.state(CH) == "finished"
    assert (await restarted.rematch(CH, ALICE)).series_id == finished.series_id
