"""What ``Game.apply`` returns: the engine's record of each action (the hand cards it used,
the round it ended and how, the seats that went out, the game's end), and the hand cards of
every kind of legal action (``Action.uses``)."""

from __future__ import annotations

import random

import pytest

from rules_engine import (
    PROFILES,
    Action,
    ActionKind,
    Game,
    InvalidNotationError,
    Played,
    RoundEnd,
    Rules,
    deal_from_seed,
    parse_action,
    parse_card,
)
from rules_engine.cards import ALL_CARDS, iter_bits

from .helpers import position


def cards(text: str) -> tuple:
    return tuple(parse_card(c) for c in text.split())


def play(game: Game, text: str) -> Played:
    return game.apply(parse_action(text))


# ------------------------------------------------------------------ the hand cards of actions
def test_the_hand_cards_of_every_kind_of_action() -> None:
    assert Action.attack(0, *cards("8♥ 8♠")).uses == cards("8♠ 8♥")
    assert Action.transfer(1, *cards("8♣")).uses == cards("8♣")
    assert Action.defend(1, *cards("8♥ 9♥")).uses == cards("9♥")  # not the attack it covers
    assert Action.take(1).uses == ()
    assert Action.pass_(0).uses == ()
    assert Action.show(1, *cards("8♣")).uses == cards("8♣")  # shown, and kept in the hand


def test_every_legal_action_uses_cards_of_the_hand_and_plays_exactly_those() -> None:
    """In random games of every profile (and with shown trumps): each legal action's ``uses``
    are cards of the acting hand, and applying it takes exactly those from the hand (unless
    the round ends, when the hands are refilled or a take picks the table up), except a show,
    which keeps its trump in the hand."""
    rng = random.Random(3)
    kinds: set[ActionKind] = set()
    show = Rules.from_spec({"profile": "perevodnoy", "show_trump": True})
    for i in range(80):
        rules = show if i % 4 == 3 else PROFILES[sorted(PROFILES)[i % 3]]
        game = Game(rules, deal_from_seed(2 + i % 4, 500 + i))
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            hand = game.hands[seat]
            legal = list(game.legal_actions())
            for action in legal:
                used = sum(c.mask for c in action.uses)
                assert used & hand == used, (action, game.hand(seat))
            action = rng.choice(legal)
            kinds.add(action.kind)
            played = game.apply(action)
            assert played.uses == action.uses
            if played.round_end is None:
                taken = 0 if action.kind is ActionKind.SHOW else sum(c.mask for c in action.uses)
                assert hand & ~game.hands[seat] == taken
                assert game.hands[seat] & ~hand == 0
    assert kinds == set(ActionKind)


def test_parse_action_without_the_seat() -> None:
    assert parse_action("defend 8♥ 9♥", seat=2) == Action.defend(2, *cards("8♥ 9♥"))
    assert parse_action(Action.attack(0, *cards("8♥ 8♠")).text, seat=1).uses == cards("8♠ 8♥")
    with pytest.raises(InvalidNotationError):
        parse_action("", seat=0)
    with pytest.raises(InvalidNotationError):
        parse_action("juggle 8♥", seat=0)


# ------------------------------------------------------------------ the record of each kind
def test_an_opening_attack_and_a_defence_that_beats_the_round_off() -> None:
    game = position(["8♥ K♣", "9♥ A♣"], trump="♦", stock="6♠ 7♠ 6♦")
    attack = play(game, "0 attack 8♥")
    assert attack == Played(0, ActionKind.ATTACK, cards("8♥"), cards("8♥"), opening=True, target=1)
    defence = play(game, "1 defend 8♥ 9♥")  # seat 0 holds no 8 or 9: the round is over
    assert defence.kind is ActionKind.DEFEND and defence.uses == cards("9♥")
    assert defence.target is None and not defence.opening and not defence.throw_in
    assert defence.round_end == RoundEnd(1, None, ((parse_card("8♥"), parse_card("9♥")),))
    assert defence.out == () and not defence.game_over and defence.loser is None
    assert game.round == 2


def test_a_pass_beats_the_round_off() -> None:
    game = position(["8♥ 8♠ 9♣ K♣", "9♥ 9♠ A♣"], trump="♦", stock="6♠ 7♠ 6♦")
    assert play(game, "0 attack 8♥").round_end is None
    assert play(game, "1 defend 8♥ 9♥").round_end is None  # seat 0 may add the 8♠
    added = play(game, "0 attack 8♠")
    assert not added.opening and not added.throw_in and added.target == 1
    play(game, "1 defend 8♠ 9♠")
    passed = play(game, "0 pass")  # instead of adding the 9♣
    assert passed.kind is ActionKind.PASS and passed.uses == ()
    end = passed.round_end
    assert end is not None and end.taker is None and end.round == 1
    assert end.table == (
        (parse_card("8♥"), parse_card("9♥")),
        (parse_card("8♠"), parse_card("9♠")),
    )
    assert end.cards == cards("8♠ 8♥ 9♠ 9♥")
    assert all(game.discard >> c.index & 1 for c in end.cards)


def test_a_take_and_a_throw_in_to_it() -> None:
    game = position(["8♥ 8♠ K♣", "7♣ A♠"], trump="♦", stock="6♠ 7♠ 6♦")
    play(game, "0 attack 8♥")
    take = play(game, "1 take")  # seat 0 may still add the 8♠
    assert take.kind is ActionKind.TAKE and take.uses == () and take.round_end is None
    thrown = play(game, "0 attack 8♠")
    assert thrown.throw_in and thrown.target == 1 and not thrown.opening
    end = thrown.round_end  # nothing more to add: the taker picks the table up
    assert end == RoundEnd(1, 1, ((parse_card("8♥"), None), (parse_card("8♠"), None)))
    assert all(game.hands[1] >> c.index & 1 for c in end.cards)


