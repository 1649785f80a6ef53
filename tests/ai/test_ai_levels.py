"""The table of AI levels: what players are offered, the defaults, and a table of one's own."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation
from rules_engine.ai import levels as table
from rules_engine.ai.casual import CasualAgent
from rules_engine.ai.expert import ExpertAgent


def test_the_table_names_every_level_once_weakest_first() -> None:
    assert table.OFFERED_LEVELS == ("beginner", "casual", "counter", "expert")
    assert list(table.LEVELS)[: len(table.OFFERED_LEVELS)] == list(table.OFFERED_LEVELS)
    assert "ismcts" in table.LEVELS and not table.LEVELS["ismcts"].offered
    assert all(name == entry.name for name, entry in table.LEVELS.items())
    assert (table.DEFAULT_AI_LEVEL, table.AUTOPILOT_LEVEL, table.FALLBACK_LEVEL) == (
        "beginner",
        "casual",
        "casual",
    )
    for name in (table.DEFAULT_AI_LEVEL, table.AUTOPILOT_LEVEL, table.FALLBACK_LEVEL):
        assert table.LEVELS[name].offered


def test_the_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        table.LEVELS["grandmaster"] = table.LEVELS["casual"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        table.LEVELS["casual"].hard_limit_s = 5.0  # type: ignore[misc]


def test_times_agree_with_the_agents() -> None:
    expert = table.make_agent("expert")
    assert isinstance(expert, ExpertAgent)
    assert table.LEVELS["expert"].hard_limit_s == expert.budget_s
    assert table.LEVELS["expert"].expected_s == expert.think_s
    for entry in table.LEVELS.values():
        assert 0 < entry.expected_s < entry.hard_limit_s
    assert [lv for lv in table.LEVELS if table.thinks_by_clock(lv)] == ["expert"]
    assert [lv for lv in table.LEVELS if table.counts_iterations(lv)] == ["ismcts"]


def test_every_level_makes_an_agent_that_plays_and_unknown_names_are_refused() -> None:
    game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 1))
    seat = game.to_act
    assert seat is not None
    obs = observation(game, seat)
    for name in table.LEVELS:
        options = (
            {"iterations": 5}
            if table.counts_iterations(name) or table.thinks_by_clock(name)
            else {}
        )
        assert table.make_agent(name, seed=1, **options).choose(obs) in obs["legal"]
    with pytest.raises(ValueError, match="grandmaster"):
        table.make_agent("grandmaster")


def test_a_table_of_ones_own_is_passed_not_registered() -> None:
    class Shy(CasualAgent):
        pass

    mine = MappingProxyType({"shy": table.AILevel("shy", Shy, hard_limit_s=1.0, expected_s=0.01)})
    assert isinstance(table.make_agent("shy", seed=2, levels=mine), Shy)
    assert "shy" not in table.LEVELS
    with pytest.raises(ValueError, match="shy"):
        table.make_agent("shy")
    with pytest.raises(ValueError, match="casual"):
        table.make_agent("casual", levels=mine)
