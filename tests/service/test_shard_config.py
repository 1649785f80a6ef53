"""``SHARD_COUNT`` / ``SHARD_IDS`` settings: parsing, one clear line per problem, the filter."""

from __future__ import annotations

import pytest

from apps.config import Settings
from bot.errors import ConfigError
from bot.shards import parse_shard_ids, shard_of


def settings(**env: str) -> Settings:
    return Settings.from_env(env, dotenv_path=None)


@pytest.mark.parametrize(
    ("text", "count", "ids"),
    [("0-3", 4, (0, 1, 2, 3)), ("0,2", 4, (0, 2)), ("5", 8, (5,)), (" 4 , 0-1 ", 6, (0, 1, 4))],
)
def test_shard_ids_forms(text: str, count: int, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text, count) == ids
    s = settings(SHARD_COUNT=str(count), SHARD_IDS=text)
    assert (s.shard_count, s.shard_ids) == (count, ids)


@pytest.mark.parametrize(
    ("text", "count", "says"),
    [
        ("x", 2, "'x' is not a shard id"),
        ("3-1", 4, "reversed range"),
        ("0-4", 4, "shard 4 does not exist with SHARD_COUNT=4"),
        ("1,1", 4, "shard 1 is listed twice"),
        ("0,,1", 4, "empty item"),
        ("-1", 4, "not a shard id"),
    ],
)
def test_bad_shard_ids_are_one_line_each(text: str, count: int, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_shard_ids(text, count)
    with pytest.raises(ConfigError) as info:
        settings(SHARD_COUNT=str(count), SHARD_IDS=text)
    (problem,) = info.value.problems
    assert problem.startswith("SHARD_IDS: ") and says in problem and "\n" not in problem


def test_shard_ids_need_a_count_and_problems_are_listed_together() -> None:
    with pytest.raises(ConfigError) as info:
        settings(SHARD_IDS="0")
    assert info.value.problems == [
        "SHARD_IDS='0' needs SHARD_COUNT (the bot's total number of shards, the same in every "
        "process)"
    ]
    with pytest.raises(ConfigError) as info:
        settings(SHARD_COUNT="0", SHARD_IDS="0", TURN_TIMEOUT="5")
    assert len(info.value.problems) == 2  # the count and the timeout; no noise about the ids
    assert any(p.startswith("SHARD_COUNT=0 is out of range") for p in info.value.problems)


def test_guild_filter_of_the_settings() -> None:
    assert settings().guild_filter() is None
    assert settings(SHARD_COUNT="2").guild_filter() is None  # every shard: every server
    keep = settings(SHARD_COUNT="2", SHARD_IDS="1").guild_filter()
    assert keep is not None
    odd, even = (3 << 22) + 7, (4 << 22) + 7
    assert (shard_of(odd, 2), shard_of(even, 2)) == (1, 0)
    assert keep(odd) and not keep(even)
    assert "shard_ids=(1,)" in repr(settings(SHARD_COUNT="2", SHARD_IDS="1"))


def test_ai_workers_setting() -> None:
    assert settings().ai_workers is None  # the pool's default: cores - 1, at least 1
    assert settings(AI_WORKERS="3").ai_workers == 3
    with pytest.raises(ConfigError) as info:
        settings(AI_WORKERS="0")
    assert info.value.problems == ["AI_WORKERS=0 is out of range (≥ 1)"]
    with pytest.raises(ConfigError) as info:
        settings(AI_WORKERS="many")
    assert info.value.problems == ["AI_WORKERS='many' is not a whole number"]
