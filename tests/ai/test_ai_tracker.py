"""The public replay of the history finds every round boundary: its hand sizes, stock, discard
and known cards match the engine's."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation
from rules_engine.actions import DEFEND, TAKE, TRANSFER
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.policy import casual_code
from rules_engine.ai.tracker import Tracker
from rules_engine.cards import RANK_MASK, RANK_OF, SUIT_MASK, card_index


class _PerGame:
    """Expected marks per seat for the game in play; a new game starts afresh."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.game: Game | None = None
        self.marks: list[int] = []

    def __call__(self, game: Game) -> list[int]:
        if self.game is not game:
            self.game, self.marks = game, [0] * self.players
        return self.marks


def _mixed_play_tracked(
    rules: str,
    players: int,
    random_share: float,
    seed: int,
    before_move: Callable[[Game, int, tuple[int, ...], int], None],
    at_position: Callable[[Game, Tracker], None],
    deals: int = 8,
) -> None:
    """Games of casual play with a share of random moves. At every position
    ``at_position(game, tracker)`` gets the tracker of the seat to act, replayed from its
    observation without the engine's ``known`` (every replay must match the observation);
    then ``before_move(game, seat, legal, code)`` sees the move about to be made."""
    rng = random.Random(seed)
    for deal_seed in range(deals):
        game = Game(PROFILES[rules], deal_from_seed(players, deal_seed))
        trump_card = game.deal.stock[-1] if game.deal.stock else None
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            obs = observation(game, seat)
            view = ParsedObservation(obs)
            view.known_given = False
            tracker = Tracker(view, trump_card=trump_card)
            assert tracker.ok, (deal_seed, obs["history"])
            at_position(game, tracker)
            legal = game.legal_codes()
            if rng.random() < random_share:
                code = legal[rng.randrange(len(legal))]
            else:
                code = casual_code(game, legal)
            before_move(game, seat, legal, code)
            game.apply_code(code)


@pytest.mark.parametrize("rules", sorted(PROFILES))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_replay_matches_the_engine(rules: str, players: int) -> None:
    def check_known(game: Game, tracker: Tracker) -> None:
        obs = observation(game, tracker.view.seat)
        expected = [sum(1 << card_index(c) for c in k) for k in obs["known"]]
        got = tracker.known
        if players == 6:  # the dealer's shown card: its holder is not public here
            shown = sum(1 << c for c in game.deal.shown)
            expected = [k & ~shown for k in expected]
            got = [k & ~shown for k in got]
        assert got == expected

    _mixed_play_tracked(rules, players, 0.3, players, lambda *_: None, check_known, deals=6)


@pytest.mark.parametrize("rules", sorted(PROFILES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_declined_transfers_match_the_engine(rules: str, players: int) -> None:
    """A defender that defends or takes where the engine would take a transfer (nothing
    covered, room at the next seat: RULES.md §6.4), had it a card of the rank, is marked as
    probably lacking the plain cards of the attacks' rank, and only then."""
    marks_of = _PerGame(players)  # ever declined (fresh or stale), per seat
    marked = 0

    def before_move(game: Game, seat: int, legal: tuple[int, ...], code: int) -> None:
        nonlocal marked
        could = (
            seat == game.defender
            and game.rules.transfer
            and not game.covered_any
            and min(game.cap, game.hands[game.next_active(seat)].bit_count())
            > len(game.table_attacks)
        )
        if any(c & 7 == TRANSFER for c in legal):
            assert could
        if code & 7 in (DEFEND, TAKE) and could:
            rank = RANK_MASK[RANK_OF[game.table_attacks[0]]]
            marks_of(game)[seat] |= rank & ~SUIT_MASK[game.trump]
            marked += 1

    def at_position(game: Game, tracker: Tracker) -> None:
        got = [a | b for a, b in zip(tracker.declined, tracker.declined_stale, strict=True)]
        assert got == marks_of(game)

    _mixed_play_tracked(rules, players, 0.3, 100 + players, before_move, at_position)
    if PROFILES[rules].transfer:
        assert marked > 5
    else:
        assert marked == 0
