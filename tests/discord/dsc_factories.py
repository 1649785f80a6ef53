"""Views for the renderer tests: from real engine games (as the service builds them) and
synthetic extremes (long names, 30+ card hands, long histories)."""

from __future__ import annotations

import random
import time

from bot import view_builders
from bot.player_records import LeaderboardRow, ProfileStats
from bot.seating import LobbyOptions, LobbySeat
from bot.state import ChannelState, GameState
from bot.storage import SeriesRecord
from bot.views import (
    ActionChoice,
    ActionRecord,
    HandCard,
    HandView,
    LeaderboardPage,
    LobbyView,
    Role,
    SeriesEntry,
    SeriesView,
    StatsView,
    TableView,
)
from rules_engine import PROFILES, Action, ActionKind, Game, Played, Rules, deal_from_seed
from rules_engine.cards import Card, parse_card
from rules_engine.messages import Message

LONG = "Ẅ" * 30 + "_*`~|>@everyone<@123>" + "x" * 13  # 64 chars of awkward markdown
RANKS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("♠", "♥", "♦", "♣")
DECK = tuple(r + s for s in SUITS for r in RANKS)
NOW = 1_800_000_000.0


def names(n: int, long: bool = False) -> list[str]:
    return [(LONG[:60] + str(i)) if long else f"Player {i}" for i in range(n)]


def series_view(n: int, long: bool = False, games: int = 3, active: bool = True) -> SeriesView:
    return SeriesView(
        channel_id=10,
        series_id=5,
        rules=PROFILES["podkidnoy"],
        games=games,
        draws=1,
        active=active,
        standings=tuple(
            SeriesEntry(i, 100 + i, nm, "expert" if i == n - 1 else None, i * 7)
            for i, nm in enumerate(names(n, long))
        ),
        last_loser=n - 1,
    )


def _recent(game: Game) -> tuple[ActionRecord, ...]:
    return tuple(ActionRecord(Played.of(a)) for a in game.log()[-6:])


def _channel(
    game: Game,
    *,
    long: bool,
    game_id: int,
    humans_only: bool,
    recent: tuple[ActionRecord, ...] | None,
) -> ChannelState:
    """The service's state for ``game``: every third seat an AI (unless ``humans_only``),
    seat 2 on autopilot, a human's turn timing out at ``NOW + 60``."""
    n = game.n
    seats = [
        LobbySeat(100 + i, name, None) if humans_only or i % 3 else LobbySeat(None, name, "counter")
        for i, name in enumerate(names(n, long))
    ]
    series = SeriesRecord(
        id=5,
        channel_id=10,
        guild_id=1,
        host_id=101,
        host_name="Host",
        options=LobbyOptions(),
        rules=game.rules.to_dict(),
        profile=game.rules.profile or "custom",
        seats=seats,
        losses=list(range(n)),
        games=3,
        draws=1,
        last_loser=n - 1,
    )
    state = GameState(
        game_id,
        game,
        seed=0,
        started_at=0.0,
        deadline=NOW + 60,
        timeouts=[0] * n,
        autopilot=[i == 2 for i in range(n)],
        recent=_recent(game) if recent is None else recent,
    )
    return ChannelState(10, 1, series=series, rules=game.rules, turn_timeout=60, game=state)


def table_view(
    game: Game,
    *,
    long: bool = False,
    game_id: int = 42,
    recent: tuple[ActionRecord, ...] | None = None,
) -> TableView:
    """The table the service shows for ``game`` (built by the service's own builder)."""
    return view_builders.table_view(
        _channel(game, long=long, game_id=game_id, humans_only=False, recent=recent)
    )


def hand_view(game: Game, seat: int, *, game_id: int = 42) -> HandView:
    """The hand the service shows ``seat`` (built by the service's own builder)."""
    ch = _channel(game, long=False, game_id=game_id, humans_only=True, recent=None)
    assert ch.game is not None
    return view_builders.hand_view(ch, ch.game, seat)


def played_games(count: int, seed: int = 0):
    """Yield (game, step) along random playthroughs of every profile and table size; the
    random policy prefers attacks and transfers so that tables and hands grow."""
    rng = random.Random(seed)
    profiles = list(PROFILES.values())
    for i in range(count):
        rules = profiles[i % len(profiles)]
        players = 2 + i % 5
        game = Game(rules, deal_from_seed(players=players, seed=seed * 1000 + i))
        step = 0
        yield game, step
        while not game.finished and step < 400:
            actions = list(game.legal_actions())
            multi = [
                a for a in actions if a.kind.value in ("transfer", "attack") and len(a.cards) > 1
            ]
            take = [a for a in actions if a.kind.value == "take"]
            r = rng.random()
            if multi and r < 0.5:
                action = rng.choice(multi)
            elif take and r < 0.4:
                action = take[0]
            else:
                action = rng.choice(actions)
            game.apply(action)
            step += 1
            yield game, step


