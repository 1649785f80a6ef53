"""A round-robin HTTP and WebSocket reverse proxy, for tests and benchmarks of several web
processes behind one address: ``python -m apps.balancer --port 8080 http://127.0.0.1:8081
http://127.0.0.1:8082``.

Each request, and each WebSocket, goes to the next backend in turn: no sticky sessions, as a
production balancer is set up for durak-bot (docs/SCALING.md has the nginx example).  A backend
that refuses the connection (a process killed, not restarted yet) is skipped and the next one
tried, as nginx's ``proxy_next_upstream error`` does; a WebSocket whose backend dies is closed
with 1012 (service restart), so the page reconnects, through the balancer, to another.  The
client's address goes on in ``X-Forwarded-For``.  Not for production: no TLS, no timeouts
beyond aiohttp's, no limits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence

import aiohttp
from aiohttp import web

__all__ = ["Balancer", "main"]

#: Headers that belong to one hop, never forwarded (RFC 9110 §7.6.1), and the ones rebuilt.
_HOP = frozenset(
    h.lower()
    for h in (
        "Connection",
        "Keep-Alive",
        "Proxy-Authenticate",
        "Proxy-Authorization",
        "TE",
        "Trailer",
        "Transfer-Encoding",
        "Upgrade",
        "Host",
        "Content-Length",
        "Sec-WebSocket-Key",
        "Sec-WebSocket-Version",
        "Sec-WebSocket-Extensions",
        "Sec-WebSocket-Accept",
        "Content-Encoding",
    )
)
#: The close code a page sees when its process went away: it connects again.
CLOSE_RESTART = 1012


class Balancer:
    """Round-robin over ``backends`` (base URLs), listening on ``host:port`` (0: any free
    port, :attr:`port` once started)."""

    def __init__(self, backends: Sequence[str], host: str = "127.0.0.1", port: int = 0) -> None:
        if not backends:
            raise ValueError("a balancer needs one backend or more")
        self.backends = [b.rstrip("/") for b in backends]
        self.host = host
        self.port = port
        self._turn = 0
        self._http: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        #: Requests and sockets sent to each backend (by index).
        self.sent = [0] * len(self.backends)

    def _order(self) -> list[int]:
        """The backends to try for the next request: the next in turn, then the others."""
        n = len(self.backends)
        first = self._turn % n
        self._turn += 1
        return [(first + i) % n for i in range(n)]

    async def start(self) -> None:
        self._http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), auto_decompress=False
        )
        app = web.Application(client_max_size=1024**2)
        app.router.add_route("*", "/{path:.*}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._http is not None:
            await self._http.close()
            self._http = None

    def _headers(self, request: web.Request) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        peer = request.remote or ""
        before = request.headers.get("X-Forwarded-For")
        headers["X-Forwarded-For"] = f"{before}, {peer}" if before else peer
        return headers

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._socket(request)
        assert self._http is not None
        body = await request.read()
        last: Exception | None = None
        for i in self._order():
            try:
                async with self._http.request(
                    request.method,
                    self.backends[i] + request.path_qs,
                    headers=self._headers(request),
                    data=body,
                    allow_redirects=False,
                ) as answer:
                    self.sent[i] += 1
                    payload = await answer.read()
                    headers = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
                    if "Content-Encoding" in answer.headers:
                        headers["Content-Encoding"] = answer.headers["Content-Encoding"]
                    return web.Response(status=answer.status, headers=headers, body=payload)
            except aiohttp.ClientConnectorError as exc:  # refused: the next backend
                last = exc
        raise web.HTTPBadGateway(text=f"no backend answered: {last}")

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        assert self._http is not None
        upstream: aiohttp.ClientWebSocketResponse | None = None
        for i in self._order():
            url = self.backends[i].replace("http", "ws", 1) + request.path_qs
            try:
                upstream = await self._http.ws_connect(
                    url, headers=self._headers(request), max_msg_size=0, autoping=True
                )
            except aiohttp.ClientConnectorError:
                continue
            except aiohttp.WSServerHandshakeError as exc:
                raise web.HTTPException(text=exc.message) from None
            self.sent[i] += 1
            break
        if upstream is None:
            raise web.HTTPBadGateway(text="no backend answered")
        client = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await client.prepare(request)
        self._sockets.add(client)
        try:
            await _pipe(client, upstream)
        finally:
            self._sockets.discard(client)
        return client


_Socket = web.WebSocketResponse | aiohttp.ClientWebSocketResponse


async def _copy(source: _Socket, target: _Socket) -> None:
    """Send every text and binary frame of ``source`` on to ``target`` until ``source`` ends."""
    async for msg in source:
        if msg.type is aiohttp.WSMsgType.TEXT:
            await target.send_str(msg.data)
        elif msg.type is aiohttp.WSMsgType.BINARY:
            await target.send_bytes(msg.data)
        else:
            break


async def _pipe(client: web.WebSocketResponse, upstream: aiohttp.ClientWebSocketResponse) -> None:
    """Copy frames both ways until either side closes; the other is closed with its code."""

    async def down() -> None:
        await _copy(upstream, client)
        code = upstream.close_code
        # a backend that vanished without a close frame: "service restart", connect again
        await client.close(code=CLOSE_RESTART if code in (None, 1006) else code)

    async def up() -> None:
        await _copy(client, upstream)
        await upstream.close(code=client.close_code or 1000)

    tasks = [asyncio.ensure_future(down()), asyncio.ensure_future(up())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not client.closed:
            await client.close(code=CLOSE_RESTART)
        if not upstream.closed:
            await upstream.close()


async def _serve(args: argparse.Namespace) -> None:
    balancer = Balancer(args.backends, args.host, args.port)
    await balancer.start()
    print(f"balancing http://{args.host}:{balancer.port}/ over {len(args.backends)}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await balancer.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m apps.balancer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("backends", nargs="+", help="base URLs of the web processes")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
