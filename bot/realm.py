"""Realms: where a channel lives (a Discord server, the web's rooms, a local game), and the web
realm's ids, apart from every Discord id (see :mod:`bot.rooms`).

A Discord id (a snowflake) is at least :data:`SNOWFLAKE_MIN`, 2^22: its top bits count the
milliseconds since 2015-01-01, which is never 0 for an id made since.  Rooms use ids below it
only, so the realm can never meet a Discord server, channel or user.  A local game (the
terminal's ``durak-bot play``, ``play --web``) runs in a service of its own, on ids below both
(1 to 3).  So a channel's id says its realm (:func:`realm_of`): the service hands each event
only to the presenters of that realm (:mod:`bot.presenter`).

Pure values, no I/O: the settlement of games (:mod:`bot.service.settle`) reads them.
"""

from __future__ import annotations

import enum

__all__ = [
    "EVERY_REALM",
    "GUEST_IDS",
    "ROOM_IDS",
    "SNOWFLAKE_MIN",
    "WEB_REALM",
    "Realm",
    "is_room",
    "realm_of",
]

#: The smallest id Discord can make (a snowflake's timestamp part is at least 1).
SNOWFLAKE_MIN = 2**22
#: The server id of every room.
WEB_REALM = SNOWFLAKE_MIN - 1
#: Channel ids of rooms, and user ids of guests (separate namespaces, both below 2^22).
ROOM_IDS = range(2**21, SNOWFLAKE_MIN - 1)
GUEST_IDS = range(2**21, SNOWFLAKE_MIN)


class Realm(enum.StrEnum):
    """Where a channel lives, and so who may be told of it."""

    #: A channel of a Discord server (a snowflake).
    DISCORD = "discord"
    #: A room in the browser (:data:`ROOM_IDS`, in the server :data:`WEB_REALM`).
    ROOMS = "rooms"
    #: A local game in a service of its own: the terminal, ``play --web`` (ids below 2^21).
    LOCAL = "local"

    @property
    def has_moderators(self) -> bool:
        """Whether someone besides the players may act on its tables (Discord's members with
        Manage Channel); rooms and local games have only their players and host."""
        return self is Realm.DISCORD


#: Every realm (a presenter that serves them all: tests, the web table's pages).
EVERY_REALM = frozenset(Realm)


def is_room(channel_id: int) -> bool:
    """Whether ``channel_id`` is a room's (never a Discord channel's: see the module)."""
    return channel_id in ROOM_IDS


def realm_of(channel_id: int) -> Realm:
    """The realm of the channel ``channel_id`` (see the module)."""
    if channel_id >= SNOWFLAKE_MIN:
        return Realm.DISCORD
    if channel_id in ROOM_IDS:
        return Realm.ROOMS
    return Realm.LOCAL
