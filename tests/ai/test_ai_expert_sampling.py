"""The expert's sampled deals: every hidden card placed, and cards a seat showed it probably
lacks dealt to it less often, by the weight of that inference."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai.expert import ExpertAgent, sample_deal

HAND = sum(1 << c for c in range(6))  # the searching seat's cards
TRUMP_CARD = 35
HIDDEN = list(range(6, 24))  # 6 for the opponent, 12 in the stock below the trump card
WATCHED = (1 << 6) | (1 << 7)  # the cards an inference is about


def _counting(**masks: int) -> Any:
    empty = [0, 0]
    fields: dict[str, Any] = {
        "unseen": sum(1 << c for c in HIDDEN),
        "has": [HAND, 0],
        "lacks": empty,
        "lacks_stale": empty,
        "declined": empty,
        "declined_stale": empty,
    }
    for name, mask in masks.items():
        fields[name] = [0, mask]
    return SimpleNamespace(**fields)


VIEW: Any = SimpleNamespace(
    seat=0, n=2, hand=HAND, hand_sizes=[6, 6], stock=13, trump_card=TRUMP_CARD
)


def _share_dealt_to_opponent(counting: Any, deals: int = 3000, **weights: float) -> float:
    rng = random.Random(11)
    hits = 0
    for _ in range(deals):
        sample = sample_deal(VIEW, counting, rng, **weights)
        assert sample is not None
        hands, stock = sample
        assert hands[0] == HAND and hands[1].bit_count() == 6 and len(stock) == 13
        assert stock[-1] == TRUMP_CARD
        assert hands[1] | sum(1 << c for c in stock[:-1]) == counting.unseen
        hits += (hands[1] & WATCHED).bit_count()
    return hits / (2 * deals)


def test_cards_a_seat_refused_to_transfer_with_are_dealt_to_it_less_often() -> None:
    plain = _share_dealt_to_opponent(_counting())
    assert 0.30 < plain < 0.37  # 6 of 18 hidden cards
    declined = _share_dealt_to_opponent(_counting(declined=WATCHED), w_declined=0.4)
    assert declined < 0.24
    unweighted = _share_dealt_to_opponent(_counting(declined=WATCHED), w_declined=1.0)
    assert abs(unweighted - plain) < 0.03
    stale = _share_dealt_to_opponent(_counting(declined_stale=WATCHED), w_stale=0.5)
    assert declined < stale < plain - 0.05


def test_the_expert_samples_with_its_own_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sampling weight the agent is given reaches the sampler."""
    import rules_engine.ai.expert as expert_module

    seen: list[tuple[Any, ...]] = []
    real = expert_module.sample_deal

    def recording(*args: Any) -> Any:
        seen.append(args[3:])
        return real(*args)

    monkeypatch.setattr(expert_module, "sample_deal", recording)
    agent = ExpertAgent(seed=1, iterations=2, w_lacks=0.11, w_stale=0.22, w_declined=0.33)
    game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 3))
    while not seen:  # play until a move needs a search
        seat = game.to_act
        assert seat is not None
        game.apply(parse_action(agent.choose(observation(game, seat))))
    assert seen[0] == (0.11, 0.22, 0.33)


def test_unknown_option_names_are_refused() -> None:
    """A misspelt or removed option fails loudly, naming itself and the options there are."""
    with pytest.raises(ValueError, match="w_trumped") as refused:
        ExpertAgent(w_trumped=0.25)
    assert "w_declined" in str(refused.value) and "budget_s" in str(refused.value)
    assert "add_rank_early" in str(refused.value)  # the casual policy's parameters too
    with pytest.raises(ValueError, match="thinks_s"):
        ExpertAgent(thinks_s=0.2)
    assert ExpertAgent(think_s=0.2, add_rank_early=3).params.add_rank_early == 3
