"""How an adapter words the service's terms (:mod:`bot.terms`): a command, a permission, a
place, a list of channels.

The service never writes an adapter's words: a message that refers to a command, a
permission or a channel carries it as a typed :class:`~rules_engine.messages.Term`.  Each
adapter defines one :class:`Wording` (Discord: ``/durak new``, "Manage Channel", ``<#123>``;
the web: its buttons' names, "here"; the terminal: its keys), and rendering a message
(:func:`present.messages.render_message`, :class:`present.catalog.Catalog`) requires one, so an
adapter cannot forget it.  A wording that misses a kind of term cannot be made: every method
here is abstract.
"""

from __future__ import annotations

import abc
from typing import Protocol

from bot.terms import ChannelList, Command, Permission, Place
from rules_engine.messages import Term

__all__ = ["Translations", "Wording"]


class Translations(Protocol):
    """The part of a gettext catalogue that rendering needs."""

    def gettext(self, message: str, /) -> str:
        """The translation of ``message``."""
        ...

    def ngettext(self, msgid1: str, msgid2: str, n: int, /) -> str:
        """The translation of ``msgid1``/``msgid2`` for the number ``n``."""
        ...

    def pgettext(self, context: str, message: str, /) -> str:
        """The translation of ``message`` in ``context``."""
        ...


class Wording(abc.ABC):
    """One adapter's words for the service's terms, in the reader's language
    (``t``: the reader's catalogue)."""

    @abc.abstractmethod
    def command(self, command: Command, t: Translations) -> str:
        """How a player gives ``command`` here (a slash command, a button's name, a key)."""

    @abc.abstractmethod
    def permission(self, permission: Permission, t: Translations) -> str:
        """The name of ``permission`` (after "a member with")."""

    @abc.abstractmethod
    def place(self, place: Place, t: Translations) -> str:
        """Where the reader is, as an adverbial phrase ("in this channel", "here")."""

    @abc.abstractmethod
    def channels(self, channels: ChannelList, t: Translations) -> str:
        """Some channels of a server (after "in")."""

    def word(self, term: Term, t: Translations) -> str:
        """``term`` in this adapter's words (:class:`TypeError` for a term this layer does not
        know: every term of the service has a method above)."""
        if isinstance(term, Command):
            return self.command(term, t)
        if isinstance(term, Permission):
            return self.permission(term, t)
        if isinstance(term, Place):
            return self.place(term, t)
        if isinstance(term, ChannelList):
            return self.channels(term, t)
        raise TypeError(f"no wording for the term {term!r}")
