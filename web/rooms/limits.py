"""The rooms' abuse limits: how many rooms an address may open, how many may be open, how many
sockets an address may hold (room and table pages: :func:`limit_sockets`), and when an idle
room closes.

Defaults are in :class:`RoomLimits`; each has an environment variable (README, "Rooms in the
browser"): ``ROOMS_PER_HOUR``, ``ROOMS_MAX_OPEN``, ``WEB_SOCKETS_PER_ADDRESS``,
``ROOM_IDLE_MINUTES``.  Frame size and rate per socket are the pages' protocol's
(:data:`web.protocol.MAX_FRAME`, :data:`web.protocol.BURST`, :data:`web.protocol.RATE`).

The address of a request is its peer's, or, with ``WEB_FORWARDED_FOR=1`` (the server is
behind a reverse proxy that sets ``X-Forwarded-For``), the last address in that header: the
one the proxy saw.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from aiohttp import web

from rules_engine.messages import Message
from web.protocol import CLOSE_SOCKETS, Closed, PageSocket

__all__ = ["AddressCounts", "RoomLimits", "address_of", "limit_sockets"]

_TOO_MANY_SOCKETS = Message("too many pages are open from your address: close some of them")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """``rooms_per_hour``: rooms one address may open in an hour; ``max_open``: rooms open in
    this process at once; ``sockets_per_address``: WebSockets (room and table pages) one
    address may hold; ``idle_seconds``: a room with no move, no command and no change for this
    long closes; ``forwarded_for``: read the address from ``X-Forwarded-For``."""

    rooms_per_hour: int = 10
    max_open: int = 200
    sockets_per_address: int = 20
    idle_seconds: float = 30 * 60
    forwarded_for: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RoomLimits:
        """The limits from the environment (unset: the defaults); :class:`ValueError` names a
        bad value."""
        default = cls()

        def whole(name: str, value: int, low: int = 1) -> int:
            raw = env.get(name, "").strip()
            if not raw:
                return value
            if not raw.isdecimal() or int(raw) < low:
                raise ValueError(f"{name}={raw!r} must be a whole number ≥ {low}")
            return int(raw)

        flag = env.get("WEB_FORWARDED_FOR", "").strip().lower()
        if flag not in ("", "0", "1", "true", "false", "yes", "no"):
            raise ValueError(f"WEB_FORWARDED_FOR={flag!r} must be 1 or 0")
        return cls(
            rooms_per_hour=whole("ROOMS_PER_HOUR", default.rooms_per_hour),
            max_open=whole("ROOMS_MAX_OPEN", default.max_open),
            sockets_per_address=whole("WEB_SOCKETS_PER_ADDRESS", default.sockets_per_address),
            idle_seconds=60.0 * whole("ROOM_IDLE_MINUTES", int(default.idle_seconds // 60)),
            forwarded_for=flag in ("1", "true", "yes"),
        )


def address_of(request: web.BaseRequest, forwarded_for: bool) -> str:
    """The client's address (see the module docstring)."""
    if forwarded_for:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
        hops = [h for h in hops if h]
        if hops:
            return hops[-1]
    return request.remote or "?"


class AddressCounts:
    """Rooms opened per address in the last hour, and sockets open per address."""

    def __init__(self, limits: RoomLimits, now: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.now = now
        self._opened: dict[str, collections.deque[float]] = {}
        self._sockets: collections.Counter[str] = collections.Counter()

    def may_open_room(self, address: str) -> bool:
        """Whether ``address`` may open another room now (and count it if so)."""
        now = self.now()
        times = self._opened.setdefault(address, collections.deque())
        while times and times[0] <= now - 3600:
            times.popleft()
        if len(times) >= self.limits.rooms_per_hour:
            return False
        times.append(now)
        if len(self._opened) > 10_000:  # forget addresses with nothing in the last hour
            for key in [k for k, v in self._opened.items() if not v or v[-1] <= now - 3600]:
                del self._opened[key]
        return True

    def open_socket(self, address: str) -> bool:
        """Count a socket of ``address``; False (not counted) when it holds the most already."""
        if self._sockets[address] >= self.limits.sockets_per_address:
            return False
        self._sockets[address] += 1
        return True

    def close_socket(self, address: str) -> None:
        self._sockets[address] -= 1
        if self._sockets[address] <= 0:
            del self._sockets[address]

    def sockets(self, address: str) -> int:
        return self._sockets[address]


def limit_sockets(handler: Handler, counts: AddressCounts) -> Handler:
    """``handler`` (a page socket's route) counted against the sockets per address: one over
    the limit is accepted only to be told why and closed (:data:`~web.protocol.CLOSE_SOCKETS`)."""

    async def limited(request: web.Request) -> web.StreamResponse:
        address = address_of(request, counts.limits.forwarded_for)
        if not counts.open_socket(address):
            page = await PageSocket.accept(request)
            try:
                await page.refuse(_TOO_MANY_SOCKETS, CLOSE_SOCKETS)
            except Closed:
                return page.ws
        try:
            return await handler(request)
        finally:
            counts.close_socket(address)

    return limited
