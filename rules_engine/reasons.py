"""Reasons for illegal actions: :class:`~rules_engine.messages.Message` values.

The engine explains every refusal (:meth:`rules_engine.game.Game.explain`,
:func:`rules_engine.hints.card_hints`) with a message: a key that is the English source text
with ``{placeholders}``, and typed parameters (a :class:`~rules_engine.messages.Seat` for a
player, a :class:`~rules_engine.cards.Card` for a card, an
:class:`~rules_engine.actions.ActionKind` for an action, an ``int`` for a number).  The
reader's adapter translates it; ``str(reason)`` is plain English for logs and exceptions.

``Reason`` is kept as a name for the same type, so code that annotates reasons keeps reading
well; it is not a ``str``.
"""

from __future__ import annotations

from rules_engine.messages import Message

__all__ = ["Reason"]

#: A reason is a message (the same class, not a subclass).
Reason = Message
