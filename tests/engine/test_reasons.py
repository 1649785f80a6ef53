"""Reasons for illegal actions (SCENARIOS.md: "a human-readable error saying which rule forbids
it"): each names the cards, seats or numbers involved, and a refused action changes nothing."""

from __future__ import annotations

import copy

import pytest

from rules_engine import Game, IllegalActionError, parse_action, parse_card
from rules_engine.actions import ActionKind
from rules_engine.messages import Message, Seat

from .helpers import position


def refuse(game: Game, text: str, reason: str) -> Message:
    """``text`` is refused with a message whose English is exactly ``reason``, by explain and
    by apply (the error carries the same message), and changes nothing."""
    action = parse_action(text)
    before = copy.deepcopy(game.state_dict())
    version, legal, history = game.version, game.legal_codes(), list(game.history)
    message = game.explain(action)
    assert isinstance(message, Message)
    assert str(message) == reason
    assert action not in game.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert info.value.reason == message
    assert str(info.value) == reason
    assert info.value.action == action
    assert game.state_dict() == before
    assert game.version == version
    assert game.legal_codes() == legal
    assert game.history == history
    return message


def play(game: Game, *texts: str) -> None:
    for text in texts:
        action = parse_action(text)
        assert game.explain(action) is None, text
        game.apply(action)


def test_reasons_in_the_001_example() -> None:
    # RULES.md §9, 001 §7: trump ♦, defender 1 holds 9♥ J♦ 6♣ (limit 3).
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣", "9♠ J♥ 7♣ Q♠"], trump="♦")
    refuse(g, "0 pass", "the round has just begun: the leader must open it with a card")
    refuse(g, "2 attack 9♠", "seat 0 leads this round")
    refuse(g, "1 take", "seat 0 leads this round")
    refuse(g, "0 attack A♠", "A♠ is not in your hand")
    refuse(g, "0 attack 9♣ K♠", "cards played together must all be of one rank")
    refuse(g, "5 pass", "5 is not a seat of this game (seats 0–2)")
    play(g, "0 attack 8♥")
    refuse(
        g,
        "2 attack 9♠",
        "seat 1 is defending: cards are added once everything is covered or a take is declared",
    )
    refuse(g, "1 pass", "you are defending: beat an attack or take the cards")
    refuse(g, "1 defend 8♥ 6♣", "6♣ does not beat 8♥: it takes a higher ♥ or a trump (♦)")
    refuse(g, "1 defend 7♥ 9♥", "7♥ is not an attack on the table")
    refuse(g, "1 defend 8♥ 10♥", "10♥ is not in your hand")
    refuse(g, "1 transfer 9♥", "transfers are not allowed in these rules")
    play(g, "1 defend 8♥ 9♥")
    refuse(g, "1 take", "everything is covered: seat 0 may add cards or pass")
    refuse(g, "2 attack 9♠", "seat 0 adds first: seat 2 may add after seat 0 passes")
    refuse(g, "0 attack K♠", "no K on the table: you may add only ranks already there (8, 9)")
    refuse(g, "0 attack 9♥", "9♥ is on the table")
    refuse(g, "0 take", "only the defender, seat 1, can take")
    refuse(g, "0 defend 8♥ 9♣", "only the defender, seat 1, can defend")
    play(g, "0 pass")
    refuse(g, "0 attack 9♣", "seat 0 has passed: you may add again after the defender's next move")
    play(g, "2 attack 9♠", "1 defend 9♠ J♦", "0 pass", "2 attack J♥")
    refuse(g, "1 defend J♥ 6♣", "6♣ does not beat J♥: it takes a higher ♥ or a trump (♦)")
    play(g, "1 take")  # the limit (3) is reached: the round closes at once
    assert g.round == 2 and g.leader == 2
    refuse(g, "0 attack 9♣", "seat 2 leads this round")


def test_trump_and_same_suit_reasons() -> None:
    g = position(["10♠ 9♥", "J♥ 9♠ 6♥ A♣"], trump="♠", actions=["0 attack 10♠"])
    refuse(g, "1 defend 10♠ J♥", "J♥ does not beat 10♠: a trump is beaten only by a higher trump")
    refuse(g, "1 defend 10♠ 9♠", "9♠ does not beat 10♠: a trump is beaten only by a higher trump")
    g = position(["9♥ K♣", "6♥ A♣ Q♦"], trump="♠", actions=["0 attack 9♥"])
    refuse(g, "1 defend 9♥ 6♥", "6♥ does not beat 9♥: it must be a higher ♥")
    refuse(g, "1 defend 9♥ A♣", "A♣ does not beat 9♥: it takes a higher ♥ or a trump (♠)")


def test_already_covered() -> None:
    g = position(["8♥ 8♣", "9♥ 10♥ J♣"], trump="♠", actions=["0 attack 8♥ 8♣", "1 defend 8♥ 9♥"])
    refuse(g, "1 defend 8♥ 10♥", "8♥ is already covered by 9♥")
    refuse(g, "1 defend 8♣ 9♥", "9♥ is on the table")


def test_limit_reasons() -> None:
    g = position(["7♠ 7♥ 7♦ 7♣ K♥", "8♠ 9♥ 10♦"], trump="♠")
    refuse(g, "0 attack 7♠ 7♥ 7♦ 7♣", "the limit is 3 attacks this round")
    play(g, "0 attack 7♠", "1 take")
    refuse(g, "0 attack 7♥ 7♦ 7♣", "the limit is 3 attacks this round: 2 more at most")
    refuse(g, "1 take", "you have declared a take: the attackers may add cards before you pick up")
    refuse(
        g,
        "1 defend 7♠ 8♠",
        "you have declared a take: the attackers may add cards before you pick up",
    )


