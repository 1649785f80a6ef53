"""Rooms in the browser, without Discord: the home page, invite links, guests and the room's
live lobby (docs/WEB.md, "Rooms").

Over :class:`bot.rooms.RoomDirectory` (the realm, its ids and its guest names) and the game
service (every lobby, game, forfeit, stop vote and host hand-off is the service's, as for a
Discord channel; nothing of that is decided here):

- :mod:`~web.rooms.api`: the HTTP API (the options of a room, creating one, sitting down);
- :mod:`~web.rooms.socket`: the room page's socket, on the pages' protocol (:mod:`web.protocol`);
- :mod:`~web.rooms.presenter` and :mod:`~web.rooms.state`: the service's events, as the room's
  state pushed to its pages (one snapshot per change, from the views the service gave);
- :mod:`~web.rooms.sweep`: idle rooms close;
- :mod:`~web.rooms.limits`: the abuse limits, per network prefix (rooms per address per hour
  and open at once, joins and leaves, rooms open on the server, sockets per address);
- :mod:`~web.rooms.names`: guest names that would pass for an AI seat's;
- :mod:`~web.rooms.hub`: all of them added to the web application.

The pages' words are the one source of :mod:`web.strings`.
"""

from web.rooms.hub import RoomHub
from web.rooms.limits import RoomLimits

__all__ = ["RoomHub", "RoomLimits"]
