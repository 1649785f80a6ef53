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
    ShownTrump,
    TablePair,
    TableView,
    WaitingFor,
)
from rules_engine import Game, Rules
from rules_engine.actions import ActionKind
from rules_engine.cards import ALL_CARDS, SUIT_SYMBOLS, Card, iter_bits
from rules_engine.hints import card_hints
from rules_engine.messages import Message
from rules_engine.phase import Phase

__all__ = ["hand_view", "last_losers", "lobby_view", "round_shown", "series_view", "table_view"]


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
        can_start=status == "open"
        and MIN_SEATS <= len(lobby.seats) <= lobby.options.seats
        and lobby.rules.players_error(len(lobby.seats)) is None,
        teams=lobby.rules.teams,
        team_size=lobby.options.seats // 2 if lobby.rules.team_game else 0,
    )


def series_view(s: SeriesRecord) -> SeriesView:
    """The loss counts of a series."""
    assert s.id is not None
    rules = Rules.from_spec(s.rules)
    return SeriesView(
        channel_id=s.channel_id,
        series_id=s.id,
        rules=rules,
        games=s.games,
        draws=s.draws,
        active=s.active,
        standings=tuple(
            SeriesEntry(i, seat.user_id, seat.name, seat.ai_level, s.losses[i])
            for i, seat in enumerate(s.seats)
        ),
        last_loser=s.last_loser if s.games else None,
        last_losers=last_losers(rules, len(s.seats), s.last_loser) if s.games else (),
        teams=rules.teams,
    )


def last_losers(rules: Rules, players: int, loser: int | None) -> tuple[int, ...]:
    """The seats that lost a series' last game, from its stored ``loser``: that seat, or in
    a team game every seat of its parity (the stored loser is the losing team's first seat)."""
    if loser is None:
        return ()
    if rules.team_game:
        return tuple(range(loser % 2, players, 2))
    return (loser,)


def table_view(ch: ChannelState) -> TableView:
    """The public table of the channel's current (or last finished) game."""
    g = ch.game
    series = ch.series
    assert g is not None and series is not None and series.id is not None
    game = g.game
    fin = game.finished or g.aborted
    out = game.out
    team_game = game.rules.team_game
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
                team=i % 2 if team_game else None,
                played_by=game.played_by[i],
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
        deck=game.rules.deck,
        round_shown=() if fin else round_shown(game),
    )


def round_shown(game: Game) -> tuple[ShownTrump, ...]:
    """The trumps shown this round (RULES.md §10.2), each with the player who showed it: the
    player of the seat whose ``show`` named it (the last show of that card, this round's)."""
    if not game.round_shown:
        return ()
    shower: dict[int, int] = {}
    for action in game.log():
        if action.kind is ActionKind.SHOW:
            shower[action.cards[0].index] = action.seat
    return tuple(
        ShownTrump(game.played_by[shower.get(c, 0)], ALL_CARDS[c]) for c in game.round_shown
    )


def _outcome(g: GameState) -> Outcome:
    """How ``g`` ended: stopped, else the engine's durak, losing team or draw; with its
    forfeits."""
    if g.aborted:
        return Outcome.stopped(g.forfeits)
    return Outcome.of_game(g.game.losers, team=g.game.rules.team_game, forfeits=g.forfeits)


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
    your_turn = playing and game.player_to_act == seat
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
        acting_seat=game.to_act if your_turn else None,
    )