def test_transfer_reasons() -> None:
    g = position(["9♣ 9♥ K♠", "9♦ 8♠ Q♥ 10♠", "9♠ A♥ 6♦"], trump="♥", rules="perevodnoy")
    play(g, "0 attack 9♣")
    refuse(g, "1 pass", "you are defending: beat an attack, take the cards, or transfer")
    refuse(g, "1 transfer 10♠", "a transfer must use the attacked rank, 9")
    refuse(g, "1 transfer 9♠", "9♠ is not in your hand")
    refuse(
        g,
        "0 transfer 9♥",
        "seat 1 is defending: cards are added once everything is covered or a take is declared",
    )
    play(g, "1 transfer 9♦")
    assert (g.attacker, g.defender, g.limit) == (1, 2, 3)
    # A kept two cards after leading: a third attack does not fit (RULES.md §9, 000 §8)
    refuse(g, "2 transfer 9♠", "seat 0 holds 2 cards: a transfer would make 3 attacks")
    play(g, "2 defend 9♣ A♥")
    refuse(g, "2 transfer 9♠", "no transfer after the first defence of a round")


def test_transfer_reason_singular_card() -> None:
    g = position(["9♣ K♠", "9♦ 8♠", "9♠ 9♥ A♥"], trump="♥", rules="perevodnoy")
    play(g, "0 attack 9♣", "1 transfer 9♦")
    refuse(g, "2 transfer 9♠", "seat 0 holds 1 card: a transfer would make 3 attacks")


def test_neighbours_and_skipped_seat_reasons() -> None:
    g = position(["8♠ 8♣", "9♠ K♥ Q♥", "6♣ 8♥", "8♦ 7♣"], trump="♣", actions=["0 attack 8♠"])
    play(g, "1 defend 8♠ 9♠")
    refuse(
        g, "3 attack 8♦", "seat 3 is not a neighbour of the defender: only the neighbours add cards"
    )
    g = position(["8♠ 8♣", "9♠ K♥ Q♥", "6♣", "8♦ 7♣"], trump="♥", rules="classic")
    play(g, "0 attack 8♠", "1 defend 8♠ 9♠")
    assert g.to_act == 0
    reason = g.explain(parse_action("2 attack 6♣"))
    # seat 2 holds no 8 or 9: it is skipped; the reason says so (it does not name the seat)
    assert reason == Message("you hold no card of a rank on the table")
    refuse(g, "2 attack 6♣", str(reason))


def test_out_and_finished_reasons() -> None:
    g = position(["7♠", "8♠", "", "9♥"], trump="♦")
    refuse(g, "2 pass", "seat 2 is out of this game")
    g = position(["7♥", "9♥ 6♠"], trump="♠", actions=["0 attack 7♥", "1 defend 7♥ 9♥"])
    assert g.finished and g.loser == 1
    refuse(g, "1 attack 6♠", "the game is over")
    refuse(g, "0 pass", "the game is over")


def test_reasons_carry_players_cards_and_actions_as_typed_values() -> None:
    g = position(["8♥ 9♣ K♠", "9♥ J♦ 6♣", "9♠ J♥ 7♣ Q♠"], trump="♦")
    assert refuse(g, "2 attack 9♠", "seat 0 leads this round") == Message(
        "{leader} leads this round", leader=Seat(0)
    )
    assert refuse(g, "0 attack A♠", "A♠ is not in your hand") == Message(
        "{card} is not in your hand", card=parse_card("A♠")
    )
    assert refuse(g, "5 pass", "5 is not a seat of this game (seats 0–2)") == Message(
        "{number} is not a seat of this game (seats 0–{last})", number=5, last=2
    )
    play(g, "0 attack 8♥", "1 defend 8♥ 9♥")
    assert refuse(g, "0 take", "only the defender, seat 1, can take") == Message(
        "only the defender, {defender}, can {action}", defender=Seat(1), action=ActionKind.TAKE
    )
    first = refuse(g, "2 attack 9♠", "seat 0 adds first: seat 2 may add after seat 0 passes")
    assert first.as_dict() == {"first": Seat(0), "player": Seat(2)}


def test_every_reason_of_random_play_is_a_typed_message() -> None:
    """Reasons met in random games: messages whose keys never say "seat {x}" (the placeholder
    is the player) and whose parameters are typed values."""
    import random

    from rules_engine import PROFILES, Action, deal_from_seed
    from rules_engine.cards import ALL_CARDS, Card

    rng = random.Random(3)
    keys: set[str] = set()
    for i in range(15):
        rules = PROFILES[sorted(PROFILES)[i % 3]]
        game = Game(rules, deal_from_seed(2 + i % 5, i))
        while not game.finished:
            for seat in range(game.n) if game.version % 4 == 0 else ():
                tries = [Action.take(seat), Action.pass_(seat)]
                for idx in range(0, 36, 5):
                    card = ALL_CARDS[idx]
                    tries += [Action.attack(seat, card), Action.transfer(seat, card)]
                    for a in game.table_attacks:
                        if a != idx:
                            tries.append(Action.defend(seat, ALL_CARDS[a], card))
                for action in tries:
                    reason = game.explain(action)
                    if reason is None:
                        continue
                    assert isinstance(reason, Message)
                    assert "seat {" not in reason.key, reason.key
                    assert str(reason)
                    for name, value in reason.items():
                        assert isinstance(value, int | str | Card | ActionKind | Seat), name
                        if name in ("player", "leader", "defender", "attacker", "first"):
                            assert isinstance(value, Seat), (reason.key, name)
                        if name in ("card", "attack", "defence"):
                            assert isinstance(value, Card), (reason.key, name)
                    keys.add(reason.key)
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
    assert len(keys) >= 20, sorted(keys)
