"""Floods against ``durak-bot web``, measured (issue 29, item 2): run by hand, not by pytest.

    python -m tests.faults.web_abuse refused|pings|rooms|idle|nested [--server-path DIR]

Each scenario starts ``durak-bot web`` in a process of its own on 127.0.0.1 (a throwaway
SQLite file), sends only to loopback addresses (127.0.0.0/8: several client addresses are
127.0.0.x), is bounded in count and time, prints its figures and stops the server.
``--server-path`` runs the server from another checkout (``/work/main``: the figures before a
fix) while this script stays the client.

- ``refused``: sockets refused for a bad token, as fast as possible for 5 s; the server's
  memory before, right after, and 3 s after.
- ``pings``: 20 sockets of one address send WebSocket protocol pings as fast as they can; a
  bystander of another address times its round-trips (a ``ping`` frame answered by ``pong``).
- ``rooms``: 20 addresses create rooms as fast as they can; when the open-room cap is full,
  and whether a 21st address still gets a room.
- ``idle``: 1,100 plain TCP connections that send nothing, then ``GET /healthz``.
- ``nested``: frames and POST bodies of deeply nested JSON for 2 s; lines and bytes of log,
  the socket's close code, the POST's status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp

ORIGIN_HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Server:
    """``durak-bot web`` in a child process."""

    def __init__(self, server_path: str | None, env: dict[str, str] | None = None) -> None:
        self.port = _free_port()
        self.dir = tempfile.mkdtemp(prefix="durak-abuse-")
        self.log = Path(self.dir, "server.log")
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{self.dir}/durak.sqlite3",
            "LOG_LEVEL": "INFO",
            "WEB_SECRET": "x" * 32,
            **(env or {}),
        }
        if server_path:
            self.env["PYTHONPATH"] = server_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> Server:
        cwd = self.env.get("PYTHONPATH") or None
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "apps", "web", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("wb"),
            # systemd's default soft limit of open files, as a service without LimitNOFILE has
            preexec_fn=lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
            ),
        )
        deadline = time.monotonic() + 30
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                with contextlib.suppress(aiohttp.ClientError, OSError):
                    async with http.get(self.url + "/healthz") as r:
                        if r.status == 200:
                            return self
                await asyncio.sleep(0.2)
        raise RuntimeError("the server did not start: " + self.log.read_text()[-2000:])

    async def __aexit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def rss(self) -> int:
        assert self.proc is not None
        return _rss_kib(self.proc.pid)


@contextlib.asynccontextmanager
async def session_from(address: str) -> AsyncIterator[aiohttp.ClientSession]:
    """A client session whose connections come from ``address`` (a loopback address)."""
    conn = aiohttp.TCPConnector(local_addr=(address, 0), limit=0, force_close=False)
    async with aiohttp.ClientSession(connector=conn) as http:
        yield http


async def create_room(http: aiohttp.ClientSession, server: Server, name: str) -> tuple[int, dict]:
    async with http.post(
        server.url + "/api/rooms",
        json={"name": name, "lang": "en", "options": {}},
        headers={"Origin": server.url},
    ) as r:
        return r.status, await r.json(content_type=None)


# -- scenarios ---------------------------------------------------------------------
async def refused(server: Server) -> None:
    await asyncio.sleep(1.0)
    before = server.rss()
    count = 0
    end = time.monotonic() + 5.0

    async def one(http: aiohttp.ClientSession) -> None:
        nonlocal count
        while time.monotonic() < end:
            try:
                async with http.ws_connect(
                    server.url.replace("http", "ws") + "/ws/room",
                    headers={"Origin": server.url},
                ) as ws:
                    await ws.send_str(json.dumps({"t": "hello", "token": "bad"}))
                    async for _ in ws:
                        pass
            except aiohttp.ClientError:
                pass
            count += 1

    # 16 addresses, so the sockets-per-address limit is not what refuses them
    async with contextlib.AsyncExitStack() as stack:
        sessions = [
            await stack.enter_async_context(session_from(f"127.0.1.{i}")) for i in range(1, 17)
        ]
        await asyncio.gather(*(one(h) for h in sessions for _ in range(2)))
    right_after = server.rss()
    await asyncio.sleep(3.0)
    later = server.rss()
    print(
        f"refused sockets in 5 s: {count}; server RSS {before / 1024:.1f} MB before, "
        f"{right_after / 1024:.1f} MB right after, {later / 1024:.1f} MB 3 s later"
    )
    # a second round: what the first one holds still is added to, what it freed is reused
    count, end = 0, time.monotonic() + 5.0
    async with contextlib.AsyncExitStack() as stack:
        sessions = [
            await stack.enter_async_context(session_from(f"127.0.1.{i}")) for i in range(1, 17)
        ]
        await asyncio.gather(*(one(h) for h in sessions for _ in range(2)))
    print(f"a second round of {count} refused sockets: server RSS {server.rss() / 1024:.1f} MB")


async def pings(server: Server) -> None:
    async with session_from("127.0.0.1") as host_http:
        status, room = await create_room(host_http, server, "Host")
        assert status == 201, room
    stop = asyncio.Event()
    sent = 0

    async def pinger(http: aiohttp.ClientSession) -> None:
        nonlocal sent
        with contextlib.suppress(aiohttp.ClientError, ConnectionError, RuntimeError):
            async with http.ws_connect(
                server.url.replace("http", "ws") + "/ws/room", headers={"Origin": server.url}
            ) as ws:
                await ws.send_str(json.dumps({"t": "hello", "token": room["token"]}))
                while not stop.is_set() and not ws.closed:
                    for _ in range(50):
                        await ws.ping(b"x" * 100)
                        sent += 1
                    await asyncio.sleep(0)

    async def bystander(http: aiohttp.ClientSession, seconds: float) -> list[float]:
        times: list[float] = []
        async with http.ws_connect(
            server.url.replace("http", "ws") + "/ws/room", headers={"Origin": server.url}
        ) as ws:
            await ws.send_str(json.dumps({"t": "hello", "token": room["token"]}))
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                t0 = time.perf_counter()
                await ws.send_str(json.dumps({"t": "ping"}))
                async for msg in ws:
                    if json.loads(msg.data).get("t") == "pong":
                        break
                times.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(0.25)
        return times

    async with session_from("127.0.2.1") as by_http:
        quiet = await bystander(by_http, 2.0)
        async with session_from("127.0.0.1") as flood_http:
            tasks = [asyncio.create_task(pinger(flood_http)) for _ in range(20)]
            await asyncio.sleep(0.5)
            loud = await bystander(by_http, 4.0)
            stop.set()
            await asyncio.gather(*tasks)
    med = sorted(loud)[len(loud) // 2]
    print(
        f"bystander round-trip: median {sorted(quiet)[len(quiet) // 2]:.1f} ms quiet, "
        f"{med:.1f} ms (max {max(loud):.1f} ms) under 20 pinging sockets "
        f"({sent} pings sent in ~4.5 s)"
    )


async def rooms(server: Server) -> None:
    t0 = time.monotonic()
    full_at: float | None = None
    made = 0

    async def creator(address: str) -> None:
        nonlocal full_at, made
        async with session_from(address) as http:
            for i in range(100):
                status, _ = await create_room(http, server, f"P{i}")
                if status == 201:
                    made += 1
                elif status == 503 and full_at is None:
                    full_at = time.monotonic() - t0
                if status != 201:
                    return

    await asyncio.gather(*(creator(f"127.0.3.{i}") for i in range(1, 21)))
    async with session_from("127.0.4.1") as http:
        status, body = await create_room(http, server, "Newcomer")
    when = f"full after {full_at:.2f} s" if full_at is not None else "never full"
    print(
        f"20 addresses opened {made} rooms ({when}); a newcomer's room: {status} "
        f"{body.get('error', '')}"
    )


async def idle(server: Server) -> None:
    socks = []
    for i in range(1100):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((f"127.0.5.{1 + i // 200}", 0))
            s.connect_ex(("127.0.0.1", server.port))
            if i % 100 == 99:
                await asyncio.sleep(0.2)
        except OSError:
            s.close()
            continue
        socks.append(s)
    await asyncio.sleep(5.0)
    assert server.proc is not None
    fds = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
    t0 = time.monotonic()
    try:
        async with (
            session_from("127.0.6.1") as http,
            http.get(server.url + "/healthz", timeout=aiohttp.ClientTimeout(total=10)) as r,
        ):
            result = f"{r.status} in {(time.monotonic() - t0) * 1000:.0f} ms"
    except (TimeoutError, aiohttp.ClientError) as exc:
        result = f"failed after {time.monotonic() - t0:.1f} s ({type(exc).__name__})"

    def still_open() -> int:
        count = 0
        for s in socks:
            try:
                count += s.recv(1, socket.MSG_PEEK) != b""
            except BlockingIOError:
                count += 1
            except OSError:
                pass
        return count

    await asyncio.sleep(0.5)
    open_then = still_open()
    await asyncio.sleep(16.0)  # past the server's idle timeout (15 s by default)
    open_later = still_open()
    for s in socks:
        s.close()
    print(
        f"1,100 idle connections: the server held {fds} files; /healthz answered {result}; "
        f"{open_then} still open then, {open_later} some 17 s later"
    )


async def nested(server: Server) -> None:
    async with session_from("127.0.0.1") as http:
        _status, room = await create_room(http, server, "Host")
    size0 = server.log.stat().st_size
    deep = "[" * 50_000 + "]" * 50_000
    codes: list[int | None] = []
    refusals: list[bool] = []
    posts = []
    end = time.monotonic() + 2.0
    async with session_from("127.0.0.1") as http:
        while time.monotonic() < end:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.ws_connect(
                    server.url.replace("http", "ws") + "/ws/room",
                    headers={"Origin": server.url},
                    max_msg_size=0,
                ) as ws:
                    await ws.send_str(json.dumps({"t": "hello", "token": room["token"]}))
                    await ws.send_str('{"t":"add_ai","seq":1,"level":' + "[" * 1500 + "]" * 1500)
                    async for msg in ws:  # a refusal, or the close
                        if json.loads(msg.data).get("t") == "result":
                            refusals.append(json.loads(msg.data)["ok"] is False)
                            break
                    await ws.close()
                    codes.append(ws.close_code)
            async with http.post(
                server.url + "/api/rooms/join",
                data='{"room":' + "[" * 20_000 + "]" * 20_000 + "}",
                headers={"Origin": server.url, "Content-Type": "application/json"},
            ) as r:
                posts.append(r.status)
            async with http.post(
                server.url + "/api/rooms/join",
                data=deep[:16_000],
                headers={"Origin": server.url, "Content-Type": "application/json"},
            ) as r:
                posts.append(r.status)
    grown = server.log.read_text()[size0:]
    lines = [line for line in grown.splitlines() if "web.access" not in line and line.strip()]
    print(
        f"nested JSON for 2 s: {len(codes)} sockets, {sum(refusals)} frames refused with a "
        f"result (socket kept open), close codes {sorted(set(codes), key=str)}, "
        f"{len(posts)} POSTs answered {sorted(set(posts))}; besides the access log, the log "
        f"grew by {sum(len(line) + 1 for line in lines)} bytes in {len(lines)} lines"
    )


SCENARIOS = {"refused": refused, "pings": pings, "rooms": rooms, "idle": idle, "nested": nested}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--server-path", default=None)
    args = parser.parse_args()
    async with Server(args.server_path) as server:
        await SCENARIOS[args.scenario](server)


if __name__ == "__main__":
    asyncio.run(main())
