"""``durak-bot web``: the game service and the web server without a Discord token."""

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


def test_durak_bot_web_serves_the_home_page_without_discord(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "PUBLIC_URL")}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'rooms.sqlite3'}",
        PUBLIC_URL="https://rooms.example",
        AI_WORKERS="1",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "apps", "web", "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
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
