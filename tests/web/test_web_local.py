"""``durak-bot play --web``: the game in the browser, without Discord (a smoke test of the
real command: start, fetch the page and health, open the socket, stop with Ctrl-C), and who
may ask it for a new game (``/api/new-game``: the local player's page only)."""

from __future__ import annotations

import asyncio
import contextlib
import io
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

from apps.play_web import NEW_GAME_PATH, play_web

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


async def _post(base: str, body: object, origin: str | None) -> tuple[int, dict[str, object]]:
    headers = {} if origin is None else {"Origin": origin}
    async with (
        aiohttp.ClientSession() as http,
        http.post(base + NEW_GAME_PATH, json=body, headers=headers) as answer,
    ):
        return answer.status, await answer.json()


async def _hello(base: str, token: str) -> tuple[dict[str, object], dict[str, object]]:
    """The welcome and the table a page gets with ``token``."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(base.replace("http", "ws") + "/ws", origin=base) as ws,
    ):
        await ws.send_json({"t": "hello", "token": token, "lang": "en"})
        welcome = await ws.receive_json(timeout=10)
        table = await ws.receive_json(timeout=10)
        return welcome, table["table"]


async def test_only_the_local_players_page_may_ask_for_a_new_game(tmp_path: Path) -> None:
    out = io.StringIO()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    task = asyncio.create_task(
        play_web(out=out, port=port, db_path=str(tmp_path / "p.sqlite3"), open_browser=False)
    )
    try:
        for _ in range(300):
            if "Open " in out.getvalue():
                break
            await asyncio.sleep(0.05)
        token = out.getvalue().split("#t=", 1)[1].split()[0]
        async with aiohttp.ClientSession() as http, http.get(base + NEW_GAME_PATH) as answer:
            assert (answer.status, await answer.json()) == (200, {"new_game": True})
        status, refused = await _post(base, {"token": "forged.token"}, base)
        assert status == 403 and refused["error"]
        status, refused = await _post(base, {"token": token}, "https://elsewhere.example")
        assert status == 403 and refused["error"]
        for body in ([], {"token": 5}, "text"):
            status, refused = await _post(base, body, base)
            assert status == 400 and refused["error"], body
        # French words for a French page
        status, refused = await _post(base, {"token": "forged.token", "lang": "fr"}, base)
        assert "lien" in str(refused["error"])
        # while a game runs, nothing is dealt: the running series' token comes back
        _, before = await _hello(base, token)
        status, answer = await _post(base, {"token": token}, base)
        assert status == 200
        welcome, after = await _hello(base, str(answer["token"]))
        assert (welcome["role"], welcome["seat"]) == ("player", 0)
        assert after["game"] == before["game"]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
