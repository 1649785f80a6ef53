"""hints.card_hints (why a card can or cannot be played) and hints.timeout_action (docs/RULES.md
§9, "Turn timers": a defender takes, an attacker in a throw-in window passes, a leader plays the
lowest card, the lowest non-trump if any)."""

from __future__ import annotations

import pytest

from rules_engine import Action, parse_action, parse_card
from rules_engine.hints import card_hints, timeout_action
from rules_engine.messages import Message, Seat

from .helpers import position

DEFENDING = "seat 1 is defending: cards are added once everything is covered or a take is declared"


def _hints(game, seat):  # type: ignore[no-untyped-def]
    """Hints as ``{card text: English text of the reason or None}``; every reason a Message."""
    hints = card_hints(game, seat)
    assert all(r is None or isinstance(r, Message) for r in hints.values())
    return {str(card): None if r is None else str(r) for card, r in hints.items()}


def test_hint_reasons_are_messages_with_typed_parameters() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣", "9♠ J♥ 7♣ Q♠"], trump="♦", actions=["0 attack 8♥"])
    hints = card_hints(g, 1)
    assert hints[parse_card("6♣")] == Message(
        "{card} does not beat {attack}: it takes a higher {suit} or a trump ({trump})",
        card=parse_card("6♣"),
        attack=parse_card("8♥"),
        suit="♥",
        trump="♦",
    )
    waiting = card_hints(g, 2)[parse_card("9♠")]
    assert waiting is not None
    assert waiting.key.startswith("{defender} is defending")
    assert waiting["defender"] == Seat(1)


def test_card_hints_for_the_defender_and_a_waiting_attacker() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣", "9♠ J♥ 7♣ Q♠"], trump="♦", actions=["0 attack 8♥"])
    assert _hints(g, 1) == {
        "9♥": None,
        "J♦": None,  # a trump
        "6♣": "6♣ does not beat 8♥: it takes a higher ♥ or a trump (♦)",
    }
    assert _hints(g, 0) == {"9♣": DEFENDING, "K♠": DEFENDING}
    assert _hints(g, 2) == dict.fromkeys(["9♠", "J♥", "7♣", "Q♠"], DEFENDING)


def test_card_hints_for_the_attacker_adding() -> None:
    g = position(
        ["8♥ 9♣ K♠", "9♥ J♦ 6♣", "9♠ J♥ 7♣ Q♠"],
        trump="♦",
        actions=["0 attack 8♥", "1 defend 8♥ 9♥"],
    )
    assert _hints(g, 0) == {
        "9♣": None,
        "K♠": "no K on the table: you may add only ranks already there (8, 9)",
    }
    assert _hints(g, 2)["9♠"] == "seat 0 adds first: seat 2 may add after seat 0 passes"


def test_card_hints_leader_opening_every_card_playable() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣"], trump="♦")
    assert _hints(g, 0) == {"8♥": None, "9♣": None, "K♠": None}
    assert _hints(g, 1) == dict.fromkeys(["9♥", "J♦", "6♣"], "seat 0 leads this round")


def test_card_hints_transfer_card_is_playable() -> None:
    g = position(["9♣ K♠", "9♦ 6♥ 7♥", "A♣ 8♠ 10♦"], trump="♠", rules="perevodnoy")
    g.apply(parse_action("0 attack 9♣"))
    hints = _hints(g, 1)
    assert hints["9♦"] is None  # it cannot beat 9♣, but it transfers
    assert hints["6♥"] == "6♥ does not beat 9♣: it takes a higher ♣ or a trump (♠)"


def test_card_hints_several_uncovered_attacks_name_the_first() -> None:
    g = position(["8♥ 8♣", "6♠ 10♥"], trump="♦", actions=["0 attack 8♥ 8♣"])
    hints = _hints(g, 1)
    assert hints["10♥"] is None
    assert hints["6♠"] == "6♠ does not beat 8♥: it takes a higher ♥ or a trump (♦)"


def test_card_hints_finished_game() -> None:
    g = position(["7♥", "9♥ 6♠"], trump="♠", actions=["0 attack 7♥", "1 defend 7♥ 9♥"])
    assert g.finished
    assert _hints(g, 1) == {"6♠": "the game is over"}


def test_timeout_defender_takes() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣"], trump="♦", actions=["0 attack 8♥"])
    assert timeout_action(g) == Action.take(1)
    g.apply(timeout_action(g))
    # 0 holds no other 8: the round closes at once and 1 has picked 8♥ up
    assert g.round == 2 and "8♥" in g.hand(1)


def test_timeout_attacker_in_throw_in_window_passes() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣"], trump="♦", actions=["0 attack 8♥", "1 defend 8♥ 9♥"])
    assert g.to_act == 0
    assert timeout_action(g) == Action.pass_(0)
    # also while the defender is taking
    g = position(["8♥ 8♣ K♠", "9♥ J♦ 6♣"], trump="♦", actions=["0 attack 8♥", "1 take"])
    assert g.to_act == 0
    assert timeout_action(g) == Action.pass_(0)
    g.apply(timeout_action(g))
    assert g.round == 2


@pytest.mark.parametrize(
    ("hand", "trump", "expected"),
    [
        ("9♣ 6♦ 7♠ K♥", "♦", "7♠"),  # 6♦ is a trump: the lowest non-trump
        ("A♠ Q♥ J♣", "♦", "J♣"),
        ("9♦ 6♦ A♦", "♦", "6♦"),  # only trumps: the lowest trump
        ("10♥", "♥", "10♥"),
    ],
)
def test_timeout_leader_plays_lowest_non_trump(hand: str, trump: str, expected: str) -> None:
    g = position([hand, "8♠ 9♠"], trump=trump)
    action = timeout_action(g)
    assert action == Action.attack(0, parse_card(expected))
    g.apply(action)


def test_timeout_leader_tie_is_one_card_of_the_lowest_rank() -> None:
    g = position(["7♥ 7♠ 6♦ Q♣", "8♠ 9♠"], trump="♦")
    action = timeout_action(g)
    assert action.kind == "attack" and len(action.cards) == 1
    assert str(action.cards[0]) in ("7♥", "7♠")


def test_timeout_when_finished_raises() -> None:
    g = position(["7♥", "9♥"], trump="♠", actions=["0 attack 7♥", "1 defend 7♥ 9♥"])
    assert g.finished
    with pytest.raises(ValueError):
        timeout_action(g)
