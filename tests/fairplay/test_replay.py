"""Replays rebuilt from the action log agree with the live game, frame by frame."""

from __future__ import annotations

import random

import pytest

from bot.outcome import Outcome
from bot.replay import Replay, TablePair, build_replay
from rules_engine import PROFILES, ActionKind, Card, DurakError, Game, Rules, deal_from_seed
from rules_engine.cards import ALL_CARDS, cards_from_mask
from rules_engine.messages import Message, Seat
from tests.fairplay.support import play


def _live(
    players: int, seed: int, profile: str = "podkidnoy"
) -> tuple[Game, list[dict[str, object]]]:
    """Play live, keeping the engine's state after every move (index 0: the deal)."""
    game = Game(PROFILES[profile], deal_from_seed(players, seed))
    rng = random.Random(seed)
    states = [game.state_dict()]
    while not game.finished:
        legal = list(game.legal_actions())
        game.apply(legal[0] if rng.random() < 0.8 else rng.choice(legal))
        states.append(game.state_dict())
    return game, states


def _text(cards: tuple[Card, ...]) -> list[str]:
    return [str(c) for c in cards]


@pytest.mark.parametrize(
    ("players", "seed", "profile"),
    [(2, 0, "podkidnoy"), (3, 108, "podkidnoy"), (4, 3, "perevodnoy"), (6, 12, "classic")],
)
def test_replay_matches_the_live_game(players: int, seed: int, profile: str):
    game, states = _live(players, seed, profile)
    replay = build_replay(game.rules, game.deal, game.history_text())
    assert replay.total == len(game.history) + 1 == len(states)
    last = replay.frames[-1]
    assert [_text(h) for h in last.hands] == [game.hand(s) for s in range(players)]
    expected = Outcome.draw() if game.loser is None else Outcome.durak(game.loser)
    assert last.outcome == expected and game.finished
    assert all(f.outcome is None for f in replay.frames[:-1])
    for frame, state in zip(replay.frames, states, strict=True):
        assert [_text(h) for h in frame.hands] == state["hands"]
        assert frame.stock == state["stock"]
        assert (str(frame.trump_card) if frame.trump_card else None) == state["trump_card"]
        assert sorted(frame.out) == state["out"]
        assert frame.to_act == state["to_act"]
        assert frame.defender == state["defender"]
        table = [[str(p.attack), str(p.defence) if p.defence else None] for p in frame.table]
        assert table == state["table"]
        assert frame.discard == len(state["discard"])  # type: ignore[arg-type]
        on_table = sum(1 + (p.defence is not None) for p in frame.table)
        in_hands = sum(len(h) for h in frame.hands)
        assert in_hands + on_table + frame.stock + frame.discard == 36
    for frame, action in zip(replay.frames[1:], game.log(), strict=True):
        assert frame.action == action


def test_frame_zero_is_the_deal():
    played = play(3, 0)
    replay = build_replay(played.rules, played.deal, played.actions)
    first = replay.frames[0]
    assert (first.index, first.round, first.action) == (0, 1, None)
    assert first.hands == tuple(tuple(cards_from_mask(h)) for h in played.deal.hands)
    assert first.message == Message(
        "the cards are dealt: {player} leads", player=Seat(played.deal.leader)
    )
    assert first.table == () and first.events == ()
    assert first.trump_card == ALL_CARDS[played.deal.stock[-1]]


def _kinds_seen() -> dict[ActionKind, list[tuple[Replay, int]]]:
    seen: dict[ActionKind, list[tuple[Replay, int]]] = {}
    show = Rules.from_spec({"profile": "perevodnoy", "show_trump": True})
    games = [(s, "perevodnoy", 0.8) for s in range(6)] + [(s, show, 0.2) for s in range(6)]
    for seed, rules, greed in games:
        played = play(3, seed, rules, greed)
        replay = build_replay(played.rules, played.deal, played.actions)
        for frame in replay.frames[1:]:
            assert frame.action is not None
            seen.setdefault(frame.action.kind, []).append((replay, frame.index))
    return seen


def test_every_action_kind_has_a_message():
    seen = _kinds_seen()
    assert set(seen) == set(ActionKind)
    keys: set[str] = set()
    for kind, where in seen.items():
        for replay, index in where:
            frame = replay.frames[index]
            assert frame.action is not None
            message = frame.message
            assert message["player"] == Seat(frame.action.seat)
            keys.add(message.key)
            assert "{" not in str(message)  # every placeholder has its parameter
            if kind is ActionKind.DEFEND:
                attack, defence = frame.action.cards
                assert message == Message(
                    "{player} beats {attack} with {defence}",
                    player=Seat(frame.action.seat),
                    attack=attack,
                    defence=defence,
                )
            if kind is ActionKind.TRANSFER or kind is ActionKind.SHOW:
                assert message["target"] == Seat(replay.frames[index].defender or 0)
    assert keys == {
        "{player} leads {cards}",
        "{player} adds {cards}",
        "{player} beats {attack} with {defence}",
        "{player} transfers the attack with {cards} to {target}",
        "{player} shows {cards} and passes the attack to {target}",
        "{player} takes",
        "{player} passes",
    }


