"""Game.from_position: an explicit position rebuilt through the public API plays exactly like
the engine's own game, and a bad position is refused with a message quoting the input."""

from __future__ import annotations

import random

import pytest

from rules_engine import PROFILES, Game, InvalidPositionError, deal_from_seed
from rules_engine.cards import card_index
from rules_engine.phase import Phase

from .helpers import mask


def _rebuild(game: Game, **overrides: object) -> Game:
    """``game``'s position through from_position, from public state only."""
    args: dict[str, object] = {
        "trump": game.trump,
        "leader": game.leader,
        "stock": list(reversed(game.stock)),
        "discard": game.discard,
        "table": [
            (a, d if d >= 0 else None)
            for a, d in zip(game.table_attacks, game.table_defences, strict=True)
        ],
        "attacker": game.attacker,
        "taking": game.taking,
        "passed": game.passed,
        "out": game.out,
        "first_round": game.first_round,
        "round": game.round,
        "public_held": game.public_held,
    }
    args.update(overrides)
    return Game.from_position(game.rules, list(game.hands), **args)  # type: ignore[arg-type]


def _diamonds_led_by_0(hands: list[str], table: list[tuple[str, str | None]], **kw: object) -> Game:
    """A podkidnoy position, trump ♦, seat 0 leading the round: hands and the table's
    (attack, defence) pairs written as card text."""
    pairs = [(card_index(a), None if d is None else card_index(d)) for a, d in table]
    return Game.from_position(
        PROFILES["podkidnoy"],
        [mask(h) for h in hands],
        trump=2,
        leader=0,
        table=pairs,
        **kw,  # type: ignore[arg-type]
    )


def test_every_reachable_position_rebuilds_and_plays_on_identically() -> None:
    rng = random.Random(5)
    checked = 0
    for i in range(120):
        rules = PROFILES[sorted(PROFILES)[i % 3]]
        game = Game(rules, deal_from_seed(2 + i % 5, 1000 + i))
        for _ in range(rng.randrange(120)):
            if game.finished:
                break
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
        if game.finished:
            continue
        rebuilt = _rebuild(game)  # validated, with the seat to act derived by the rules
        assert rebuilt.to_act == game.to_act
        assert rebuilt.phase is game.phase
        assert (rebuilt.defender, rebuilt.limit, rebuilt.attackers) == (
            game.defender,
            game.limit,
            game.attackers,
        )
        assert rebuilt.state_dict() == game.state_dict()
        assert rebuilt.legal_codes() == game.legal_codes()
        assert (rebuilt.uncovered, rebuilt.addable, rebuilt.covered_any) == (
            game.uncovered,
            game.addable,
            game.covered_any,
        )
        for _ in range(40):
            if game.finished:
                break
            code = game.legal_codes()[rng.randrange(len(game.legal_codes()))]
            game.apply_code(code)
            rebuilt.apply_code(code)
            assert rebuilt.state_dict() == game.state_dict()
            assert rebuilt.phase is game.phase
        checked += 1
    assert checked > 60


def test_a_round_start_needs_only_hands_trump_and_leader() -> None:
    g = Game.from_position(
        PROFILES["podkidnoy"], [mask("8♥ 9♣ K♠"), mask("9♥ J♦ 6♣")], trump=2, leader=0
    )
    assert (g.phase, g.to_act, g.defender, g.limit) == (Phase.LEAD, 0, 1, 3)
    assert g.shown == () and g.history == []
    with pytest.raises(InvalidPositionError, match="has no deal"):
        _ = g.deal


