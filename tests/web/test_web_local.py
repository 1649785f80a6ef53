"""``durak-bot play --web``: the game in the browser, without Discord (a smoke test of the
real command: start, fetch the page and health, open the socket, stop with Ctrl-C)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

ROOT = Path(__file__).parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_play_web_serves_a_game_until_ctrl_c(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "apps",
            "play",
            "--web",
            "--no-browser",
            "--players",
            "3",
            "--port",
            str(port),
            "--ai-delay",
            "0",
            "--seed",
            "5",
        ],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 30
        url = None
        while time.monotonic() < deadline and url is None:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+/table#t=\S+)", line)
            url = m[1] if m else None
        assert url is not None, "".join(lines) + (proc.stderr.read() if proc.stderr else "")
        assert url.startswith(f"http://127.0.0.1:{port}/table#t=")
        token = url.split("#t=", 1)[1]
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert r.status == 200 and await r.text() == "ok"
            async with http.get(f"http://127.0.0.1:{port}/table") as r:
                assert r.status == 200 and "html" in r.headers["Content-Type"]
                assert "Content-Security-Policy" in r.headers
            async with http.ws_connect(
                f"http://127.0.0.1:{port}/ws", headers={"Origin": f"http://localhost:{port}"}
            ) as ws:
                await ws.send_str(json.dumps({"t": "hello", "token": token, "lang": "fr"}))
                welcome = json.loads((await ws.receive(timeout=10)).data)
                assert (welcome["role"], welcome["seat"], welcome["lang"]) == ("player", 0, "fr")
                table = json.loads((await ws.receive(timeout=10)).data)["table"]
                assert [s["ai_level"] for s in table["seats"]] == [None, "beginner", "beginner"]
                assert table["seats"][0]["name"] == "Player"
                hand = json.loads((await ws.receive(timeout=10)).data)["hand"]
                assert len(hand["cards"]) == 6
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 130, err
        assert "Interrupted: game stopped." in out
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--port", "0"], "port number"), (["--no-browser"], "go with --web")],
)
def test_play_web_options_are_checked(args: list[str], message: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "apps", "play", *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and message in done.stderr


async def test_a_taken_port_is_said_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "apps", "play", "--web", "--no-browser", "--port", str(port)],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert f"port {port} is taken" in done.stdout + done.stderr
