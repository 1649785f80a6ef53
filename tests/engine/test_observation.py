"""Per-seat observations (RULES.md §8, SCENARIOS.md OBS): exactly what one seat may know."""

from __future__ import annotations

import json
import random

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.cards import CARD_TEXT

from .helpers import hidden_from, position, random_game

# The OBS keys of SCENARIOS.md, copied by hand, and the documented extras.
OBS_KEYS = {
    "seat", "rules", "hand", "hand_sizes", "trump", "trump_card", "stock", "discard", "table",
    "out", "leader", "attacker", "defender", "limit", "taking", "first_round", "shown",
    "history", "legal",
}  # fmt: skip
EXTRA_KEYS = {
    "round", "to_act", "known", "finished", "loser", "draw", "played_by", "round_shown", "losers",
}  # fmt: skip


def test_keys_and_values_against_state() -> None:
    game = random_game(7, seed=11)
    state = game.state_dict()
    for seat in range(3):
        obs = observation(game, seat)
        assert set(obs) >= OBS_KEYS
        assert set(obs) == OBS_KEYS | EXTRA_KEYS
        assert obs["seat"] == seat
        assert obs["rules"] == {"throw_in": "all", "first_round_limit": 6, "transfer": True}
        assert sorted(obs["hand"]) == sorted(state["hands"][seat])  # type: ignore[index]
        assert obs["hand_sizes"] == [len(h) for h in state["hands"]]  # type: ignore[union-attr]
        for key in ("trump", "trump_card", "stock", "discard", "table", "out", "leader",
                    "attacker", "defender", "limit", "taking", "first_round"):  # fmt: skip
            assert obs[key] == state[key], key
        assert obs["history"] == game.history_text()
        assert len(obs["history"]) == 7
        assert obs["shown"] == [CARD_TEXT[c] for c in game.deal.shown]
        json.dumps(obs)


def test_legal_only_for_the_seat_to_act() -> None:
    for seed in range(5):
        game = random_game(seed * 3, players=4, seed=seed, profile="classic")
        for seat in range(4):
            obs = observation(game, seat)
            if seat == game.to_act:
                assert obs["legal"] and sorted(obs["legal"]) == sorted(game.legal_text())
                assert all(text.startswith(f"{seat} ") for text in obs["legal"])
            else:
                assert obs["legal"] == []


def test_example_of_scenarios_md() -> None:
    # SCENARIOS.md's OBS example: seat 1 defends 8♥ with 9♥ J♦ 6♣ after 8♠/9♠ were discarded.
    g = position(
        ["8♥ 9♣ K♠", "9♥ J♦ 6♣", "J♥ 7♣ Q♠ 10♠"],
        trump="♦",
        discard="8♠ 9♠",
        actions=["0 attack 8♥"],
    )
    obs = observation(g, 1)
    assert sorted(obs["hand"]) == sorted(["9♥", "J♦", "6♣"])
    assert obs["hand_sizes"] == [2, 3, 4]
    assert obs["trump"] == "♦" and obs["trump_card"] is None and obs["stock"] == 0
    assert sorted(obs["discard"]) == ["8♠", "9♠"]
    assert obs["table"] == [["8♥", None]]
    assert (obs["leader"], obs["attacker"], obs["defender"], obs["limit"]) == (0, 0, 1, 3)
    assert obs["taking"] is False and obs["first_round"] is False and obs["out"] == []
    assert sorted(obs["legal"]) == ["1 defend 8♥ 9♥", "1 defend 8♥ J♦", "1 take"]


def test_no_unseen_card_of_another_seat_in_the_json() -> None:
    checked = 0
    for players in (2, 3, 4, 6):
        for seed in range(4):
            game = Game(PROFILES["perevodnoy"], deal_from_seed(players, seed))
            rng = random.Random(seed)
            while not game.finished:
                for seat in range(players):
                    text = json.dumps(observation(game, seat), ensure_ascii=False)
                    hidden = hidden_from(game, seat)
                    for c in range(36):
                        if hidden >> c & 1:
                            assert CARD_TEXT[c] not in text, (players, seed, seat, CARD_TEXT[c])
                    checked += 1
                game.apply_code(rng.choice(game.legal_codes()))
    assert checked > 700


def test_known_lists_public_cards_of_each_hand() -> None:
    # a take: the taker's picked-up cards are public (RULES.md §8)
    g = position(["7♠ 7♥ K♦", "8♣ 6♥ Q♥", "A♣ 9♦"], trump="♣", actions=["0 attack 7♠", "1 take"])
    g.apply(parse_action("0 attack 7♥"))  # 0 holds no other 7, 2 none: 1 picks up
    assert g.round == 2
    obs = observation(g, 2)
    assert sorted(obs["known"][1]) == ["7♠", "7♥"]
    assert obs["known"][0] == [] and obs["known"][2] == []
    # the lowest trump shown at the deal is public in its holder's hand
    deal = deal_from_seed(4, 3)
    game = Game(PROFILES["podkidnoy"], deal)
    low = deal.shown[0]
    obs = observation(game, (deal.leader + 1) % 4)
    assert obs["known"][deal.leader] == [CARD_TEXT[low]]
    assert obs["shown"] == [CARD_TEXT[low]]


def test_drawn_trump_card_is_known() -> None:
    g = position(
        ["7♠ 9♣", "8♠ 6♥"],
        trump="♦",
        stock="A♣ 6♦",
        actions=["0 attack 7♠", "1 defend 7♠ 8♠"],
    )
    # 0 draws A♣ then the face-up 6♦; everyone saw 6♦
    assert sorted(g.hand(0)) == sorted(["9♣", "A♣", "6♦"])
    assert observation(g, 1)["known"][0] == ["6♦"]
    assert "A♣" not in json.dumps(observation(g, 1), ensure_ascii=False)


def test_bad_seat() -> None:
    game = Game(PROFILES["classic"], deal_from_seed(3, 1))
    for seat in (-1, 3):
        with pytest.raises(ValueError):
            observation(game, seat)
