"""Message values: everything a player may read leaves the engine and the service as one of these.

A :class:`Message` is a *key* (the English source text with ``{placeholders}``, which is also
the gettext ``msgid``) plus typed parameters.  It is never finished English: the reader's
adapter (Discord, terminal) translates the key into the reader's language and renders each
parameter by its type:

- :class:`Seat`: a player at the table, named by the adapter (display name, or a localised AI
  name), never "seat N";
- :class:`~rules_engine.cards.Card`, or a tuple of cards: card text;
- :class:`~rules_engine.actions.ActionKind`: the translated name of an action (``take``, ...);
- :class:`Message`: a nested message, translated the same way;
- a :class:`Term`: something of the world around the game that each adapter words its own way
  (the game service defines them: a command, a permission, a channel; the engine knows none);
- ``int``: a number (plural forms choose by the parameter named ``n`` when present);
- ``str``: a literal that is never translated (a display name).

Keys are marked for extraction where they are written: ``pybabel extract`` takes the first
argument of ``Message(...)`` (and of :func:`N_` for a key kept in a table), so the catalogues
are built from the source with no hand-kept list.

``str(message)`` gives plain English with seats as "seat N", for logs and exception text only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Union

from rules_engine.actions import ActionKind
from rules_engine.cards import Card

__all__ = ["N_", "Message", "Param", "Seat", "Term"]


def N_(key: str) -> str:
    """Mark ``key`` for extraction without building a message (for keys kept in tables)."""
    return key


@dataclass(frozen=True, slots=True)
class Seat:
    """A player referred to by seat number; the adapter turns it into that player's name."""

    index: int

    def __str__(self) -> str:
        return f"seat {self.index}"


class Term:
    """A parameter that names something outside the game (a command, a permission, a place):
    the layer that defines a term subclasses this (frozen, comparable values), and every
    reader's adapter words it in its own way.  ``str(term)`` is plain English, for logs."""

    __slots__ = ()


Param = Union[int, str, Card, tuple[Card, ...], ActionKind, Seat, Term, "Message"]


@dataclass(frozen=True, slots=True, init=False)
class Message:
    """A translatable message: ``key`` (English source with placeholders) and typed ``params``."""

    key: str
    params: tuple[tuple[str, Param], ...]

    def __init__(self, key: str, /, **params: Param) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "params", tuple(sorted(params.items())))

    def __getitem__(self, name: str) -> Param:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def __contains__(self, item: object) -> bool:
        raise TypeError("a Message is not text: test its key, or str(message) for English")

    def get(self, name: str, default: Param | None = None) -> Param | None:
        try:
            return self[name]
        except KeyError:
            return default

    def items(self) -> Iterator[tuple[str, Param]]:
        return iter(self.params)

    def as_dict(self) -> Mapping[str, Param]:
        return dict(self.params)

    def __str__(self) -> str:
        return self.key.format(**{k: _english(v) for k, v in self.params})

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params)
        return f"Message({self.key!r}{args})"


def _english(value: Param) -> str:
    if isinstance(value, tuple):
        return " ".join(str(card) for card in value)
    return str(value)
