"""How a game ended, in words: the one sentence every surface shows for an
:class:`~bot.outcome.Outcome`, and its short form in a list of games.

- :func:`outcome_text`: "Alice is the durak!", "Team Ann & Bob lost!", "A draw: nobody is
  the durak.", "The game was stopped: no loss is recorded." (or "… no result is recorded,
  except forfeits." when a player forfeited);
- :func:`outcome_summary`: the same for a line of the history: the durak's sentence, "a
  draw", "stopped: no result".

An adapter adds its decoration around them (Discord: an emoji per :class:`~bot.outcome.Ending`
and bold) and writes the losers' names with its :class:`~present.style.Style`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.outcome import Ending, Outcome
from present.catalog import Catalog
from present.names import seat_name
from present.style import PLAIN, Style

__all__ = ["outcome_summary", "outcome_text"]


def _losers(outcome: Outcome, names: Sequence[str], t: Catalog, style: Style) -> str:
    """The sentence naming the losers of a ``durak`` ending (a team: "Team Ann & Bob
    lost!")."""
    losers = [style.name(seat_name(names, seat, t)) for seat in outcome.losers]
    if outcome.team:
        return t.fill("Team {names} lost!", names=" & ".join(losers))
    if len(losers) == 1:
        return t.fill("{name} is the durak!", name=losers[0])
    return t.fill("{names} are the durak!", names=", ".join(losers))


def outcome_text(outcome: Outcome, names: Sequence[str], t: Catalog, style: Style = PLAIN) -> str:
    """``outcome`` as one sentence; ``names`` name the seats (see the module docstring)."""
    if outcome.ending is Ending.DURAK:
        return _losers(outcome, names, t, style)
    if outcome.ending is Ending.DRAW:
        return t.gettext("A draw: nobody is the durak.")
    if outcome.forfeits:
        return t.gettext("The game was stopped: no result is recorded, except forfeits.")
    return t.gettext("The game was stopped: no loss is recorded.")


def outcome_summary(
    outcome: Outcome, names: Sequence[str], t: Catalog, style: Style = PLAIN
) -> str:
    """``outcome`` in a list of games: who lost, "a draw" or "stopped: no result"."""
    if outcome.ending is Ending.DURAK:
        return _losers(outcome, names, t, style)
    if outcome.ending is Ending.DRAW:
        return t.gettext("a draw")
    return t.gettext("stopped: no result")