def test_round_navigation_lands_on_the_first_move_of_each_round():
    played = play(3, 0)
    replay = build_replay(played.rules, played.deal, played.actions)
    rounds = played.game.round
    starts = replay.round_starts
    assert len(starts) == rounds
    assert starts[0] == 1
    for start in starts:
        frame = replay.frames[start]
        assert frame.index == start
        assert replay.frames[start - 1].round == frame.round - 1 or start == 1
    # forward by round from the deal
    visited = []
    index: int | None = 0
    while (index := replay.next_round(index)) is not None:
        visited.append(index)
    assert visited == list(starts[1:])
    # back by round from the last frame: the current round's start, then each earlier one
    back = []
    index = replay.total - 1
    while (index := replay.prev_round(index)) is not None:
        back.append(index)
    assert back == [*reversed(starts), 0]
    # from inside a round, the next round is the following start
    middle = starts[2] + 1
    assert replay.frames[middle].round == replay.frames[starts[2]].round
    assert replay.next_round(middle) == starts[3]
    assert replay.prev_round(middle) == starts[2]


def test_move_navigation_and_bounds():
    played = play(2, 0)
    replay = build_replay(played.rules, played.deal, played.actions)
    last = replay.total - 1
    assert replay.next_move(0) == 1
    assert replay.prev_move(0) is None
    assert replay.next_move(last) is None
    assert replay.prev_move(last) == last - 1
    assert replay.next_round(last) is None
    assert replay.prev_round(0) is None
    assert replay.next_round(replay.total) is None
    assert replay.prev_round(-1) is None


def test_closing_moves_show_the_table_and_what_happened_to_it():
    played = play(3, 0)
    replay = build_replay(played.rules, played.deal, played.actions)
    closes = [f for f in replay.frames[1:] if f.closed_table]
    assert len(closes) == played.game.round  # every round closes once, the last one included
    took = [f for f in closes if f.took]
    beaten = [f for f in closes if not f.took]
    assert took and beaten
    for frame in took:
        picked = frame.events[0]
        assert picked.key == "{player} picks up {cards}"
        cards = picked["cards"]
        assert isinstance(cards, tuple)
        player = picked["player"]
        assert isinstance(player, Seat)
        assert set(cards) <= set(frame.hands[player.index])
        assert set(cards) == {c for p in frame.closed_table for c in (p.attack, p.defence) if c}
    for frame in beaten:
        assert frame.events[0].key == "the attack is beaten off: {cards} go to the discard"
        assert all(isinstance(p, TablePair) and p.defence for p in frame.closed_table)
        assert frame.table == ()


def test_last_frame_carries_the_result():
    for players, seed, greed in ((3, 0, 0.8), (3, 108, 0.8)):
        played = play(players, seed, greed=greed)
        last = build_replay(played.rules, played.deal, played.actions).frames[-1]
        if played.game.draw:
            assert last.outcome == Outcome.draw()
        else:
            assert last.outcome == Outcome.durak(played.game.loser or 0)
        out_events = [e for e in last.events if e.key == "{player} is out"]
        assert out_events


def test_forfeits_are_marked_from_their_move():
    played = play(3, 0)
    replay = build_replay(played.rules, played.deal, played.actions, forfeits={1: 5})
    assert all(not f.forfeited for f in replay.frames[:5])
    assert all(f.forfeited == frozenset({1}) for f in replay.frames[5:])
    assert replay.frames[5].events[-1] == Message(
        "{player} forfeited: the AI plays this seat to the end", player=Seat(1)
    )
    last = replay.frames[-1].outcome
    assert last is not None and last.finished and last.forfeits == (1,)


def test_only_finished_legal_logs_replay():
    played = play(2, 0)
    with pytest.raises(ValueError, match="does not finish"):
        build_replay(played.rules, played.deal, played.actions[:-3])
    with pytest.raises(DurakError):
        build_replay(played.rules, played.deal, ["0 pass", *played.actions])


def test_frames_are_frozen():
    played = play(2, 0)
    frame = build_replay(played.rules, played.deal, played.actions).frames[0]
    with pytest.raises(AttributeError):
        frame.index = 3  # type: ignore[misc]


def test_describe_action_needs_a_transfer_target():
    from bot.replay import describe_action
    from rules_engine import Action

    card = ALL_CARDS[0]
    with pytest.raises(ValueError, match="target"):
        describe_action(Action.transfer(1, card))
    assert describe_action(Action.transfer(1, card), target=2)["target"] == Seat(2)
    assert describe_action(Action.attack(0, card), opening=True).key == "{player} leads {cards}"
    assert describe_action(Action.attack(0, card)).key == "{player} adds {cards}"
