"""The ``durak-bot`` command line, run as a user runs it (a subprocess): ``--help``,
``--version``, the options of ``durak-bot play`` and their one-line refusals, a database in
use, and an output closed early (``durak-bot play | head``)."""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import apps.cli as cli
from bot.storage import sqlite_url, storage_problem
from rules_engine.ai import DEFAULT_AI_LEVEL, OFFERED_LEVELS

ROOT = Path(__file__).resolve().parents[2]
#: Holds a SQLite file as a running bot does, until its stdin closes.
HOLD_DB = (
    "import asyncio, sys\n"
    "from bot.storage import SqliteStorage\n"
    "async def hold():\n"
    "    s = SqliteStorage(sys.argv[1])\n"
    "    await s.open()\n"
    "    print('held', flush=True)\n"
    "    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)\n"
    "    await s.close()\n"
    "asyncio.run(hold())\n"
)


@contextlib.contextmanager
def held(db: Path, cwd: Path) -> Iterator[None]:
    """While the block runs, another process holds ``db`` open, as a running bot does."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_DB, str(db)],
        cwd=cwd,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.communicate("", timeout=30)  # its stdin closes: it lets go and ends


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "AI_DELAY")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def durak_bot(
    tmp_path: Path, *args: str, stdin: str = "", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "apps", *args],
        cwd=tmp_path,
        env=_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_help_says_that_durak_bot_alone_starts_the_discord_bot(tmp_path: Path) -> None:
    done = durak_bot(tmp_path, "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "`durak-bot` alone starts the Discord bot" in text
    assert "play" in text


def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    done = durak_bot(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"durak-bot {importlib.metadata.version('durak-bot')}"


def test_play_help_lists_the_levels_and_the_defaults(tmp_path: Path) -> None:
    done = durak_bot(tmp_path, "play", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert ", ".join(OFFERED_LEVELS) in text
    assert f"(default: {DEFAULT_AI_LEVEL})" in text
    assert "(default: podkidnoy)" in text and "(default: 2)" in text
    assert "at most 1" in text


def test_backup_help_says_what_the_command_does(tmp_path: Path) -> None:
    done = durak_bot(tmp_path, "backup", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "usage: durak-bot backup [-h] FILE" in text
    assert "Copy the bot's SQLite database" in text
    assert "its directory is created if missing" in text and "pg_dump" in text


@pytest.mark.parametrize("value", ["-1", "inf", "nan", "-inf", "soon"])
def test_a_bad_ai_delay_is_one_argparse_line(tmp_path: Path, value: str) -> None:
    done = durak_bot(tmp_path, "play", f"--ai-delay={value}", timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    errors = [line for line in done.stderr.splitlines() if line.startswith("durak-bot")]
    assert len(errors) == 1 and "argument --ai-delay" in errors[0], done.stderr
    assert "Traceback" not in done.stderr


def test_the_ai_delay_is_capped_at_one_second(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []

    async def fake_play(*_args: object, ai_delay: float, **_kwargs: object) -> int:
        seen.append(ai_delay)
        return 0

    monkeypatch.setattr("terminal.session.play", fake_play)
    for value in ("30", "1e300", "0.25", "0"):
        assert cli.main(["play", "--ai-delay", value]) == 0
    assert seen == [1.0, 1.0, 0.25, 0.0]


def test_a_database_in_use_is_one_line_as_the_bot_says(tmp_path: Path) -> None:
    db = tmp_path / "held.sqlite3"
    with held(db, tmp_path):
        expected = storage_problem(sqlite_url(str(db)))  # what `durak-bot` prints at start
        done = durak_bot(tmp_path, "play", "--db", str(db), "--ai-delay", "0", stdin="q\n")
    assert expected is not None
    assert done.returncode == 2
    assert done.stderr.splitlines() == [expected]


def test_a_closed_output_ends_the_game_quietly(tmp_path: Path) -> None:
    """``durak-bot play | head -n 3``: the game stops at its first write after its output is
    closed (here: the table, asked for with ``t``), and says nothing on stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "apps", "play", "--seed", "1", "--ai-delay", "0"],
        cwd=tmp_path,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        first = proc.stdout.readline()  # the game has started
        proc.stdout.close()  # as `head` does once it has its lines
        assert proc.stdin is not None
        proc.stdin.write(b"t\n")  # stdin stays open: only the closed output may end the game
        proc.stdin.flush()
        with contextlib.suppress(subprocess.TimeoutExpired):  # then: the game went on
            proc.wait(timeout=30)
        code = proc.poll()
        err = proc.stderr.read() if code is not None else b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdin is not None
        proc.stdin.close()
    assert first.startswith(b"Durak (podkidnoy)")
    assert code == cli.EXIT_OUTPUT_CLOSED, "the game went on with its output closed"
    assert err == b""
