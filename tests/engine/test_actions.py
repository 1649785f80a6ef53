"""RULES.md §6.1 canonical action text, and the internal action codes."""

from __future__ import annotations

import pytest

from rules_engine import (
    ALL_CARDS,
    Action,
    ActionKind,
    InvalidNotationError,
    parse_action,
    parse_card,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0 attack 8♥", "0 attack 8♥"),
        ("2 attack 8♠ 8♥", "2 attack 8♠ 8♥"),
        ("2 attack 8♥ 8♠", "2 attack 8♠ 8♥"),  # cards of one action in canonical order
        ("1 defend 8♥ 9♥", "1 defend 8♥ 9♥"),
        ("1 defend TD QD", "1 defend 10♦ Q♦"),
        ("3 transfer 9♣ 9♦", "3 transfer 9♦ 9♣"),
        ("1 take", "1 take"),
        ("0 pass", "0 pass"),
        ("0 ATTACK ts", "0 attack 10♠"),
        ("  4   pass  ", "4 pass"),
    ],
)
def test_parse_and_str_round_trip(text: str, canonical: str) -> None:
    action = parse_action(text)
    assert str(action) == canonical
    assert parse_action(str(action)) == action
    assert Action.parse(canonical) == action


def test_parts_of_a_parsed_action() -> None:
    action = parse_action("1 defend 8♥ 9♥")
    assert action.seat == 1
    assert action.kind is ActionKind.DEFEND
    assert action.cards == (parse_card("8♥"), parse_card("9♥"))
    assert action.text == "defend 8♥ 9♥"
    # attack/defence order of a defence is kept (it is not a set)
    assert str(parse_action("1 defend 9♥ 8♥")) == "1 defend 9♥ 8♥"


def test_constructors_match_parsing() -> None:
    c = parse_card
    assert Action.attack(0, c("8♥"), c("8♠")) == parse_action("0 attack 8♠ 8♥")
    assert Action.transfer(2, c("9♦")) == parse_action("2 transfer 9♦")
    assert Action.defend(1, c("8♥"), c("9♥")) == parse_action("1 defend 8♥ 9♥")
    assert Action.take(1) == parse_action("1 take")
    assert Action.pass_(3) == parse_action("3 pass")


def _all_sample_actions() -> list[Action]:
    out: list[Action] = []
    for seat in (0, 5):
        for i in range(0, 36, 5):
            a, b = ALL_CARDS[i], ALL_CARDS[(i + 13) % 36]
            out += [
                Action.attack(seat, a),
                Action.attack(seat, a, b),
                Action.transfer(seat, *ALL_CARDS[i - i % 4 : i - i % 4 + 4]),
                Action.defend(seat, a, b),
                Action.defend(seat, b, a),
            ]
        out += [Action.take(seat), Action.pass_(seat)]
    return out


def test_code_round_trip() -> None:
    actions = _all_sample_actions()
    codes = set()
    for action in actions:
        back = Action.from_code(action.seat, action.code)
        assert back == action
        codes.add(action.code)
    # the code omits the seat only: distinct actions of one seat have distinct codes
    assert len(codes) == len({(a.kind, a.cards) for a in actions})


@pytest.mark.parametrize(
    "text",
    [
        "",
        "attack",
        "0",
        "x attack 8♥",
        "-1 pass",
        "0 fold",
        "0 attack",
        "0 attack 1♦",
        "0 attack 8♥ 8♥",
        "1 defend 8♥",
        "1 defend 8♥ 9♥ 10♥",
        "1 take 8♥",
        "0 pass 6♠",
        "1 transfer",
        "² pass",
    ],
)
def test_bad_action_text_raises(text: str) -> None:
    with pytest.raises(InvalidNotationError):
        parse_action(text)


def test_bad_action_message_quotes_input() -> None:
    with pytest.raises(InvalidNotationError) as info:
        parse_action("0 fold")
    assert "'fold'" in str(info.value)
    with pytest.raises(InvalidNotationError) as info:
        parse_action("0 attack 1♦")
    assert "'1♦'" in str(info.value)
