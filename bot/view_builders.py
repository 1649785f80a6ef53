"""Pure functions from the service's state to the frozen views of :mod:`bot.views`.

Nothing here changes state or does I/O; the service calls these under the channel's lock.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.limits import MIN_SEATS
from bot.outcome import Outcome
from bot.state import ChannelState, GameState, LobbyState
from bot.storage import SeriesRecord
from bot.views import (
    ActionChoice,
    HandCard,
    HandView,
    LobbyStatus,
    LobbyView,
    Role,
    SeatView,
    SeriesEntry,
    SeriesView,
    TablePair,
    TableView,
    WaitingFor,
)
from rules_engine import Rules
from rules_engine.cards import ALL_CARDS, SUIT_SYMBOLS, Card, iter_bits
from rules_engine.hints import card_hints
from rules_engine.messages import Message
from rules_engine.phase import Phase

__all__ = ["hand_view", "lobby_view", "series_view", "table_view"]


#: What the table waits for in each phase (a finished game waits for nothing).
_WAITING: Mapping[Phase, WaitingFor | None] = {
    Phase.LEAD: "lead",
    Phase.DEFEND: "defend",
    Phase.ADD: "add",
    Phase.TAKING: "add",
    Phase.OVER: None,
}


def _role(name: str | None) -> Role | None:
    return None if name is None else Role(name)


def lobby_view(lobby: LobbyState, status: LobbyStatus) -> LobbyView:
    """The lobby as its message shows it."""
    return LobbyView(
        channel_id=lobby.channel_id,
        guild_id=lobby.guild_id,
        host_id=lobby.host_id,
        host_name=lobby.host_name,
        status=status,
        rules=lobby.rules,
        profile=lobby.options.rules,
        turn_timeout=lobby.turn_timeout,
        max_seats=lobby.options.seats,
        seats=tuple(lobby.seats),
        can_start=status == "open" and MIN_SEATS <= len(lobby.seats) <= lobby.options.seats,
    )


def series_view(s: SeriesRecord) -> SeriesView:
    """The loss counts of a series."""
    assert s.id is not None
    return SeriesView(
        channel_id=s.channel_id,
        series_id=s.id,
        rules=Rules.from_spec(s.rules),
        games=s.games,
        draws=s.draws,
        active=s.active,
        standings=tuple(
            SeriesEntry(i, seat.user_id, seat.name, seat.ai_level, s.losses[i])
            for i, seat in enumerate(s.seats)
        ),
        last_loser=s.last_loser if s.games else None,
    )


def table_view(ch: ChannelState) -> TableView:
    """The public table of the channel's current (or last finished) game."""
    g = ch.game
    series = ch.series
    assert g is not None and series is not None and series.id is not None
    game = g.game
    fin = game.finished or g.aborted
    out = game.out
    seats = []
    for i, s in enumerate(series.seats):
        is_out = bool(out >> i & 1)
        role = None if g.aborted and not is_out else _role(game.role(i))
        seats.append(
            SeatView(
                seat=i,
                name=s.name,
                user_id=s.user_id,
                ai_level=s.ai_level,
                cards=game.hands[i].bit_count(),
                role=role,
                out=is_out,
                to_act=game.to_act == i and not fin,
                autopilot=g.autopilot[i],
                losses=series.losses[i],
                forfeited=i in g.forfeits,
            )
        )
    to_act = None if fin else game.to_act
    waiting: WaitingFor | None = None if to_act is None else _WAITING[game.phase]
    return TableView(
        channel_id=ch.channel_id,
        guild_id=series.guild_id,
        game_id=g.game_id,
        series_id=series.id,
        version=game.version,
        rules=game.rules,
        trump=SUIT_SYMBOLS[game.trump],
        trump_card=ALL_CARDS[game.stock[0]] if game.stock else None,
        shown=tuple(ALL_CARDS[c] for c in game.deal.shown),
        stock=len(game.stock),
        discard=game.discard.bit_count(),
        round=game.round,
        limit=None if fin else game.limit,
        taking=False if fin else game.taking,
        pairs=()
        if fin
        else tuple(
            TablePair(ALL_CARDS[a], ALL_CARDS[d] if d >= 0 else None)
            for a, d in zip(game.table_attacks, game.table_defences, strict=True)
        ),
        seats=tuple(seats),
        to_act=to_act,
        deadline=None if fin else g.deadline,
        turn_timeout=ch.turn_timeout,
        recent=g.recent,
        dealer=game.deal.dealer,
        outcome=_outcome(g) if fin else None,
        series=series_view(series),
        waiting_for=waiting,
        stop_vote=None if fin or g.vote is None else g.vote.tally,
        stop_vote_deadline=None if fin or g.vote is None else g.vote.deadline,
    )


def _outcome(g: GameState) -> Outcome:
    """How ``g`` ended: stopped, else the engine's durak or draw; with its forfeits."""
    if g.aborted:
        return Outcome.stopped(g.forfeits)
    if g.game.loser is None:
        return Outcome.draw(g.forfeits)
    return Outcome.durak(g.game.loser, forfeits=g.forfeits)


def hand_view(ch: ChannelState, g: GameState, seat: int) -> HandView:
    """``seat``'s private hand: its cards (why each cannot be played) and legal actions."""
    assert ch.series is not None and ch.series.id is not None
    game = g.game
    trump = game.trump
    playing = ch.playing
    hints: Mapping[Card, Message | None]
    if playing:
        hints = card_hints(game, seat)
    else:
        over = Message("the game is over")
        hints = {ALL_CARDS[c]: over for c in iter_bits(game.hands[seat])}
    cards = sorted(hints, key=lambda c: (c.suit == trump, c.suit, c.rank))
    your_turn = playing and game.to_act == seat
    legal: tuple[ActionChoice, ...] = ()
    if your_turn:
        legal = tuple(map(ActionChoice.of, game.legal_actions()))
    is_out = bool(game.out >> seat & 1)
    role = _role(game.role(seat)) if playing or is_out else None
    s = ch.series.seats[seat]
    assert s.user_id is not None
    return HandView(
        channel_id=ch.channel_id,
        game_id=g.game_id,
        user_id=s.user_id,
        seat=seat,
        name=s.name,
        version=game.version,
        cards=tuple(HandCard(c, c.suit == trump, hints[c]) for c in cards),
        legal=legal,
        your_turn=your_turn,
        role=role,
        trump=SUIT_SYMBOLS[trump],
        deadline=g.deadline if your_turn else None,
        autopilot=g.autopilot[seat],
        finished=not playing,
        series_id=ch.series.id,
    )
