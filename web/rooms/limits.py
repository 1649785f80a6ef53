"""The rooms' abuse limits, per address: how many rooms an address may open in an hour and hold
open at once, how often it may sit down in or leave a room, how many rooms may be open, how
many sockets an address may hold (room and table pages: :func:`limit_sockets`), and when an
idle room closes.

Defaults are in :class:`RoomLimits`; each has an environment variable (docs/CONFIG.md):
``ROOMS_PER_HOUR``, ``ROOMS_OPEN_PER_ADDRESS``, ``ROOMS_MAX_OPEN``, ``ROOM_JOINS_PER_MINUTE``,
``WEB_SOCKETS_PER_ADDRESS``, ``ROOM_IDLE_MINUTES``, ``WEB_IPV4_PREFIX``, ``WEB_IPV6_PREFIX``.
Frame size and rate per socket are the pages' protocol's (:data:`web.protocol.MAX_FRAME`,
:data:`web.protocol.BURST`, :data:`web.protocol.RATE`).

**An address is a network, not one host** (:func:`address_of`): an IPv6 client is counted by
its /64 (one subscriber's network, where it may take any of 2^64 addresses), an IPv4 client by
its /32 (one address; a wider prefix with ``WEB_IPV4_PREFIX``).  The client is the request's
peer, or, with ``WEB_FORWARDED_FOR=1`` (the server is behind a reverse proxy that sets
``X-Forwarded-For``), the last address in that header: the one the proxy saw.

**Room creation is fair**: besides the cap of rooms open on the server, each address may hold
only :attr:`RoomLimits.open_per_address` rooms open at once, so a few addresses cannot take
every room the server may open.
"""

from __future__ import annotations

import collections
import contextlib
import ipaddress
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass

from aiohttp import web

from rules_engine.messages import Message
from web.env import env_flag, env_whole
from web.protocol import CLOSE_SOCKETS, Closed, PageSocket, TokenBucket