def test_a_take_that_ends_the_round_at_once() -> None:
    game = position(["8♥ K♣", "9♣ 7♣"], trump="♦", stock="6♠ 7♠ 6♦")
    play(game, "0 attack 8♥")
    take = play(game, "1 take")  # seat 0 has nothing to add
    assert take.round_end == RoundEnd(1, 1, ((parse_card("8♥"), None),))


def test_a_transfer_names_the_new_defender() -> None:
    game = position(
        ["8♥ K♣", "8♠ A♣", "7♣ 9♦ 10♠"], trump="♦", rules="perevodnoy", stock="6♠ 7♠ 6♦"
    )
    play(game, "0 attack 8♥")
    transfer = play(game, "1 transfer 8♠")
    assert transfer == Played(1, ActionKind.TRANSFER, cards("8♠"), cards("8♠"), target=2)
    assert game.defender == 2


def test_going_out_and_the_game_going_on() -> None:
    game = position(["8♥", "9♥ 7♣", "6♣ 7♠"], trump="♦")
    play(game, "0 attack 8♥")
    defence = play(game, "1 defend 8♥ 9♥")
    assert defence.round_end is not None and defence.round_end.taker is None
    assert defence.out == (0,) and not defence.game_over and defence.loser is None


def test_the_game_over_with_a_durak() -> None:
    game = position(["8♥", "9♥ 7♣"], trump="♦")
    play(game, "0 attack 8♥")
    last = play(game, "1 defend 8♥ 9♥")
    assert last.out == (0,) and last.game_over and last.loser == 1 and not last.draw
    assert game.finished and game.loser == 1


def test_the_game_over_in_a_draw() -> None:
    game = position(["8♥", "9♥"], trump="♦")
    play(game, "0 attack 8♥")
    last = play(game, "1 defend 8♥ 9♥")
    assert last.out == (0, 1) and last.game_over and last.loser is None and last.draw


def test_an_illegal_action_is_refused_and_records_nothing() -> None:
    game = position(["8♥ K♣", "9♥ A♣"], trump="♦", stock="6♠ 7♠ 6♦")
    before = game.state_dict()
    with pytest.raises(ValueError, match="not in your hand"):
        play(game, "0 attack A♠")
    with pytest.raises(ValueError, match="not in your hand"):
        game.push(parse_action("0 attack A♠"))
    assert game.state_dict() == before and game.history == []


def test_push_plays_as_apply_without_the_record() -> None:
    one = position(["8♥ K♣", "9♥ A♣"], trump="♦", stock="6♠ 7♠ 6♦")
    two = position(["8♥ K♣", "9♥ A♣"], trump="♦", stock="6♠ 7♠ 6♦")
    for text in ("0 attack 8♥", "1 defend 8♥ 9♥", "1 attack A♣"):
        assert two.push(parse_action(text)) is None
        one.apply(parse_action(text))
        assert one.state_dict() == two.state_dict() and one.history == two.history


# ------------------------------------------------------------------ records agree with the game
def test_records_of_random_games_agree_with_the_state_and_read_back() -> None:
    rng = random.Random(11)
    ends = {"beaten": 0, "taken": 0, "throw_in": 0, "out": 0}
    for i in range(40):
        game = Game(PROFILES[sorted(PROFILES)[i % 3]], deal_from_seed(2 + i % 5, 900 + i))
        while not game.finished:
            round_number, defender, out = game.round, game.defender, game.out
            taking, table = game.taking, game.table_mask
            played = game.apply(rng.choice(list(game.legal_actions())))
            assert Played.from_dict(played.to_dict()) == played
            assert played.throw_in == (played.kind is ActionKind.ATTACK and taking)
            ends["throw_in"] += played.throw_in
            end = played.round_end
            assert (end is not None) == (game.round != round_number or game.finished)
            if end is not None:
                assert end.round == round_number
                assert table & ~sum(c.mask for c in end.cards) == 0  # all that was there
                if end.taker is not None:
                    assert end.taker == defender
                    assert all(game.hands[defender] >> c.index & 1 for c in end.cards)
                    ends["taken"] += 1
                else:
                    assert all(game.discard >> c.index & 1 for c in end.cards)
                    ends["beaten"] += 1
            assert played.out == tuple(iter_bits(game.out & ~out))
            ends["out"] += len(played.out)
            assert played.game_over == game.finished and played.loser == game.loser
    assert all(ends.values()), ends


def test_a_record_from_a_dict_is_checked() -> None:
    good = {"seat": 1, "kind": "defend", "cards": ["8♥", "9♥"], "uses": ["9♥"]}
    assert Played.from_dict(good) == Played.of(Action.defend(1, *cards("8♥ 9♥")))
    for bad in (
        None,
        [1, "take"],
        {**good, "kind": "juggle"},
        {**good, "seat": -1},
        {**good, "seat": None},
        {**good, "cards": ["8♥"]},  # a defence names two cards
        {**good, "uses": "9♥"},
        {**good, "round_end": {"round": 1, "taker": None, "table": [["8♥"]]}},
        {**good, "out": [0, "1"]},
        {**good, "game_over": 1},
    ):
        with pytest.raises(InvalidNotationError):
            Played.from_dict(bad)


def test_a_record_of_an_action_alone() -> None:
    action = Action.attack(2, ALL_CARDS[0])
    played = Played.of(action)
    assert played.action == action and played.uses == action.uses and played.text == action.text
    assert played.round_end is None and played.out == () and not played.game_over
