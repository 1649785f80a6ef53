"""What an applied action did (:meth:`Game.apply <rules_engine.game.Game.apply>` returns it):
a frozen record of the action and of its public consequences, made by the engine as it
plays the action, so that nobody has to work them out again from positions or logs.

Everything here is public (RULES.md §8): the cards named are those played, picked up or
discarded in front of everyone, never a card still hidden in a hand.  The records convert
to and from JSON-safe dicts (:meth:`Played.to_dict`, :meth:`Played.from_dict`) for storage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules_engine.actions import Action, ActionKind
from rules_engine.cards import Card, parse_card
from rules_engine.errors import InvalidNotationError

__all__ = ["Played", "RoundEnd"]


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """How a round ended: beaten off (``taker`` ``None``: the table goes to the discard) or
    taken by the defender ``taker``, who picks the table up (in a team game ``taker`` is the
    defending seat: the table goes to the hand of the player who plays it, RULES.md §10.3).

    ``round``: the round's number; ``table``: the ``(attack, defence)`` pairs on the table
    at the end, in the order played, ``defence`` ``None`` for an attack left uncovered."""

    round: int
    taker: int | None
    table: tuple[tuple[Card, Card | None], ...]

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card of the table at the end, in canonical order."""
        return tuple(sorted(c for pair in self.table for c in pair if c is not None))

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "taker": self.taker,
            "table": [[str(a), None if d is None else str(d)] for a, d in self.table],
        }

    @classmethod
    def from_dict(cls, data: object) -> RoundEnd:
        """The record of :meth:`to_dict`; :class:`InvalidNotationError` if it is not one."""
        if not isinstance(data, dict):
            raise InvalidNotationError(f"a round's end must be an object, not {data!r}")
        pairs = data.get("table")
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 for p in pairs
        ):
            raise InvalidNotationError(f"a round's table must be a list of pairs, not {pairs!r}")
        return cls(
            round=_whole(data.get("round"), "round"),
            taker=_seat_or_none(data.get("taker"), "taker"),
            table=tuple((parse_card(a), None if d is None else parse_card(d)) for a, d in pairs),
        )


@dataclass(frozen=True, slots=True)
class Played:
    """One applied action and what followed from it at once.

    - ``seat``, ``kind``, ``cards``: the action (:class:`~rules_engine.actions.Action`);
    - ``uses``: the cards of the seat's hand the action used (:attr:`Action.uses`);
    - ``opening``: an attack that opened its round (the lead);
    - ``throw_in``: an attack added after the defender declared a take: its cards go to the
      taker with the rest, they are not to be beaten;
    - ``target``: the seat an attack is played against (the taker of a throw-in), or the new
      defender of a transfer or a show; ``None`` for a defence, a take and a pass;
    - ``round_end``: the round this action closed, if it closed one (then everyone has drawn
      and the next round has begun, unless the game is over);
    - ``out``: the seats that went out of the game with it (they hold no card and the stock
      is empty; in a team game the players, whose seats partners play on);
    - ``game_over``: the action ended the game; ``loser``: then the durak's seat, ``None``
      for a draw and in a team game; ``losers``: then the durak's seat alone, or every seat
      of the losing team (RULES.md §10.3), empty for a draw.
    """

    seat: int
    kind: ActionKind
    cards: tuple[Card, ...]
    # Compared but not hashed: the action's own fields tell records apart, and keep hashing
    # cheap where records are cache keys.
    uses: tuple[Card, ...] = field(hash=False)
    opening: bool = False
    throw_in: bool = False
    target: int | None = None
    round_end: RoundEnd | None = field(default=None, hash=False)
    out: tuple[int, ...] = field(default=(), hash=False)
    game_over: bool = False
    loser: int | None = None
    losers: tuple[int, ...] = field(default=(), hash=False)

    @classmethod
    def of(cls, action: Action) -> Played:
        """``action`` alone, without what followed it (for records kept before they held
        their consequences)."""
        return cls(action.seat, action.kind, action.cards, action.uses)

    @property
    def action(self) -> Action:
        """The action played, as the engine takes it."""
        return Action(self.seat, self.kind, self.cards)

    @property
    def text(self) -> str:
        """Canonical action text without the seat, e.g. ``defend 8♥ 9♥``."""
        return " ".join((self.kind.value, *map(str, self.cards)))

    @property
    def draw(self) -> bool:
        """The action ended the game with nobody left holding cards."""
        return self.game_over and self.loser is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; the consequences that did not happen are left out."""
        data: dict[str, Any] = {
            "seat": self.seat,
            "kind": self.kind.value,
            "cards": [str(c) for c in self.cards],
            "uses": [str(c) for c in self.uses],
        }
        if self.opening:
            data["opening"] = True
        if self.throw_in:
            data["throw_in"] = True
        if self.target is not None:
            data["target"] = self.target
        if self.round_end is not None:
            data["round_end"] = self.round_end.to_dict()
        if self.out:
            data["out"] = list(self.out)
        if self.game_over:
            data["game_over"] = True
            data["loser"] = self.loser
            if self.losers != _one(self.loser):  # a team game's losing team
                data["losers"] = list(self.losers)
        return data

    @classmethod
    def from_dict(cls, data: object) -> Played:
        """The record of :meth:`to_dict`; :class:`InvalidNotationError` if it is not one."""
        if not isinstance(data, dict):
            raise InvalidNotationError(f"a played action must be an object, not {data!r}")
        try:
            kind = ActionKind(data.get("kind", ""))
        except ValueError:
            raise InvalidNotationError(f"unknown action {data.get('kind')!r}") from None
        round_end = data.get("round_end")
        out = data.get("out", [])
        if not isinstance(out, list):
            raise InvalidNotationError(f"out must be a list of seats, not {out!r}")
        seat = _seat_or_none(data.get("seat"), "seat")
        if seat is None:
            raise InvalidNotationError("a played action names its seat")
        loser = _seat_or_none(data.get("loser"), "loser")
        losers = data.get("losers")
        if losers is not None and not isinstance(losers, list):
            raise InvalidNotationError(f"losers must be a list of seats, not {losers!r}")
        cards = _cards(data.get("cards"), "cards")
        action = Action(seat, kind, cards)  # checks the cards fit the kind
        return cls(
            seat=seat,
            kind=kind,
            cards=action.cards,
            uses=_cards(data.get("uses"), "uses"),
            opening=_flag(data.get("opening", False), "opening"),
            throw_in=_flag(data.get("throw_in", False), "throw_in"),
            target=_seat_or_none(data.get("target"), "target"),
            round_end=None if round_end is None else RoundEnd.from_dict(round_end),
            out=tuple(_whole(s, "out") for s in out),
            game_over=_flag(data.get("game_over", False), "game_over"),
            loser=loser,
            losers=_one(loser) if losers is None else tuple(_whole(s, "losers") for s in losers),
        )


def _one(seat: int | None) -> tuple[int, ...]:
    """The losers of an individual game whose durak is ``seat`` (none: a draw)."""
    return () if seat is None else (seat,)


def _whole(value: object, what: str) -> int:
    if type(value) is not int or value < 0:
        raise InvalidNotationError(f"{what} must be a whole number, not {value!r}")
    return value


def _seat_or_none(value: object, what: str) -> int | None:
    return None if value is None else _whole(value, what)


def _flag(value: object, what: str) -> bool:
    if type(value) is not bool:
        raise InvalidNotationError(f"{what} must be true or false, not {value!r}")
    return value


def _cards(value: object, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise InvalidNotationError(f"{what} must be a list of cards, not {value!r}")
    return tuple(parse_card(c) for c in value)