__all__ = ["AddressCounts", "RoomLimits", "address_of", "limit_sockets"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_TOO_MANY_SOCKETS = Message("too many pages are open from your address: close some of them")

#: Addresses remembered at most per table before the ones with nothing left are forgotten.
_FORGET_PAST = 10_000


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """``rooms_per_hour``: rooms one address may open in an hour; ``open_per_address``: rooms
    one address may hold open at once (both counted by each process); ``max_open``: rooms
    open at once (on a shared database, over every process: :meth:`RoomDirectory.rooms_open`);
    ``joins_per_minute``: times one address may sit down in a room or leave one per minute
    (a burst of as many at once); ``sockets_per_address``: WebSockets (room and table pages)
    one address may hold; ``idle_seconds``: a room with no move, no command and no change
    for this long closes; ``forwarded_for``: read the address from ``X-Forwarded-For``;
    ``ipv4_prefix`` / ``ipv6_prefix``: the network prefix counted as one address."""

    rooms_per_hour: int = 10
    open_per_address: int = 3
    max_open: int = 200
    joins_per_minute: int = 20
    sockets_per_address: int = 20
    idle_seconds: float = 30 * 60
    forwarded_for: bool = False
    ipv4_prefix: int = 32
    ipv6_prefix: int = 64

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RoomLimits:
        """The limits from the environment (unset: the defaults); :class:`ValueError` names a
        bad value."""
        default = cls()
        return cls(
            rooms_per_hour=env_whole("ROOMS_PER_HOUR", env, default.rooms_per_hour),
            open_per_address=env_whole("ROOMS_OPEN_PER_ADDRESS", env, default.open_per_address),
            max_open=env_whole("ROOMS_MAX_OPEN", env, default.max_open),
            joins_per_minute=env_whole("ROOM_JOINS_PER_MINUTE", env, default.joins_per_minute),
            sockets_per_address=env_whole(
                "WEB_SOCKETS_PER_ADDRESS", env, default.sockets_per_address
            ),
            idle_seconds=60.0
            * env_whole("ROOM_IDLE_MINUTES", env, int(default.idle_seconds // 60)),
            forwarded_for=env_flag("WEB_FORWARDED_FOR", env),
            ipv4_prefix=env_whole("WEB_IPV4_PREFIX", env, default.ipv4_prefix, 8, 32),
            ipv6_prefix=env_whole("WEB_IPV6_PREFIX", env, default.ipv6_prefix, 16, 128),
        )


def client_of(request: web.BaseRequest, forwarded_for: bool) -> str:
    """The client's own address (see the module docstring)."""
    if forwarded_for:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
        hops = [h for h in hops if h]
        if hops:
            return hops[-1]
    return request.remote or "?"


def network_of(client: str, limits: RoomLimits) -> str:
    """The network ``client`` is counted in: its IPv4 or IPv6 prefix (an IPv4 address mapped
    into IPv6 counts as IPv4); anything that is not an address stands for itself."""
    try:
        ip = ipaddress.ip_address(client.strip("[]").split("%", 1)[0])
    except ValueError:
        return client
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = limits.ipv4_prefix if ip.version == 4 else limits.ipv6_prefix
    # interned: each open connection and socket keeps its key, one string per network
    return sys.intern(str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False)))


def address_of(request: web.BaseRequest, limits: RoomLimits) -> str:
    """The address (a network: see the module docstring) a request is counted under."""
    return network_of(client_of(request, limits.forwarded_for), limits)


class AddressCounts:
    """Per address: rooms opened in the last hour, rooms it holds open, joins and leaves
    (a token bucket), and sockets open."""

    def __init__(self, limits: RoomLimits, now: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.now = now
        self._opened: dict[str, collections.deque[float]] = {}
        self._holds: dict[str, set[int]] = {}
        self._seats: dict[str, TokenBucket] = {}
        self._sockets: collections.Counter[str] = collections.Counter()
        self._refusing: collections.Counter[str] = collections.Counter()

    def may_open_room(self, address: str) -> bool:
        """Whether ``address`` may open another room this hour (and count it if so)."""
        now = self.now()
        times = self._opened.setdefault(address, collections.deque())
        while times and times[0] <= now - 3600:
            times.popleft()
        if len(times) >= self.limits.rooms_per_hour:
            return False
        times.append(now)
        if len(self._opened) > _FORGET_PAST:  # forget addresses with nothing in the last hour
            for key in [k for k, v in self._opened.items() if not v or v[-1] <= now - 3600]:
                del self._opened[key]
        return True

    def holds_too_many(self, address: str, open_rooms: Iterable[int]) -> bool:
        """Whether ``address`` already holds :attr:`RoomLimits.open_per_address` of the rooms
        ``open_rooms`` (the rooms open now: a closed one no longer counts)."""
        still = set(open_rooms)
        held = self._holds.get(address)
        if held is not None:
            held &= still
            if not held:
                del self._holds[address]
        if len(self._holds) > _FORGET_PAST:
            for key in [k for k, v in self._holds.items() if not v & still]:
                del self._holds[key]
        return held is not None and len(held) >= self.limits.open_per_address

    def opened(self, address: str, channel_id: int) -> None:
        """``address`` opened the room ``channel_id``."""
        self._holds.setdefault(address, set()).add(channel_id)

    def may_change_seat(self, address: str) -> bool:
        """Whether ``address`` may sit down in or leave a room now (and count it if so)."""
        bucket = self._seats.get(address)
        if bucket is None:
            if len(self._seats) > _FORGET_PAST:  # full buckets hold nothing worth keeping
                self._seats = {k: b for k, b in self._seats.items() if not b.full()}
            per_minute = self.limits.joins_per_minute
            bucket = self._seats[address] = TokenBucket(per_minute, per_minute / 60, self.now)
        return bucket.take()

    def open_socket(self, address: str) -> bool:
        """Count a socket of ``address``; False (not counted) when it holds the most already."""
        return _count_in(self._sockets, address, self.limits.sockets_per_address)

    def close_socket(self, address: str) -> None:
        _count_out(self._sockets, address)

    def sockets(self, address: str) -> int:
        return self._sockets[address]

    def start_refusal(self, address: str) -> bool:
        """Count a socket of ``address`` being told it is one too many; False (not counted)
        when as many as it may hold are being told already."""
        return _count_in(self._refusing, address, self.limits.sockets_per_address)

    def end_refusal(self, address: str) -> None:
        _count_out(self._refusing, address)


def _count_in(counts: collections.Counter[str], address: str, most: int) -> bool:
    """Count one more for ``address`` unless it has ``most`` already (then False)."""
    if counts[address] >= most:
        return False
    counts[address] += 1
    return True


def _count_out(counts: collections.Counter[str], address: str) -> None:
    """Count one less for ``address``, forgetting it at none."""
    counts[address] -= 1
    if counts[address] <= 0:
        del counts[address]


def limit_sockets(handler: Handler, counts: AddressCounts) -> Handler:
    """``handler`` (a page socket's route) counted against the sockets per address.  One over
    the limit is accepted only to be told why (an ``error`` frame, then
    :data:`~web.protocol.CLOSE_SOCKETS`: a person with too many tabs reads the reason), and
    is freed at once; while as many are being refused so, more from that address are a flood
    and are refused before they become WebSockets (HTTP 429, which holds nothing)."""

    async def limited(request: web.Request) -> web.StreamResponse:
        address = address_of(request, counts.limits)
        if not counts.open_socket(address):
            if not counts.start_refusal(address):
                raise web.HTTPTooManyRequests(text="too many pages are open from your address")
            try:
                page = await PageSocket.accept(request)
                with contextlib.suppress(Closed):
                    await page.refuse(_TOO_MANY_SOCKETS, CLOSE_SOCKETS)
                return page.ws
            finally:
                counts.end_refusal(address)
        try:
            return await handler(request)
        finally:
            counts.close_socket(address)

    return limited
