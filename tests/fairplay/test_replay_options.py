"""Replays of games with the table options (RULES.md §10): the pack, who showed which trump,
who plays each seat in a team game, and a team game's losing team."""

from __future__ import annotations

import random

from bot.outcome import Outcome
from bot.replay import build_replay
from rules_engine import ActionKind, Game, Rules, deal_from_seed


def _played(rules: Rules, players: int, seed: int, deck: int = 36) -> Game:
    """A seeded game to its end; shows are preferred when offered."""
    game = Game(rules, deal_from_seed(players, seed, deck=deck))
    rng = random.Random(seed)
    while not game.finished:
        legal = list(game.legal_actions())
        shows = [a for a in legal if a.kind is ActionKind.SHOW]
        game.apply(shows[0] if shows else rng.choice(legal))
    return game


def test_a_show_trump_game_replays_who_showed_what() -> None:
    rules = Rules.from_spec({"profile": "perevodnoy", "deck": 24, "show_trump": True})
    for seed in range(1, 60):
        game = _played(rules, 3, seed, deck=24)
        replay = build_replay(rules, game.deal, game.history_text())
        shows = [
            f for f in replay.frames if f.action is not None and f.action.kind is ActionKind.SHOW
        ]
        if not shows:
            continue
        frame = shows[0]
        assert frame.message.key == "{player} shows {cards} and passes the attack to {target}"
        assert frame.action is not None and frame.action.cards[0] in frame.shown
        assert sum(len(h) for h in replay.frames[0].hands) == 18 and replay.frames[0].stock == 6
        assert replay.frames[-1].outcome == Outcome.of_game(game.losers, team=False)
        return
    raise AssertionError("no seed showed a trump")


def test_a_team_game_replays_its_seats_and_its_losing_team() -> None:
    rules = Rules.from_spec({"profile": "podkidnoy", "teams": "2x2"})
    for seed in range(1, 30):
        game = _played(rules, 4, seed)
        if not game.losers:
            continue
        replay = build_replay(rules, game.deal, game.history_text())
        last = replay.frames[-1]
        assert last.outcome is not None and last.outcome.team
        assert last.outcome.losers == game.losers and len(game.losers) == 2
        assert replay.frames[0].played_by == (0, 1, 2, 3)
        assert last.played_by == game.played_by
        return
    raise AssertionError("every seeded team game was a draw")
