"""``durak-bot web``: the game service and the web server without a Discord token; on
SQLite, one process only (a second one on the same file says so and stops)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "PUBLIC_URL")}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'rooms.sqlite3'}",
        PUBLIC_URL="https://rooms.example",
        AI_WORKERS="1",
    )
    return env


def _web(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "apps", "web", "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_durak_bot_web_serves_the_home_page_without_discord(tmp_path: Path) -> None:
    port = _free_port()
    proc = _web(tmp_path, port)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Durak rooms at https://rooms.example/"), line
        # the line is written once the server listens: it answers at once
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
            body = resp.read().decode()
        assert "/static/home.js" in body
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_second_durak_bot_web_on_the_same_sqlite_file_says_so(tmp_path: Path) -> None:
    first = _web(tmp_path, _free_port())
    try:
        assert first.stdout is not None
        assert first.stdout.readline().startswith("Durak rooms at ")  # it holds the file
        second = _web(tmp_path, _free_port())
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2
        assert out == ""
        (line,) = err.splitlines()
        assert f"database {tmp_path / 'rooms.sqlite3'} is in use by another durak-bot" in line
        assert f"(pid {first.pid})" in line
        assert "SQLite serves one process" in line and "PostgreSQL" in line
        assert first.poll() is None  # the first one serves on
    finally:
        first.terminate()
        first.wait(timeout=20)
