"""Property tests of the table options (RULES.md §10, issue 30): 2,000 random games of each
option and of a few combinations, from seeded deals of their own pack, every move drawn at
random among the legal ones, each game played to its end.

Every move: the pack's cards are conserved and never duplicated; exactly one seat is to act and
has a legal action; its player holds cards; the limit, the attackers and (teams) the seat
hand-over and the leader/defender order are as RULES.md §10.3 says; shown cards are trumps of
the round in some hand or on the table.  At the end: the durak, or the losing team, or a draw,
as §7.3 and §10.3 say.  One game in 40 also gets the costly checks of ``test_properties``:
every listed action is explained as legal and applies, random and barely-illegal actions are
refused with a reason and change nothing, snapshots and replays rebuild the state, and no
observation shows a player a card they have not seen (in a team game: not even a partner's).

The moves come from ``random.Random`` seeded per game, so a failure names its game and replays.
About 35 s of CPU for the 18,000 games (measured on the shared 2-core machine).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from rules_engine import Game, Rules, deal_from_seed, observation
from rules_engine.cards import CARD_TEXT, PACK_MASK, SUIT_OF
from rules_engine.phase import Phase

from .helpers import hidden_from
from .test_properties import (
    _mutated,
    _random_action,
    check_listed,
    check_round_trips,
    refuse_unchanged,
)

GAMES = 2000
MAX_MOVES = 5000
PROFILES = ("podkidnoy", "perevodnoy", "classic")

#: Each option set: (the rules and the number of players) of game ``i``, drawn from ``rng``.
Table = Callable[[random.Random], tuple[Rules, int]]


def _rules(rng: random.Random, **fixed: object) -> Rules:
    """A profile with random overrides of the traditional options, then ``fixed``."""
    spec: dict[str, object] = {"profile": rng.choice(PROFILES)}
    if rng.random() < 0.5:
        spec["throw_in"] = rng.choice(["neighbours", "all"])
    if rng.random() < 0.5:
        spec["first_round_limit"] = rng.choice([5, 6])
    if rng.random() < 0.5:
        spec["transfer"] = rng.random() < 0.5
    spec.update(fixed)
    if fixed.get("show_trump"):
        spec["transfer"] = True
    if fixed.get("teams", "none") != "none":
        spec["transfer"] = False
    return Rules.from_spec(spec)


TABLES: dict[str, Table] = {
    "deck-24": lambda rng: (_rules(rng, deck=24), rng.randint(2, 4)),
    "deck-52": lambda rng: (_rules(rng, deck=52), rng.randint(2, 6)),
    "show-trump": lambda rng: (_rules(rng, show_trump=True), rng.randint(2, 6)),
    "teams-2x2": lambda rng: (_rules(rng, teams="2x2"), 4),
    "teams-3x3": lambda rng: (_rules(rng, teams="3x3"), 6),
    "show-trump-deck-24": lambda rng: (_rules(rng, show_trump=True, deck=24), rng.randint(2, 4)),
    "show-trump-deck-52": lambda rng: (_rules(rng, show_trump=True, deck=52), rng.randint(2, 6)),
    "teams-2x2-deck-24": lambda rng: (_rules(rng, teams="2x2", deck=24), 4),
    "teams-3x3-deck-52": lambda rng: (_rules(rng, teams="3x3", deck=52), 6),
}


def expected_attackers(game: Game) -> tuple[int, ...]:
    """RULES.md §6 and §10.3 "who adds", written out independently of the engine."""
    n, d = game.n, game.defender
    if game.rules.teams != "none":
        if game.rules.throw_in == "neighbours":
            return ((d - 1) % n, (d + 1) % n)
        order = [(game.attacker + i) % n for i in range(n)]
        return tuple(s for s in order if (s - d) % 2)
    active = [s for s in range(n) if not game.out >> s & 1]
    if game.rules.throw_in == "neighbours":
        prev = next(s for s in ((d - i) % n for i in range(1, n)) if s in active)
        nxt = next(s for s in ((d + i) % n for i in range(1, n)) if s in active)
        return (prev,) if prev == nxt else (game.attacker, nxt if prev == game.attacker else prev)
    order = [(game.attacker + i) % n for i in range(n)]
    return tuple(s for s in order if s in active and s != d)


def check_cheap(game: Game) -> None:
    """The invariants checked after every move."""
    n = game.n
    pack = PACK_MASK[game.rules.deck]
    parts = [*game.hands, sum(1 << c for c in game.stock), game.table_mask, game.discard]
    union = 0
    for part in parts:
        assert not union & part, "a card is in two places"
        union |= part
    assert union == pack, "the pack's cards, each once"
    teams = game.rules.teams != "none"
    if teams:
        for s, player in enumerate(game.played_by):
            assert (player - s) % 2 == 0, "a seat is played by its own team"
            assert player == s or game.out >> s & 1, "handed over only once out"
            if not game.finished:
                assert not game.out >> player & 1, "nobody out plays a seat"
    else:
        assert game.played_by == tuple(range(n))
    if game.finished:
        assert game.to_act is None and game.legal_codes() == ()
        assert game.phase is Phase.OVER and game.stock == [] and game.round_shown == ()
        if teams:
            evens = all(game.out >> s & 1 for s in range(0, n, 2))
            odds = all(game.out >> s & 1 for s in range(1, n, 2))
            assert evens or odds
            assert game.loser is None
            if evens and odds:
                assert game.draw and game.losers == ()
            else:
                assert not game.draw
                assert game.losers == tuple(range(1 if evens else 0, n, 2))
        else:
            active = [s for s in range(n) if not game.out >> s & 1]
            assert game.losers == tuple(active) and len(active) <= 1
            assert game.loser == (active[0] if active else None)
            assert game.draw == (not active)
        return
    seat = game.to_act
    assert seat is not None
    assert game.legal_codes(), "the seat to act always has a legal action"
    assert game.seat_hand(seat), "the seat to act is played from a hand holding cards"
    if game.stock:
        assert game.out == 0, "nobody is out while cards can be drawn"
    if teams:
        assert game.defender == (game.leader + 1) % n == (game.attacker + 1) % n
    else:
        assert not game.out >> seat & 1
    cap = game.rules.first_round_limit if game.first_round else 6
    assert 1 <= game.limit <= cap
    assert len(game.table_attacks) <= game.limit
    if not game.table_attacks:
        assert seat == game.leader
        size = game.seat_hand(game.defender).bit_count()
        assert game.limit == min(cap, size)
    if seat != game.defender:
        assert seat in game.attackers
    assert game.attackers == expected_attackers(game)
    for card in game.round_shown:
        assert game.rules.show_trump and SUIT_OF[card] == game.trump
        assert (union & ~game.discard) >> card & 1, "a shown card is in a hand or on the table"
    assert len(set(game.round_shown)) == len(game.round_shown), "a card is shown once a round"


def check_hand_over(game: Game, before: tuple[int, ...]) -> None:
    """RULES.md §10.3: a seat changes hands only when its player went out, and passes to that
    player's first partner clockwise (two seats on, then four) who still holds cards."""
    n = game.n
    for seat, (old, new) in enumerate(zip(before, game.played_by, strict=True)):
        if old == new:
            continue
        assert game.out >> old & 1
        if not game.finished:
            holders = [(old + k) % n for k in range(2, n, 2) if not game.out >> (old + k) % n & 1]
            assert new == holders[0], (seat, old, new, holders)


