"""A finished game, move by move, rebuilt from its stored action log through the engine.

:func:`build_replay` starts a :class:`~rules_engine.game.Game` from the stored rules and deal,
applies every stored action in turn (an illegal one raises, so a replay can never show a game
that did not happen), and records a :class:`ReplayFrame` of the public and private state after
each: every hand face up, the table, the stock, who is out.  Frame 0 is the deal; frame ``i``
shows the state right after move ``i``.  Each move is also described in words as a
:class:`~rules_engine.messages.Message` naming players as :class:`~rules_engine.messages.Seat`
values, which the adapter turns into display names in the reader's language.

The replay is private to whoever opens it (the adapter sends it ephemerally): it shows every
hand, so it is built only for finished games.

The state is read only through ``Game.state_dict()`` (the documented trace shape that
snapshots are checked against), never through the engine's internal representation, so a
rewrite of the engine's internals cannot make a replay disagree; what each move did (the
round it ended and how, who went out, the result) is the engine's own record of it, the
:class:`~rules_engine.played.Played` that ``Game.apply`` returns.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.outcome import Outcome
from rules_engine.actions import Action, ActionKind, parse_action
from rules_engine.cards import Card, Suit, parse_card, parse_suit
from rules_engine.deal import Deal
from rules_engine.game import Game
from rules_engine.messages import N_, Message, Seat
from rules_engine.rules import Rules

__all__ = ["Replay", "ReplayFrame", "TablePair", "build_replay", "describe_action"]


@dataclass(frozen=True, slots=True)
class TablePair:
    """An attack on the table and the card beating it, if any."""

    attack: Card
    defence: Card | None = None


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """The game right after move :attr:`index` (frame 0: the deal, before any move).

    - ``round``: the round the move was played in (1 for the deal);
    - ``action``: the move just played, as a typed value (seat, kind, cards), ``None`` at 0;
    - ``message``: that move in words (the deal at frame 0); ``events``: what followed it in
      the same instant, in words: a pick-up or a beaten-off table when the move closed the
      round, players going out, forfeits;
    - ``hands``: every seat's cards, face up, in canonical order;
    - ``table``: the pairs on the table after the move; when the move closed the round the
      engine has already cleared it, and ``closed_table`` holds the pairs as they were at the
      close (``took`` says whether the defender picked them up);
    - ``stock``: cards left to draw; ``discard``: how many cards are out of play;
      ``trump_card``: the face-up card under the stock, if still there; ``trump``: the trump
      suit;
    - ``out``: seats out of the game; ``forfeited``: seats whose player had forfeited by then;
    - ``defender``/``to_act``: the seats defending and to act next (``None`` once finished);
    - ``outcome``: how the game ended, on the last frame only (``None`` before it);
    - ``played_by``: in a team game, who plays each seat (a partner once its player is out);
    - ``shown``: the trumps shown this round (RULES.md §10.2).
    """

    index: int
    round: int
    action: Action | None
    message: Message
    events: tuple[Message, ...]
    hands: tuple[tuple[Card, ...], ...]
    table: tuple[TablePair, ...]
    closed_table: tuple[TablePair, ...]
    took: bool
    stock: int
    discard: int
    trump_card: Card | None
    trump: Suit
    out: frozenset[int]
    forfeited: frozenset[int]
    defender: int | None
    to_act: int | None
    outcome: Outcome | None
    #: In a team game, the seat whose player plays each seat (RULES.md §10.3); empty else.
    played_by: tuple[int, ...] = ()
    #: The trumps shown this round to transfer (RULES.md §10.2), in order (the frame's
    #: ``message`` of a show names who showed it).
    shown: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Replay:
    """Every frame of one game, with navigation by move and by round.

    Navigation returns a frame index, or ``None`` when there is nowhere to go (the adapter
    disables that button).
    """

    frames: tuple[ReplayFrame, ...]

    @property
    def total(self) -> int:
        """The number of frames: the deal plus one per move."""
        return len(self.frames)

    @property
    def round_starts(self) -> tuple[int, ...]:
        """The frame of the first move of each round, in order."""
        starts: list[int] = []
        last_round = 0
        for frame in self.frames[1:]:
            if frame.round != last_round:
                starts.append(frame.index)
                last_round = frame.round
        return tuple(starts)

    def next_move(self, index: int) -> int | None:
        """The frame after ``index``."""
        return index + 1 if 0 <= index < self.total - 1 else None

    def prev_move(self, index: int) -> int | None:
        """The frame before ``index``."""
        return index - 1 if 0 < index < self.total else None

    def next_round(self, index: int) -> int | None:
        """The first move of the round after frame ``index``'s round (from the deal: the first
        move of round 2)."""
        if not 0 <= index < self.total:
            return None
        current = self.frames[index].round
        return next((s for s in self.round_starts if self.frames[s].round > current), None)

    def prev_round(self, index: int) -> int | None:
        """The first move of the round that starts before ``index``: the start of the current
        round when inside it, the previous round's start when already at one; from the first
        round, the deal (frame 0)."""
        if not 0 < index < self.total:
            return None
        starts = [s for s in self.round_starts if s < index]
        return starts[-1] if starts else 0


#: The actions that pass the attack on to a new defender: a transfer, and a show (RULES.md
#: §10.2: a transfer that keeps the shown trump).
_PASSES_ON = {
    ActionKind.TRANSFER: N_("{player} transfers the attack with {cards} to {target}"),
    ActionKind.SHOW: N_("{player} shows {cards} and passes the attack to {target}"),
}


def describe_action(action: Action, *, opening: bool = False, target: int | None = None) -> Message:
    """``action`` in words: ``opening`` tells a round's first attack from an addition, and
    ``target`` is the new defender of a transfer or a show."""
    player = Seat(action.seat)
    kind = action.kind
    if kind is ActionKind.ATTACK:
        if opening:
            return Message("{player} leads {cards}", player=player, cards=action.cards)
        return Message("{player} adds {cards}", player=player, cards=action.cards)
    if kind is ActionKind.DEFEND:
        attack, defence = action.cards
        return Message(
            "{player} beats {attack} with {defence}", player=player, attack=attack, defence=defence
        )
    passed_on = _PASSES_ON.get(kind)
    if passed_on is not None:
        if target is None:
            raise ValueError(f"a {kind} is described with its target, the new defender")
        return Message(passed_on, player=player, cards=action.cards, target=Seat(target))
    if kind is ActionKind.TAKE:
        return Message("{player} takes", player=player)
    return Message("{player} passes", player=player)


@dataclass(frozen=True, slots=True)
class _State:
    """The engine's ``Game.state_dict()`` (the trace shape of SCENARIOS.md, the same record
    snapshots are checked against) as typed values: the replay reads nothing else, so it does
    not depend on how the engine stores its state."""

    round: int
    hands: tuple[tuple[Card, ...], ...]
    table: tuple[TablePair, ...]
    stock: int
    discard: int
    trump: Suit
    trump_card: Card | None
    out: frozenset[int]
    defender: int | None
    to_act: int | None
    finished: bool
    loser: int | None
    losers: tuple[int, ...]
    team: bool
    played_by: tuple[int, ...]
    shown: tuple[Card, ...]

    @classmethod
    def of(cls, game: Game) -> _State:
        state: dict[str, Any] = game.state_dict()
        trump_card = state["trump_card"]
        return cls(
            round=int(state["round"]),
            hands=tuple(tuple(parse_card(c) for c in hand) for hand in state["hands"]),
            table=tuple(
                TablePair(parse_card(a), None if d is None else parse_card(d))
                for a, d in state["table"]
            ),
            stock=int(state["stock"]),
            discard=len(state["discard"]),
            trump=parse_suit(state["trump"]),
            trump_card=None if trump_card is None else parse_card(trump_card),
            out=frozenset(state["out"]),
            defender=state["defender"],
            to_act=state["to_act"],
            finished=bool(state["finished"]),
            loser=state["loser"],
            losers=tuple(state["losers"]),
            team=game.rules.team_game,
            played_by=tuple(state["played_by"]),
            shown=tuple(parse_card(c) for c in state["shown"]),
        )


def build_replay(
    rules: Rules,
    deal: Deal,
    actions: Iterable[str],
    forfeits: Mapping[int, int] | None = None,
) -> Replay:
    """Replay the stored ``actions`` (``"SEAT ACTION"`` text) from ``deal`` under ``rules``.

    ``forfeits`` maps a seat to the number of moves played when its player forfeited
    (``Forfeit.move``); that frame notes it and later frames list the seat in ``forfeited``.
    Raises :class:`~rules_engine.errors.DurakError` if an action is illegal, and
    :class:`ValueError` if the log does not finish the game (only finished games are replayed:
    a replay shows every hand).
    """
    left = dict(forfeits or {})
    game = Game(rules, deal)
    before = _State.of(game)
    dealt = Message("the cards are dealt: {player} leads", player=Seat(deal.leader))
    frames = [
        _frame(before, 0, 1, None, dealt, _forfeit_events(left, 0), (), False, left),
    ]
    for index, text in enumerate(actions, start=1):
        action = parse_action(text)
        played = game.apply(action)
        after = _State.of(game)
        message = describe_action(action, opening=played.opening, target=played.target)
        events: list[Message] = []
        end = played.round_end
        closed_table: tuple[TablePair, ...] = ()
        if end is not None:
            closed_table = tuple(TablePair(a, d) for a, d in end.table)
            if end.taker is not None:
                events.append(
                    Message("{player} picks up {cards}", player=Seat(end.taker), cards=end.cards)
                )
            else:
                events.append(
                    Message("the attack is beaten off: {cards} go to the discard", cards=end.cards)
                )
        events.extend(Message("{player} is out", player=Seat(seat)) for seat in played.out)
        events.extend(_forfeit_events(left, index))
        frames.append(
            _frame(
                after,
                index,
                before.round,
                action,
                message,
                events,
                closed_table,
                end is not None and end.taker is not None,
                left,
            )
        )
        before = after
    if not before.finished:
        raise ValueError("the action log does not finish the game: only finished games replay")
    return Replay(tuple(frames))


def _forfeit_events(forfeits: Mapping[int, int], index: int) -> tuple[Message, ...]:
    return tuple(
        Message("{player} forfeited: the AI plays this seat to the end", player=Seat(seat))
        for seat, move in sorted(forfeits.items())
        if move == index
    )


def _frame(
    state: _State,
    index: int,
    played_in: int,
    action: Action | None,
    message: Message,
    events: Sequence[Message],
    closed_table: tuple[TablePair, ...],
    took: bool,
    forfeits: Mapping[int, int],
) -> ReplayFrame:
    return ReplayFrame(
        index=index,
        round=played_in,
        action=action,
        message=message,
        events=tuple(events),
        hands=state.hands,
        table=state.table,
        closed_table=closed_table,
        took=took,
        stock=state.stock,
        discard=state.discard,
        trump_card=state.trump_card,
        trump=state.trump,
        out=state.out,
        forfeited=frozenset(seat for seat, move in forfeits.items() if move <= index),
        defender=state.defender,
        to_act=state.to_act,
        outcome=_outcome(state, forfeits) if state.finished else None,
        played_by=state.played_by if state.team else (),
        shown=state.shown,
    )


def _outcome(state: _State, forfeits: Mapping[int, int]) -> Outcome:
    """How the replayed game ended: the engine's durak, losing team or draw, with every
    forfeit."""
    return Outcome.of_game(state.losers, team=state.team, forfeits=forfeits)
