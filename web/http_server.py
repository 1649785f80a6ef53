"""The web server's connections under guard, and what its access log holds.

aiohttp's own server keeps a connection that sends nothing, or half a request, for an hour,
and takes as many as the process may open files: a few hundred idle connections from one
client used every file the process had, and the server stopped answering.  Here
(:class:`GuardedSite`, :class:`ServerLimits`):

- a connection that has not sent a whole request head within ``idle_seconds``, or that
  stays idle that long between requests, is closed (aiohttp's keep-alive timer, which also
  runs from the connection's start);
- at most ``max_connections`` connections are open at once (and never more than the process's
  file limit allows, less a margin for the database and the AI workers), and at most
  ``connections_per_address`` from one address (a network prefix, as the rooms count them:
  :func:`web.rooms.limits.network_of`; not behind a reverse proxy, where every connection is
  the proxy's): one more is closed as soon as it is accepted;
- a request aiohttp's parser refuses (a malformed head: 400) gets the security headers like
  every other answer, and is logged at most once every few seconds, without the client's
  address (:data:`web.protocol.MALFORMED`).

The access log (:class:`AccessLog`, logger ``web.access``) has one line per request: the
method, the path without its query string, the status, the body's size and the time taken.
Tokens never travel in a path (only in URL fragments and WebSocket frames), and a query
string, where one could be pasted by hand, is never written.  With ``WEB_ACCESS_LOG_CLIENTS=1``
the line also holds the client's address and its ``User-Agent`` (docs/OPERATING.md, "Privacy").
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.web_protocol import RequestHandler

from web.env import env_flag, env_whole
from web.protocol import MALFORMED

__all__ = ["AccessLog", "AccessLogWithClients", "ConnectionGuard", "GuardedSite", "ServerLimits"]

#: Files kept free under the process's limit for everything but connections (the database,
#: the AI workers' pipes, the logs).
FILES_KEPT = 128


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """``max_connections``: connections open at once; ``connections_per_address``: from one
    address (a network prefix); ``idle_seconds``: a connection with no whole request for this
    long is closed; ``access_log_clients``: the access log names client addresses and
    browsers."""

    max_connections: int = 4096
    connections_per_address: int = 64
    idle_seconds: float = 15.0
    access_log_clients: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ServerLimits:
        """The limits from ``WEB_MAX_CONNECTIONS``, ``WEB_CONNECTIONS_PER_ADDRESS``,
        ``WEB_IDLE_SECONDS`` and ``WEB_ACCESS_LOG_CLIENTS`` (unset: the defaults);
        :class:`ValueError` names a bad value."""
        default = cls()
        return cls(
            max_connections=env_whole("WEB_MAX_CONNECTIONS", env, default.max_connections),
            connections_per_address=env_whole(
                "WEB_CONNECTIONS_PER_ADDRESS", env, default.connections_per_address
            ),
            idle_seconds=float(env_whole("WEB_IDLE_SECONDS", env, int(default.idle_seconds))),
            access_log_clients=env_flag("WEB_ACCESS_LOG_CLIENTS", env),
        )


def open_files_allowed() -> int:
    """The process's limit of open files, raised to its hard limit first (systemd's unit
    sets both: deploy/durak-bot.service)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


class ConnectionGuard:
    """Counts the open connections, in all and per address (see the module docstring)."""

    def __init__(
        self, limits: ServerLimits, network_of: Callable[[str], str] | None, files: int
    ) -> None:
        self.limits = limits
        #: The address a peer is counted under (``None``: behind a proxy, no per-address cap).
        self.network_of = network_of
        #: The most connections at once: the setting, within the process's file limit.
        self.most = max(1, min(limits.max_connections, files - FILES_KEPT))
        self.open = 0
        self._per_address: Counter[str] = Counter()

    def admit(self, peer: object) -> str | None:
        """Count a new connection from ``peer`` (a socket address); ``None`` when it is one
        too many, else the key to :meth:`release` it with."""
        key = ""
        if self.network_of is not None and isinstance(peer, tuple) and peer:
            key = self.network_of(str(peer[0]))
        if self.open >= self.most:
            return None
        if key and self._per_address[key] >= self.limits.connections_per_address:
            return None
        self.open += 1
        if key:
            self._per_address[key] += 1
        return key

    def release(self, key: str) -> None:
        self.open -= 1
        if key:
            self._per_address[key] -= 1
            if self._per_address[key] <= 0:
                del self._per_address[key]


class _GuardedHandler(RequestHandler):
    """aiohttp's request handler, counted by a :class:`ConnectionGuard`; its parser's
    refusals carry ``headers`` and log no address."""

    def __init__(
        self,
        manager: web.Server,
        guard: ConnectionGuard,
        headers: Callable[[], Mapping[str, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(manager, **kwargs)
        self.guard = guard
        self.extra_headers = headers
        self.guard_key: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.guard_key = self.guard.admit(transport.get_extra_info("peername"))
        if self.guard_key is None:
            self.force_close()
            transport.close()

    def connection_lost(self, exc: BaseException | None) -> None:
        key, self.guard_key = self.guard_key, None
        if key is not None:
            self.guard.release(key)
        super().connection_lost(exc)

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status == 500:
            logging.getLogger("web.app").error("error handling a request", exc_info=exc)
        else:
            MALFORMED.note(f"a request the server could not read ({status})")
        if request.writer.output_size > 0:
            raise ConnectionError("the response was sent already")
        text = f"{status}: " + (
            "the server could not answer" if status == 500 else "the request could not be read"
        )
        resp = web.Response(status=status, text=text, headers=dict(self.extra_headers()))
        resp.force_close()
        return resp


class GuardedSite(web.TCPSite):
    """A TCP site whose connections are :class:`_GuardedHandler`'s: under ``guard``, timed
    out after ``limits.idle_seconds``, with ``headers()`` on the parser's refusals."""

    def __init__(
        self,
        runner: web.AppRunner,
        host: str,
        port: int,
        guard: ConnectionGuard,
        headers: Callable[[], Mapping[str, str]],
        access_log: logging.Logger | None,
    ) -> None:
        super().__init__(runner, host, port)
        self.guard = guard
        self.headers = headers
        self.access_log = access_log

    async def start(self) -> None:
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        log_class: type[AbstractAccessLogger] = (
            AccessLogWithClients if self.guard.limits.access_log_clients else AccessLog
        )

        def handler() -> RequestHandler:
            assert server is not None
            return _GuardedHandler(
                server,
                self.guard,
                self.headers,
                loop=loop,
                keepalive_timeout=self.guard.limits.idle_seconds,
                access_log_class=log_class,
                access_log=self.access_log,
            )

        self._server = await loop.create_server(
            handler, self._host, self._port, backlog=self._backlog, reuse_address=True
        )


class AccessLog(AbstractAccessLogger):
    """One line per request: method, path (no query string), status, body size, time."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info(
            "%s %s %d %d %.3fs%s",
            request.method,
            request.path,
            response.status,
            response.body_length,
            time,
            self.clients(request),
        )

    def clients(self, request: web.BaseRequest) -> str:
        """What the line says of the client (nothing)."""
        return ""


class AccessLogWithClients(AccessLog):
    """:class:`AccessLog` with the client's address and ``User-Agent``
    (``WEB_ACCESS_LOG_CLIENTS=1``)."""

    def clients(self, request: web.BaseRequest) -> str:
        agent = request.headers.get("User-Agent", "-").replace('"', "'")[:200]
        return f' {request.remote or "-"} "{agent}"'
