"""Rooms: games in the browser without Discord, in their own realm of the game service.

A room is a channel of the same :class:`~bot.service.GameService` as Discord's channels (one
lock per channel, the same timers, AI, fair play, series, replays and records), in a realm of
its own: every room is a channel of the server :data:`WEB_REALM`, and its players are guests
with user ids of their own.

**Why these ids can never be Discord's.**  The service takes ids from 1 to 2^63 - 1
(:func:`bot.service.options.need_id`).  A Discord id is a snowflake: its top 42 bits are the
milliseconds since 2015-01-01 at its creation, its low 22 bits a worker, process and counter.
Every Discord id was made after 2015-01-01 00:00:00.000, so its timestamp part is at least 1
and the id at least 2^22.  The realm uses only ids below 2^22: the server :data:`WEB_REALM`
(2^22 - 1), room channels :data:`ROOM_IDS` and guests :data:`GUEST_IDS` (2^21 up to 2^22).

**Where the ids come from.**  Each is the next number of a counter in the database
(:meth:`bot.storage.Storage.take_number`: ``room_channel``, ``room_guest``), advanced in one
statement, so several processes over one PostgreSQL database never hand out the same id, and
a restart goes on where the last process stopped.  An id is taken only once everything else
about the room or the seat was checked (a refused creation or join takes none), and the
counters wrap around their range: after 2^21 ids the next ones start again from the
bottom, skipping any still in use in an open room here, so no amount of joining ever leaves
the server without ids.  A room's channel id used again does not reopen an old invite: the
slug's room is checked against the slug its channel was last given.

A room's address is not its channel id: it is a random slug (:data:`SLUG_BYTES` random bytes,
base64url), kept in ``bot_meta`` (``room:<slug>`` → the channel id), so a room cannot be found
by counting.  Guests are never rated (:func:`bot.service.settle.rated_places` skips the realm)
and, the realm being a server of its own, never appear in a Discord server's stats,
leaderboard or history.  Nothing is stored about a guest but the name they chose, in that
room's lobby, series and game records.

Any process serves any room (every ``durak-bot web``, and every bot process with
``PUBLIC_URL``, on one database): the ids come from the database, a room is read from it
wherever a request lands (:meth:`GameService.load`), the rooms open are counted there
(:meth:`RoomDirectory.rooms_open`), and a change one process makes reaches the pages of the
others through the database's notifications (:mod:`bot.service.sync`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.errors import AlreadySeated, BadOption, LobbyFull, NoLobby, ServiceError
from bot.realm import GUEST_IDS, ROOM_IDS, SNOWFLAKE_MIN, WEB_REALM, is_room
from bot.service import ChannelPhase, GameService
from bot.service.commit import storage_errors
from bot.service.lobby import team_to_join
from bot.service.options import lobby_options, rules_of
from bot.storage import Storage
from rules_engine.messages import Message

__all__ = [
    "GUEST_IDS",
    "GUEST_NAME_MAX",
    "ROOM_IDS",
    "SLUG_BYTES",
    "SNOWFLAKE_MIN",
    "WEB_REALM",
    "NoRoom",
    "Room",
    "RoomDirectory",
    "guest_name",
    "is_room",
]

#: Random bytes in a room's slug (128 bits: 22 base64url characters).
SLUG_BYTES = 16
#: The longest guest name, in characters.
GUEST_NAME_MAX = 32

#: Slugs whose channel is kept in memory (beyond that, read again from ``bot_meta``).
_CACHED_SLUGS = 10_000
_SLUG = re.compile(r"[A-Za-z0-9_-]{22}")
#: The counters of the ids (:meth:`bot.storage.Storage.take_number`).
ROOM_NUMBERS, GUEST_NUMBERS = "room_channel", "room_guest"
#: Ids in use skipped at most, in a row, once a counter wrapped around.
_MAX_SKIPS = 1000
_NO_IDS = Message("this server cannot open more rooms")


class NoRoom(BadOption):
    """The address names no room (never made, mistyped, or the room is closed)."""

    code = "no_room"
    default_message = Message("there is no such room: it may have closed")


#: Letters and marks that show nothing, though Unicode does not class them as format
#: characters: the Default_Ignorable_Code_Point ones outside ``Cf`` (combining grapheme
#: joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation selectors, variation
#: selectors, tag characters) and the blank braille pattern.
_INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    ]
)
_INVISIBLE_NAME = Message(
    "a name cannot hold control characters, direction marks or invisible ones"
)


def _invisible(c: str) -> bool:
    return ord(c) in _INVISIBLE or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Cn")


def guest_name(raw: object) -> str:
    """A guest's name: 1 to :data:`GUEST_NAME_MAX` characters after trimming, spaces inside
    made single, no control, format or invisible characters (line breaks, right-to-left
    marks, zero-width characters, Hangul fillers, blank braille, variation selectors), and
    something to see besides marks.  :class:`BadOption` says what is wrong."""
    if not isinstance(raw, str):
        raise BadOption(Message("choose a name"))
    text = unicodedata.normalize("NFC", raw)
    if any(_invisible(c) for c in text):
        raise BadOption(_INVISIBLE_NAME)
    if text.strip() and all(c.isspace() or unicodedata.category(c).startswith("M") for c in text):
        raise BadOption(_INVISIBLE_NAME)
    text = " ".join(text.split())
    if not text:
        raise BadOption(Message("choose a name"))
    if len(text) > GUEST_NAME_MAX:
        raise BadOption(Message("a name has at most {max} characters", max=GUEST_NAME_MAX))
    return text


@dataclass(frozen=True, slots=True)
class Room:
    """A room and one guest of it: its slug, its channel, and the guest's id and name."""

    slug: str
    channel_id: int
    user_id: int
    name: str


