"""The rooms' parts put together: :class:`RoomHub` adds their routes to the web application,
registers their presenter with the service, and runs the idle sweep while the application
runs."""

from __future__ import annotations

import time
from collections.abc import Callable

from aiohttp import web

from bot.rooms import RoomDirectory
from bot.service import GameService
from web.rooms.api import RoomsApi
from web.rooms.limits import AddressCounts, Handler, RoomLimits, limit_sockets
from web.rooms.presenter import RoomPresenter
from web.rooms.socket import RoomSocket
from web.rooms.sweep import IdleSweep
from web.strings import Page
from web.tokens import Signer

__all__ = ["RoomHub"]


class RoomHub:
    """The rooms' HTTP API, their socket, their presenter and the idle sweep, over one
    :class:`~bot.rooms.RoomDirectory`.  ``now`` is the idle sweep's clock (tests set it)."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        origins: frozenset[str],
        public_url: str,
        limits: RoomLimits | None = None,
        *,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.limits = limits or RoomLimits()
        self.now = now
        self.directory = RoomDirectory(service)
        self.counts = AddressCounts(self.limits, now)
        self.presenter = RoomPresenter(service, signer, lambda channel: self.sweep.touch(channel))
        self.sweep = IdleSweep(
            service, self.directory, self.presenter, self.limits.idle_seconds, lambda: self.now()
        )
        self.api = RoomsApi(
            self.directory,
            signer,
            origins,
            public_url,
            self.limits,
            self.counts,
            self.sweep.touch,
        )
        self.socket = RoomSocket(
            service, signer, origins, self.presenter, self.sweep.touch, self.counts
        )

    def add_routes(self, app: web.Application, page: Callable[[Page], Handler]) -> None:
        """Add the routes; ``page(name)`` makes the route of an HTML page (:mod:`web.pages`)."""
        app.router.add_get("/", page("home"))
        app.router.add_get("/room", page("room"))
        app.router.add_get("/api/rooms/setup", self.api.setup)
        app.router.add_post("/api/rooms", self.api.create)
        app.router.add_post("/api/rooms/join", self.api.join)
        app.router.add_get("/ws/room", self.limit_sockets(self.socket.handle))
        self.service.add_presenter(self.presenter)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._stop)

    def limit_sockets(self, handler: Handler) -> Handler:
        """``handler`` (a page socket's route) under the sockets-per-address limit."""
        return limit_sockets(handler, self.counts)

    async def close_idle(self) -> list[int]:
        """Close the idle rooms now (:meth:`IdleSweep.close_idle`)."""
        return await self.sweep.close_idle()

    async def _start(self, app: web.Application) -> None:
        self.sweep.start()

    async def _stop(self, app: web.Application) -> None:
        self.service.remove_presenter(self.presenter)
        await self.sweep.stop()
        for page in self.presenter.pages():
            await page.conn.ws.close(code=1001)