def test_a_mid_round_position_derives_defender_limit_and_seat_to_act() -> None:
    # 001: 0 led 8♥, 1 beat it with 9♥ and holds J♦ 6♣: 0 may add first (limit 3)
    g = _diamonds_led_by_0(["9♣ K♠", "J♦ 6♣", "9♠ J♥ 7♣ Q♠"], [("8♥", "9♥")])
    assert (g.phase, g.to_act, g.defender, g.limit) == (Phase.ADD, 0, 1, 3)
    assert g.legal_text() == ["0 attack 9♣", "0 pass"]
    passed = _diamonds_led_by_0(["9♣ K♠", "J♦ 6♣", "9♠ J♥ 7♣ Q♠"], [("8♥", "9♥")], passed=1)
    assert passed.to_act == 2
    taking = _diamonds_led_by_0(["8♣ K♠", "J♦ 6♣", "9♠ J♥ 7♣ Q♠"], [("8♥", None)], taking=True)
    assert (taking.phase, taking.to_act) == (Phase.TAKING, 0)
    assert taking.legal_text() == ["0 attack 8♣", "0 pass"]


BASE = {"trump": 2, "leader": 0}
HANDS = [mask("8♥ 9♣ K♠"), mask("9♥ J♦ 6♣")]


@pytest.mark.parametrize(
    ("kwargs", "hands", "message"),
    [
        ({}, [mask("8♥ 9♣"), mask("9♣ J♦")], r"9♣ appears twice \(hands\[0\] and hands\[1\]"),
        ({"stock": [card_index("8♥")]}, HANDS, r"card 8♥ appears twice \(hands\[0\] and stock\)"),
        ({"stock": [card_index("7♠")]}, HANDS, r"suit of the last stock card 7♠"),
        ({"trump": 7}, HANDS, r"bad trump suit 7"),
        ({"leader": 4}, HANDS, r"leader 4 is not a seat \(0..1\)"),
        ({"table": [(card_index("7♥"), card_index("6♠"))]}, HANDS, r"6♠ does not beat 7♥"),
        ({"table": [(card_index("7♥"), None)], "to_act": 0}, HANDS, r"to_act 0 is not the seat"),
        (
            {"table": [(card_index("7♥"), card_index("10♥"))], "taking": True},
            HANDS,
            "every attack is covered",
        ),
        ({"attacker": 1}, HANDS, "nobody can have taken, passed or transferred"),
        (
            {"table": [(card_index("7♥"), None)], "attacker": 1},
            [mask("8♥"), mask("J♦")],
            "these rules have no transfers",
        ),
        ({"out": 2}, HANDS, "seat 1 is out but holds cards"),
        ({"round": 0}, HANDS, "bad round number 0"),
        ({}, [mask("8♥")], "2 to 6 seats, not 1"),
    ],
)
def test_bad_positions_are_refused_quoting_the_input(
    kwargs: dict[str, object], hands: list[int], message: str
) -> None:
    args = {**BASE, **kwargs}
    with pytest.raises(InvalidPositionError, match=message):
        Game.from_position(PROFILES["podkidnoy"], hands, **args)  # type: ignore[arg-type]


def test_too_many_attacks_and_a_closed_round_are_refused() -> None:
    rules = PROFILES["podkidnoy"]
    table = [(card_index("7♥"), None), (card_index("7♠"), None)]
    with pytest.raises(InvalidPositionError, match="2 attacks on the table exceed the limit, 1"):
        Game.from_position(rules, [mask("K♠"), mask("J♦")], trump=2, leader=0, table=table)
    covered = [(card_index("7♥"), card_index("8♥"))]
    with pytest.raises(InvalidPositionError, match="nobody can act"):
        Game.from_position(rules, [mask("K♠"), mask("J♦")], trump=2, leader=0, table=covered)


def test_without_validation_the_caller_names_the_seat_to_act() -> None:
    # an AI determinization: seat 2 observes that it may add, whatever the guessed hands say
    g = _diamonds_led_by_0(["8♠ K♠", "J♦ 6♣", "8♣ J♥"], [("8♥", "9♥")], to_act=2, validate=False)
    assert g.to_act == 2 and g.legal_text() == ["2 attack 8♣", "2 pass"]
