"""The AI levels and the table options (RULES.md §10): every level plays every option legally,
the card counting knows the game's pack and the shown trumps, and in team games the search
scores its team's result."""

from __future__ import annotations

import random

import pytest

from rules_engine import Game, Rules, deal_from_seed, observation, parse_action
from rules_engine.actions import SHOW as SHOW_CODE
from rules_engine.ai import LEVELS, make_agent
from rules_engine.ai.counter import Counting, perfect_hands
from rules_engine.ai.expert import ExpertAgent
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.tracker import Tracker
from rules_engine.cards import PACK_MASK, card_index

from .ai_support import FAST

SHOW = Rules.from_spec({"profile": "perevodnoy", "show_trump": True})
#: (name, rules, players): every option alone and a few together.
TABLES = [
    ("deck-24", Rules(deck=24), 4),
    ("deck-52", Rules.from_spec({"profile": "classic", "deck": 52}), 3),
    ("show-trump", SHOW, 3),
    (
        "show-trump-2p-52",
        Rules.from_spec({"profile": "perevodnoy", "show_trump": True, "deck": 52}),
        2,
    ),
    ("teams-2x2", Rules(teams="2x2"), 4),
    ("teams-3x3", Rules.from_spec({"profile": "classic", "teams": "3x3"}), 6),
    ("teams-2x2-24", Rules(teams="2x2", deck=24), 4),
]


def _game(rules: Rules, players: int, seed: int) -> Game:
    return Game(rules, deal_from_seed(players, seed, deck=rules.deck))


def _random_positions(rules: Rules, players: int, count: int, seed: int) -> list[Game]:
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = _game(rules, players, rng.randrange(10**9))
        for _ in range(rng.randrange(150)):
            if game.finished:
                break
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
        if not game.finished:
            games.append(game)
    return games


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("name", "rules", "players"), TABLES, ids=[t[0] for t in TABLES])
def test_every_level_plays_every_option_legally(
    level: str, name: str, rules: Rules, players: int
) -> None:
    """Whole games, every player an agent of ``level`` (which acts for the seats handed to it),
    then random positions."""
    games = 1 if level == "expert" else 2
    for seed in range(games):
        game = _game(rules, players, 500 + seed)
        agents = [make_agent(level, seed=s, **FAST.get(level, {})) for s in range(players)]
        moves = 0
        while not game.finished:
            player = game.player_to_act
            assert player is not None
            obs = observation(game, player)
            text = agents[player].choose(obs)
            assert text in obs["legal"], (name, level, text, obs["legal"])
            game.apply(parse_action(text))
            moves += 1
            assert moves < 3000
    for i, game in enumerate(_random_positions(rules, players, 6 if level == "expert" else 40, 7)):
        player = game.player_to_act
        assert player is not None
        obs = observation(game, player)
        choice = make_agent(level, seed=i, **FAST.get(level, {})).choose(obs)
        assert choice in obs["legal"], (name, level, choice, obs["legal"])


@pytest.mark.parametrize(("name", "rules", "players"), TABLES, ids=[t[0] for t in TABLES])
def test_the_public_replay_follows_every_option(name: str, rules: Rules, players: int) -> None:
    """The tracker replays the history of option games to the observed state, and the cards
    it says a player holds are in that player's hand."""
    for game in _random_positions(rules, players, 60, 11):
        for player in range(players):
            obs = observation(game, player)
            del obs["known"]  # the tracker must find them from the history alone
            tracker = Tracker(ParsedObservation(obs))
            assert tracker.ok, name
            for p, held in enumerate(tracker.has()):
                assert held & ~game.hands[p] == 0, (name, p)


@pytest.mark.parametrize("deck", [24, 52])
def test_the_counter_counts_the_games_pack(deck: int) -> None:
    for game in _random_positions(Rules(deck=deck), 3, 30, deck):
        player = game.player_to_act
        assert player is not None
        view = ParsedObservation(observation(game, player))
        counting = Counting(view)
        hidden = sum(h for p, h in enumerate(game.hands) if p != player)
        hidden |= sum(1 << c for c in game.stock)
        assert counting.unseen & ~PACK_MASK[deck] == 0
        # every card it cannot place is really out of its sight, and vice versa
        assert counting.unseen | hidden == hidden | counting.unseen
        assert counting.unseen & ~hidden == 0


def test_a_shown_trump_is_a_known_card_of_its_holder() -> None:
    """Found from the history alone (no ``known`` key), until the card leaves that hand."""
    shows = 0
    rng = random.Random(5)
    for seed in range(40):
        game = _game(SHOW, 3, seed)
        while not game.finished:
            legal = game.legal_codes()
            shown = [c for c in legal if c & 7 == SHOW_CODE]
            game.apply_code(shown[0] if shown else legal[rng.randrange(len(legal))])
            if not shown:
                continue
            shower = game.attacker
            card = (shown[0] >> 3).bit_length() - 1
            obs = observation(game, (shower + 1) % 3)
            del obs["known"]
            counting = Counting(ParsedObservation(obs))
            assert counting.has[shower] >> card & 1
            assert not counting.unseen >> card & 1
            shows += 1
    assert shows >= 10


def test_the_exact_solver_is_kept_to_the_traditional_game() -> None:
    """Shown trumps and teams are not in the two-player solver's rules: it is not asked."""
    hands = [1 << card_index("9♣"), 1 << card_index("10♣")]
    discard = PACK_MASK[36] & ~(hands[0] | hands[1])
    for rules in (SHOW, Rules()):
        game = Game.from_position(rules, hands, trump=2, leader=0, discard=discard)
        view = ParsedObservation(observation(game, 0))
        assert (perfect_hands(view, Counting(view)) is None) == rules.show_trump
    team = Rules(teams="2x2")
    four = [hands[0], hands[1], 1 << card_index("J♣"), 1 << card_index("Q♣")]
    discard &= ~(four[2] | four[3])
    game = Game.from_position(team, four, trump=2, leader=0, discard=discard)
    view = ParsedObservation(observation(game, 0))
    assert perfect_hands(view, Counting(view)) is None


def test_the_expert_scores_its_teams_result() -> None:
    """A finished team game is worth 1 to every player of the winning team (even one still
    holding cards), 0 to every player of the losing team (even one who went out first), 1/2
    to all after a draw."""
    expert = ExpertAgent(seed=1, iterations=1)
    rules = Rules(teams="2x2")
    won = Game.from_position(rules, [1 << card_index("9♠"), 1 << card_index("10♠") | 1, 0,
                                     1 << card_index("Q♣")], trump=3, leader=0)  # fmt: skip
    won.apply(parse_action("0 attack 9♠"))
    won.apply(parse_action("1 defend 9♠ 10♠"))
    assert won.finished and won.losers == (1, 3)
    for me, value in ((0, 1.0), (2, 1.0), (1, 0.0), (3, 0.0)):
        assert expert._evaluate(won, me, deadline=float("inf")) == value
    draw = Game.from_position(rules, [1 << card_index("9♠"), 1 << card_index("10♠"), 0, 0],
                              trump=3, leader=0)  # fmt: skip
    draw.apply(parse_action("0 attack 9♠"))
    draw.apply(parse_action("1 defend 9♠ 10♠"))
    assert draw.draw
    assert {expert._evaluate(draw, me, deadline=float("inf")) for me in range(4)} == {0.5}
