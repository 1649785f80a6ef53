"""A TCP proxy between the bot and a PostgreSQL server that can be frozen: a database that is
up but does not answer (a stopped server, a hung disk, a network that drops packets).

While frozen the proxy forwards nothing, in either direction: what a client sends waits (in
the proxy or the kernel's buffers), as it would on a stopped server, and is delivered, in
order, when the proxy thaws (a write the client gave up on may still commit then, exactly as
on a real server).  Connections opened while frozen are accepted by the kernel and wait too.
:meth:`FrozenProxy.cut` ends it the other way: every connection is closed and what waited is
lost, as when a network that dropped every packet resets the connections.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

__all__ = ["FrozenProxy"]


class FrozenProxy:
    """``await FrozenProxy.start(socket_path)``: listens on 127.0.0.1 (:attr:`port`) and
    forwards each connection to the server's Unix socket ``socket_path``."""

    def __init__(self, target: Path) -> None:
        self._target = target
        self._open = asyncio.Event()
        self._open.set()
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        #: Chunks read from a client while frozen (they wait for the thaw): a request has
        #: reached the "server" and waits for its answer.
        self.held = 0

    @classmethod
    async def start(cls, target: Path) -> FrozenProxy:
        proxy = cls(target)
        proxy._server = await asyncio.start_server(proxy._accept, "127.0.0.1", 0)
        proxy.port = proxy._server.sockets[0].getsockname()[1]
        return proxy

    def url(self, database: str) -> str:
        """A ``postgresql://`` URL of ``database`` through this proxy."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}?sslmode=disable"

    @property
    def frozen(self) -> bool:
        return not self._open.is_set()

    def freeze(self) -> None:
        """Stop forwarding bytes (both directions, every connection, new ones too)."""
        self._open.clear()

    def thaw(self) -> None:
        """Forward again, first what waited."""
        self._open.set()

    async def cut(self) -> None:
        """Close every connection, losing what waited, then forward new ones again."""
        for task in list(self._pumps):
            task.cancel()
        for task in list(self._pumps):
            with contextlib.suppress(BaseException):
                await task
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()
        self.thaw()

    async def close(self) -> None:
        self.thaw()
        if self._server is not None:
            self._server.close()
        for task in list(self._pumps):
            task.cancel()
        for task in list(self._pumps):
            with contextlib.suppress(BaseException):
                await task

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        await self._open.wait()
        try:
            server_r, server_w = await asyncio.open_unix_connection(str(self._target))
        except OSError:
            client_w.close()
            return
        self._writers.update((client_w, server_w))
        for src, dst, from_client in ((client_r, server_w, True), (server_r, client_w, False)):
            task = asyncio.ensure_future(self._pump(src, dst, from_client))
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def _pump(
        self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, from_client: bool
    ) -> None:
        try:
            while True:
                await self._open.wait()
                data = await src.read(65536)
                if self.frozen and data and from_client:
                    self.held += 1
                await self._open.wait()  # bytes read just before a freeze wait with the rest
                if not data:
                    break
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                if dst.can_write_eof():
                    dst.write_eof()
                else:
                    dst.close()
