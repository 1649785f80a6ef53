"""The service's terms: what a message names of the world around the game, as typed values.

A refusal or a notice that refers to a command, a permission or a channel carries it as one of
these :class:`~rules_engine.messages.Term` parameters, never as an adapter's words: Discord
writes ``/durak new``, "Manage Channel" and ``<#123>`` mentions; the web the name of a button
on its page, "here"; the terminal its own keys (each adapter's wording:
:class:`present.wording.Wording`).  ``str(term)`` is plain English, for logs only.

Where a sentence cannot be said naturally in a realm (rooms and local games have no
moderators), the service chooses another sentence from the realm
(:attr:`bot.realm.Realm.has_moderators`), never a term that the realm lacks.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from rules_engine.messages import Term

__all__ = ["HERE", "ChannelList", "Command", "Permission", "Place"]


class Command(Term, enum.Enum):
    """A command a player can give, by what it does."""

    #: Open a new lobby (Discord: ``/durak new``; the web: a new room).
    NEW = "new"
    #: Give up one's own seat (a forfeit in a running game).
    LEAVE = "leave"
    #: Close a lobby, or vote to stop a running game.
    STOP = "stop"
    #: Ask for one's name and id to be erased from every record.
    FORGET_ME = "forget-me"

    def __str__(self) -> str:
        return f"the {self.value} command"


class Permission(Term, enum.Enum):
    """A right beyond a player's, held by some members of a realm with moderators."""

    #: May act on any table of the channel (Discord: Manage Channel).
    MANAGE_CHANNEL = "manage_channel"
    #: May change the server's settings (Discord: Manage Server).
    MANAGE_SERVER = "manage_server"

    def __str__(self) -> str:
        return self.value.replace("_", " ")


class Place(Term, enum.Enum):
    """Where the message's reader is."""

    #: The channel the command was given in, or the notice is shown in (Discord: "in this
    #: channel"; the web: "here").
    HERE = "here"

    def __str__(self) -> str:
        return "in this channel"


#: The reader's channel (see :class:`Place`).
HERE = Place.HERE


@dataclass(frozen=True, slots=True)
class ChannelList(Term):
    """Channels of a server, by id, in order (Discord: their mentions)."""

    ids: tuple[int, ...]

    @classmethod
    def of(cls, ids: Iterable[int]) -> ChannelList:
        """The channels ``ids``, sorted, each once."""
        return cls(tuple(sorted(set(ids))))

    def __str__(self) -> str:
        return ", ".join(f"channel {i}" for i in self.ids)