class RoomDirectory:
    """Makes rooms and seats guests, over the game service (see the module docstring)."""

    def __init__(self, service: GameService, storage: Storage | None = None) -> None:
        self.service = service
        self.storage = storage or service.storage
        self._lock = asyncio.Lock()
        self._channels: dict[str, int] = {}

    async def _take(
        self, counter: str, ids: range, in_use: Callable[[], Awaitable[set[int]]]
    ) -> int:
        """The next id of ``ids`` from ``counter`` (see the module docstring): once the
        counter has gone round the range, an id of ``in_use()`` is skipped."""
        used: set[int] | None = None
        for _ in range(_MAX_SKIPS):
            number = await self.storage.take_number(counter)
            value = ids.start + (number - 1) % len(ids)
            if number <= len(ids):
                return value
            if used is None:
                used = await in_use()
            if value not in used:
                return value
        raise BadOption(_NO_IDS)

    async def _rooms_in_use(self) -> set[int]:
        return set(await self.rooms_open())

    async def _guests_in_use(self) -> set[int]:
        """The guests seated in an open room (a lobby's seats, a game's players)."""
        seated: set[int] = set()
        for channel in await self.rooms_open():
            with contextlib.suppress(ServiceError):
                lobby = await self.service.lobby(channel)
                seated.update(s.user_id for s in lobby.seats if s.user_id is not None)
            with contextlib.suppress(ServiceError):
                table = await self.service.table(channel)
                seated.update(s.user_id for s in table.seats if s.user_id is not None)
        return seated

    async def _take_guest(self) -> int:
        return await self._take(GUEST_NUMBERS, GUEST_IDS, self._guests_in_use)

    async def create(self, host_name: object, options: Mapping[str, Any] | None) -> Room:
        """Open a room's lobby with the host seated; the options are ``/durak new``'s
        (checked the same way, with the same refusals)."""
        name = guest_name(host_name)
        opts = lobby_options(dict(options or {}))
        rules_of(opts)
        async with self._lock:
            channel = await self._take(ROOM_NUMBERS, ROOM_IDS, self._rooms_in_use)
            user = await self._take_guest()
            await self.service.open_lobby(channel, WEB_REALM, user, name, opts)
            slug = secrets.token_urlsafe(SLUG_BYTES)
            now = time.time()
            await self.storage.set_meta(f"room:{slug}", str(channel), now)
            # the channel's current slug: an older room of the same channel id stays closed
            await self.storage.set_meta(f"room-slug:{channel}", slug, now)
            for old in [k for k, v in self._channels.items() if v == channel]:
                del self._channels[old]
            self._channels[slug] = channel
        return Room(slug, channel, user, name)

    async def channel_of(self, slug: object) -> int:
        """The channel of the room at ``slug``; :class:`NoRoom` if there is none."""
        if not isinstance(slug, str) or not _SLUG.fullmatch(slug):
            raise NoRoom()
        channel = self._channels.get(slug)
        if channel is None:
            stored = await self.storage.get_meta(f"room:{slug}")
            if not stored or not stored.isdecimal() or not is_room(int(stored)):
                raise NoRoom()
            current = await self.storage.get_meta(f"room-slug:{stored}")
            if current is not None and current != slug:  # its channel id has a newer room
                raise NoRoom()
            if len(self._channels) >= _CACHED_SLUGS:
                self._channels.clear()
            channel = self._channels[slug] = int(stored)
        return channel

    async def join(self, slug: object, raw_name: object, team: int | None = None) -> Room:
        """Seat a new guest called ``raw_name`` in the room's lobby (in a room played in
        teams: in ``team``, 0 or 1, or the team with fewer players).  Refused: no such room,
        its game has started (:class:`NoLobby`), a bad name, a name taken in the room (any
        case), the lobby (or that team) full; a refused join takes no id."""
        channel = await self.channel_of(slug)
        assert isinstance(slug, str)
        name = guest_name(raw_name)
        async with self._lock:
            if await self.service.load(channel) is ChannelPhase.NONE:
                raise NoRoom()
            try:
                lobby = await self.service.lobby(channel)
            except NoLobby:
                raise NoLobby(
                    Message("this room's game has started: ask its host for the next one")
                ) from None
            if any(s.name.casefold() == name.casefold() for s in lobby.seats):
                raise AlreadySeated(
                    Message("{name} is already taken in this room: choose another name", name=name)
                )
            if len(lobby.seats) >= lobby.max_seats:
                raise LobbyFull()
            team_to_join(lobby.seats, lobby.team_size, team)  # refused before an id is taken
            user = await self._take_guest()
            await self.service.join(channel, user, name, team)
        return Room(slug, channel, user, name)

    def open_rooms(self) -> list[int]:
        """The channels of the rooms that hold a lobby or a series now, of those this
        process holds (every open room when it is the only process)."""
        return self.service.channels_in(WEB_REALM)

    async def rooms_open(self) -> list[int]:
        """The channels of every room that holds a lobby or a series now, whichever process
        opened it (read from a shared database)."""
        if not self.storage.shared:
            return self.open_rooms()
        with storage_errors():
            return await self.storage.open_channels(WEB_REALM)
