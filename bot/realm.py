"""The web realm's ids: rooms and guests, apart from every Discord id (see :mod:`bot.rooms`).

A Discord id (a snowflake) is at least :data:`SNOWFLAKE_MIN`, 2^22: its top bits count the
milliseconds since 2015-01-01, which is never 0 for an id made since.  Rooms use ids below it
only, so the realm can never meet a Discord server, channel or user.  Pure constants, no I/O:
the settlement of games (:mod:`bot.service.settle`) reads them.
"""

from __future__ import annotations

__all__ = ["GUEST_IDS", "ROOM_IDS", "SNOWFLAKE_MIN", "WEB_REALM", "is_room"]

#: The smallest id Discord can make (a snowflake's timestamp part is at least 1).
SNOWFLAKE_MIN = 2**22
#: The server id of every room.
WEB_REALM = SNOWFLAKE_MIN - 1
#: Channel ids of rooms, and user ids of guests (separate namespaces, both below 2^22).
ROOM_IDS = range(2**21, SNOWFLAKE_MIN - 1)
GUEST_IDS = range(2**21, SNOWFLAKE_MIN)


def is_room(channel_id: int) -> bool:
    """Whether ``channel_id`` is a room's (never a Discord channel's: see the module)."""
    return channel_id in ROOM_IDS