def big_hand(n_cards: int, *, your_turn: bool = True, seed: int = 1) -> HandView:
    """A synthetic hand of ``n_cards`` (up to 35) with a realistic mix of legal actions: the
    defender facing several attacks, with transfers."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    table = deck[:1]
    hand = deck[1 : 1 + n_cards]
    trump = "♦"
    order = {s: i for i, s in enumerate(SUITS)}
    hand.sort(key=lambda c: (c[-1] == trump, order[c[-1]], RANKS.index(c[:-1])))
    legal: list[ActionChoice] = []
    attack = table[0]
    if your_turn:
        for c in hand:
            a_rank, a_suit = attack[:-1], attack[-1]
            beats = (c[-1] == a_suit and RANKS.index(c[:-1]) > RANKS.index(a_rank)) or (
                c[-1] == trump and a_suit != trump
            )
            if beats:
                legal.append(_choice(ActionKind.DEFEND, (parse_card(attack), parse_card(c))))
        same = [c for c in hand if c[:-1] == attack[:-1]]
        for k in range(1, len(same) + 1):
            for combo in _combos(same, k):
                legal.append(_choice(ActionKind.TRANSFER, tuple(map(parse_card, combo))))
        legal.append(_choice(ActionKind.TAKE, ()))
    playable = {str(c) for a in legal for c in a.uses}
    cards = tuple(
        HandCard(
            parse_card(c),
            c[-1] == trump,
            None
            if c in playable
            else Message(
                "{card} does not beat {attack}", card=parse_card(c), attack=parse_card(attack)
            ),
        )
        for c in hand
    )
    return HandView(
        channel_id=10,
        game_id=123456789012345678,
        user_id=99,
        seat=1,
        name=LONG,
        version=987654,
        cards=cards,
        legal=tuple(legal),
        your_turn=your_turn,
        role=Role.DEFENDER,
        trump=trump,
        deadline=time.time() + 60 if your_turn else None,
        autopilot=False,
        finished=False,
    )


def _choice(kind: ActionKind, cards: tuple[Card, ...]) -> ActionChoice:
    """The choice of an action of ``kind`` with ``cards``, as the engine makes it."""
    return ActionChoice.of(Action(0, kind, cards))


def _combos(items: list[str], k: int) -> list[tuple[str, ...]]:
    from itertools import combinations

    return list(combinations(items, k))


def attack_hand() -> HandView:
    """A leader holding all four eights and more: attacks alone and in combinations."""
    hand = ["8♠", "9♠", "8♥", "Q♥", "8♦", "8♣"]
    legal = []
    for k in range(1, 5):
        for combo in _combos([c for c in hand if c.startswith("8")], k):
            legal.append(_choice(ActionKind.ATTACK, tuple(map(parse_card, combo))))
    for c in ("9♠", "Q♥"):
        legal.append(_choice(ActionKind.ATTACK, (parse_card(c),)))
    return HandView(
        channel_id=10,
        game_id=7,
        user_id=99,
        seat=0,
        name="A",
        version=0,
        cards=tuple(HandCard(parse_card(c), c[-1] == "♣", None) for c in hand),
        legal=tuple(legal),
        your_turn=True,
        role=Role.LEADER,
        trump="♣",
        deadline=NOW,
        autopilot=False,
        finished=False,
    )


def lobby_view(
    n_seats: int, *, status: str = "open", long: bool = False, max_seats: int = 6
) -> LobbyView:
    seats = tuple(
        LobbySeat(None if i % 2 else 100 + i, nm, "expert" if i % 2 else None)
        for i, nm in enumerate(names(n_seats, long))
    )
    return LobbyView(
        channel_id=123456789012345678,
        guild_id=1,
        host_id=100,
        host_name=LONG if long else "Host",
        status=status,  # type: ignore[arg-type]
        rules=(
            Rules(throw_in="all", first_round_limit=5, transfer=True)
            if long
            else PROFILES["podkidnoy"]
        ),
        profile="podkidnoy",
        turn_timeout=60,
        max_seats=max_seats,
        seats=seats,
        can_start=2 <= n_seats <= max_seats and status == "open",
    )


def stats_view(n_profiles: int = 3, long: bool = False, games: int = 12) -> StatsView:
    return StatsView(
        guild_id=1,
        user_id=100,
        name=LONG if long else "Alice",
        profile=None,
        games=games,
        losses=games // 3,
        draws=1,
        by_profile=tuple(
            ProfileStats(f"profile{i}" + ("x" * 50 if long else ""), 4, 1, 0)
            for i in range(n_profiles)
        ),
    )


def leaderboard(rows: int, long: bool = False) -> LeaderboardPage:
    return LeaderboardPage(
        guild_id=1,
        profile="perevodnoy",
        min_games=3,
        page=2,
        pages=9,
        per_page=rows,
        total_players=rows * 9,
        rows=tuple(
            LeaderboardRow(10 + i, 100 + i, (LONG if long else f"P{i}"), 50 + i, i, 2, i / (50 + i))
            for i in range(rows)
        ),
    )


def option_game(spec: dict[str, object], players: int, wanted, seed: int = 0) -> Game:
    """A game of the rules ``spec`` (a profile with table options) played at random from
    seeded deals until ``wanted(game)`` holds (a show is legal, a seat was handed over, the
    game is over, ...)."""
    rules = Rules.from_spec(spec, players=players)
    rng = random.Random(seed)
    for attempt in range(200):
        game = Game(rules, deal_from_seed(players=players, seed=seed + attempt, deck=rules.deck))
        for _ in range(600):
            if wanted(game):
                return game
            if game.finished:
                break
            game.apply(rng.choice(list(game.legal_actions())))
    raise AssertionError(f"no game of {spec} reached the wanted position")


def can_show(game: Game) -> bool:
    """Whether the seat to act may show a trump now."""
    return not game.finished and any(a.kind is ActionKind.SHOW for a in game.legal_actions())