def check_costly(game: Game, rng: random.Random) -> None:
    """The checks of ``test_properties`` that cost a clone or a replay per move."""
    if not game.finished:
        check_listed(game)
        for make in (_random_action, _mutated):
            action = make(rng, game)
            if not game.is_legal_code(action.seat, action.code):
                refuse_unchanged(game, action)


def check_views(game: Game) -> None:
    """Snapshots and replays rebuild the game; no observation shows an unseen card."""
    check_round_trips(game)
    for seat in range(game.n):
        obs = observation(game, seat)
        text = json.dumps(obs, ensure_ascii=False)
        hidden = hidden_from(game, seat)
        for c in range(52):
            if hidden >> c & 1:
                assert CARD_TEXT[c] not in text, f"player {seat} sees {CARD_TEXT[c]}"
        assert sorted(obs["hand"]) == sorted(game.hand(seat))
        assert (obs["legal"] != []) == (seat == game.player_to_act)


def play(name: str, index: int) -> int:
    """Game ``index`` of option set ``name``, checked to its end; its number of moves."""
    rng = random.Random(f"{name}:{index}")
    rules, players = TABLES[name](rng)
    deal = deal_from_seed(players, rng.randrange(2**40), deck=rules.deck)
    game = Game(rules, deal)
    costly = index % 40 == 0
    moves = 0
    before = game.played_by
    while True:
        check_cheap(game)
        if game.played_by != before:
            check_hand_over(game, before)
            before = game.played_by
        if costly:
            check_costly(game, rng)
            if moves % 47 == 0:
                check_views(game)
        if game.finished:
            break
        codes = game.legal_codes()
        game.apply_code(codes[rng.randrange(len(codes))])
        moves += 1
        assert moves <= MAX_MOVES, f"{name} game {index} ({rules.name}) did not end"
    if costly:
        check_views(game)
    return moves


@pytest.mark.parametrize("name", sorted(TABLES))
def test_random_games_of_each_option_end_legally(name: str) -> None:
    moves = [play(name, i) for i in range(GAMES)]
    assert len(moves) == GAMES and min(moves) > 0
