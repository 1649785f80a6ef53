"""Server settings: every bad value refused with a message naming the setting and the input."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bot.limits import DEFAULT_TIMEOUT
from bot.server_config import (
    CONFIG_VERSION,
    FIRST_ROUND_LIMITS,
    SETTINGS,
    THROW_IN_VALUES,
    ConfigProblem,
    ServerConfig,
)
from rules_engine import PROFILES, Rules
from rules_engine.messages import Message

BASE = ServerConfig()


def test_defaults():
    assert BASE.profile == "podkidnoy"
    assert (BASE.transfer, BASE.throw_in, BASE.first_round_limit) == (None, None, None)
    assert BASE.turn_timeout == DEFAULT_TIMEOUT == 60
    assert BASE.channels == frozenset()
    assert BASE.count_ai_games is False
    assert BASE.rules == PROFILES["podkidnoy"]
    assert tuple(f.name for f in dataclasses.fields(ServerConfig)) == SETTINGS


def test_allowed_rule_values_come_from_the_engine():
    assert THROW_IN_VALUES == ("neighbours", "all")
    assert FIRST_ROUND_LIMITS == (5, 6)
    for value in THROW_IN_VALUES:
        Rules(throw_in=value)  # type: ignore[arg-type]
    for limit in FIRST_ROUND_LIMITS:
        Rules(first_round_limit=limit)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"profile": "Classic "}, {"profile": "classic"}),
        ({"profile": "perevodnoy"}, {"profile": "perevodnoy"}),
        ({"transfer": True}, {"transfer": True}),
        ({"transfer": "off"}, {"transfer": False}),
        ({"transfer": "Yes"}, {"transfer": True}),
        ({"transfer": "default"}, {"transfer": None}),
        ({"throw_in": "ALL"}, {"throw_in": "all"}),
        ({"throw_in": "neighbours"}, {"throw_in": "neighbours"}),
        ({"throw_in": "default"}, {"throw_in": None}),
        ({"first_round_limit": 5}, {"first_round_limit": 5}),
        ({"first_round_limit": " 6 "}, {"first_round_limit": 6}),
        ({"first_round_limit": "default"}, {"first_round_limit": None}),
        ({"turn_timeout": 15}, {"turn_timeout": 15}),
        ({"turn_timeout": 600}, {"turn_timeout": 600}),
        ({"turn_timeout": "90s"}, {"turn_timeout": 90}),
        ({"turn_timeout": "default"}, {"turn_timeout": 60}),
        ({"channels": [5, "6"]}, {"channels": frozenset({5, 6})}),
        ({"channels": "<#123>, 456"}, {"channels": frozenset({123, 456})}),
        ({"channels": 77}, {"channels": frozenset({77})}),
        ({"channels": []}, {"channels": frozenset()}),
        ({"channels": "default"}, {"channels": frozenset()}),
        ({"count_ai_games": True}, {"count_ai_games": True}),
        ({"count_ai_games": "on"}, {"count_ai_games": True}),
    ],
)
def test_good_values(raw: dict[str, object], expected: dict[str, object]):
    changed = BASE.with_changes(**raw)
    assert changed == dataclasses.replace(BASE, **expected)
    assert ServerConfig() == BASE  # a value: never changed in place


def test_none_means_not_given():
    cfg = BASE.with_changes(transfer=True, turn_timeout=30)
    assert cfg.with_changes(transfer=None, turn_timeout=None, profile=None) == cfg


def test_house_options_make_the_rules():
    cfg = BASE.with_changes(profile="classic", transfer=True, first_round_limit=6)
    assert cfg.rules == Rules(throw_in="all", first_round_limit=6, transfer=True)


BAD = [
    ("profile", "durak", "“durak”", "podkidnoy, perevodnoy, classic"),
    ("profile", 3, "“3”", "podkidnoy, perevodnoy, classic"),
    ("profile", "", "“”", "podkidnoy, perevodnoy, classic"),
    ("transfer", "maybe", "“maybe”", "on, off, default"),
    ("transfer", 1, "“1”", "on, off, default"),
    ("throw_in", "everyone", "“everyone”", "neighbours, all, default"),
    ("throw_in", True, "“True”", "neighbours, all, default"),
    ("first_round_limit", 7, "“7”", "5, 6, default"),
    ("first_round_limit", 4, "“4”", "5, 6, default"),
    ("first_round_limit", "five", "“five”", "5, 6, default"),
    ("first_round_limit", True, "“True”", "5, 6, default"),
    ("first_round_limit", 5.0, "“5.0”", "5, 6, default"),
    ("count_ai_games", "default", "“default”", "on, off"),
    ("count_ai_games", "sometimes", "“sometimes”", "on, off"),
    ("count_ai_games", 1, "“1”", "on, off"),
]


@pytest.mark.parametrize(("setting", "raw", "quoted", "allowed"), BAD)
def test_bad_choices(setting: str, raw: object, quoted: str, allowed: str):
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(**{setting: raw})
    problem = info.value
    assert problem.setting == setting
    assert problem.message == Message(
        "{setting} must be one of {allowed}, not {value}",
        setting=setting,
        allowed=allowed,
        value=quoted,
    )


@pytest.mark.parametrize(
    ("raw", "quoted"),
    [
        (14, "“14”"),
        (601, "“601”"),
        (0, "“0”"),
        (-60, "“-60”"),
        ("-60", "“-60”"),
        ("sixty", "“sixty”"),
        (60.5, "“60.5”"),
        (True, "“True”"),
        ("", "“”"),
        ("٦٠", "“٦٠”"),  # digits, but not ASCII ones
    ],
)
def test_bad_turn_timeout(raw: object, quoted: str):
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(turn_timeout=raw)
    assert info.value.setting == "turn_timeout"
    assert info.value.message == Message(
        "{setting} must be a whole number of seconds from {min} to {max}, not {value}",
        setting="turn_timeout",
        min=15,
        max=600,
        value=quoted,
    )


@pytest.mark.parametrize(
    ("raw", "quoted"),
    [
        ("general", "“general”"),
        ([1, "x"], "“x”"),
        ([0], "“0”"),
        (-5, "“-5”"),
        ([2**64], f"“{2**64}”"),
        ([True], "“True”"),
        (3.5, "“3.5”"),
        ({"a": 1}, "“{'a': 1}”"),
    ],
)
def test_bad_channels(raw: object, quoted: str):
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(channels=raw)
    assert info.value.setting == "channels"
    assert info.value.message["value"] == quoted
    assert info.value.message.key.startswith("{setting} must be channels")


def test_unknown_setting():
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(colour="red")
    assert info.value.setting == "colour"
    assert info.value.message == Message(
        "unknown setting {value}: the settings are {allowed}",
        value="“colour”",
        allowed="profile, transfer, throw_in, first_round_limit, deck, show_trump, teams, "
        "turn_timeout, channels, count_ai_games",
    )


def test_long_bad_input_is_clipped():
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(profile="x" * 500 + "\n@everyone")
    value = info.value.message["value"]
    assert isinstance(value, str)
    assert len(value) <= 42
    assert value.endswith("…”")
    assert "\n" not in value


def test_first_bad_setting_wins_and_nothing_changes():
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(turn_timeout=30, first_round_limit=9)
    assert info.value.setting == "first_round_limit"


def test_problem_is_a_value_error_with_english_text():
    with pytest.raises(ValueError, match="turn_timeout must be a whole number"):
        BASE.with_changes(turn_timeout=1)


def test_direct_construction_is_checked():
    with pytest.raises(ConfigProblem):
        ServerConfig(turn_timeout=5)
    with pytest.raises(ConfigProblem):
        ServerConfig(profile="nope")
    with pytest.raises(TypeError, match="canonical"):
        ServerConfig(profile="Classic")
    with pytest.raises(ConfigProblem):
        ServerConfig(turn_timeout=None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- channels


def test_channel_allowed():
    assert BASE.channel_allowed(123)
    cfg = BASE.with_changes(channels=[1, 2])
    assert cfg.channel_allowed(1) and cfg.channel_allowed(2)
    assert not cfg.channel_allowed(3)


def test_with_channel():
    one = BASE.with_channel(9, True)
    assert one.channels == frozenset({9})
    assert not one.channel_allowed(8)
    assert one.with_channel(8, True).channels == frozenset({8, 9})
    assert one.with_channel(9, False).channels == frozenset()
    assert one.with_channel(9, False).channel_allowed(8)
    with pytest.raises(ConfigProblem):
        BASE.with_channel(0, True)


# ---------------------------------------------------------------- lobby defaults


def test_lobby_defaults_match_lobby_options_fields():
    from bot.seating import LobbyOptions

    names = {f.name for f in dataclasses.fields(LobbyOptions)}
    assert set(BASE.lobby_defaults()) <= names
    cfg = BASE.with_changes(profile="classic", transfer="on", turn_timeout=120)
    assert cfg.lobby_defaults() == {
        "rules": "classic",
        "transfer": True,
        "throw_in": None,
        "first_round_limit": None,
        "deck": None,
        "show_trump": None,
        "teams": None,
        "turn_timeout": 120,
    }
    LobbyOptions(**cfg.lobby_options({"seats": 4}))  # fits the current LobbyOptions


def test_lobby_options_fill_what_was_not_given():
    cfg = BASE.with_changes(profile="classic", transfer="on", turn_timeout=120)
    assert cfg.lobby_options({"rules": None, "transfer": None, "seats": 3}) == {
        "rules": "classic",
        "transfer": True,
        "turn_timeout": 120,
        "seats": 3,
    }
    assert cfg.lobby_options({"transfer": False, "turn_timeout": 20}) == {
        "rules": "classic",
        "transfer": False,
        "turn_timeout": 20,
    }


def test_house_options_stay_with_the_default_profile():
    cfg = BASE.with_changes(transfer="off", throw_in="all", turn_timeout=45)
    assert cfg.lobby_options({"rules": "perevodnoy"}) == {
        "rules": "perevodnoy",
        "turn_timeout": 45,
    }
    assert cfg.lobby_options({"rules": "Podkidnoy"}) == {
        "rules": "Podkidnoy",
        "transfer": False,
        "throw_in": "all",
        "turn_timeout": 45,
    }


# ---------------------------------------------------------------- storage


def test_json_round_trip():
    cfg = BASE.with_changes(
        profile="perevodnoy",
        transfer="off",
        throw_in="neighbours",
        first_round_limit=5,
        turn_timeout=300,
        channels=[2**63 + 5, 10],
        count_ai_games=True,
    )
    data = json.loads(json.dumps(cfg.to_json()))
    assert data["version"] == CONFIG_VERSION == 1
    assert data["channels"] == [10, 2**63 + 5]
    assert ServerConfig.from_json(data) == cfg
    assert ServerConfig.from_json(BASE.to_json()) == BASE


def test_from_json_fills_missing_settings():
    assert ServerConfig.from_json({"version": 1, "turn_timeout": 20}) == BASE.with_changes(
        turn_timeout=20
    )


@pytest.mark.parametrize(
    "data",
    [
        {"version": 2, "profile": "classic"},
        {"profile": "classic"},
        {"version": "1"},
        [1, 2],
    ],
)
def test_from_json_refuses_other_versions(data: object):
    with pytest.raises(ConfigProblem) as info:
        ServerConfig.from_json(data)  # type: ignore[arg-type]
    assert info.value.setting == "version"


def test_from_json_validates_values():
    with pytest.raises(ConfigProblem) as info:
        ServerConfig.from_json({"version": 1, "turn_timeout": 9999})
    assert info.value.setting == "turn_timeout"
    with pytest.raises(ConfigProblem) as info:
        ServerConfig.from_json({"version": 1, "sound": "loud"})
    assert info.value.setting == "sound"


def test_the_table_options_are_house_options():
    cfg = BASE.with_changes(profile="perevodnoy", deck="24", show_trump="on")
    assert (cfg.deck, cfg.show_trump, cfg.teams) == (24, True, None)
    assert cfg.rules.deck == 24 and cfg.rules.show_trump
    assert cfg.lobby_options({"seats": 3}) == {
        "rules": "perevodnoy",
        "deck": 24,
        "show_trump": True,
        "turn_timeout": DEFAULT_TIMEOUT,
        "seats": 3,
    }
    # another profile gets its own options, without the house's table options
    assert "deck" not in cfg.lobby_options({"rules": "classic"})
    teams = BASE.with_changes(teams="2x2")
    assert teams.teams == "2x2" and teams.rules.team_game
    assert ServerConfig.from_json(teams.to_json()) == teams
    assert cfg.with_changes(deck="default", show_trump="default") == BASE.with_changes(
        profile="perevodnoy"
    )


@pytest.mark.parametrize(
    ("changes", "setting", "sentence"),
    [
        (
            {"profile": "perevodnoy", "teams": "2x2"},
            "teams",
            "teams '2x2' are played without transfers: turn transfer off",
        ),
        (
            {"show_trump": "on"},
            "show_trump",
            "show_trump needs transfer on: showing a trump is a way to transfer",
        ),
        ({"deck": "40"}, "deck", "deck must be one of 24, 36, 52, default, not “40”"),
        ({"teams": "4x4"}, "teams", "teams must be one of none, 2x2, 3x3, default, not “4x4”"),
    ],
)
def test_table_options_that_do_not_go_together_are_refused(changes, setting, sentence):
    with pytest.raises(ConfigProblem) as info:
        BASE.with_changes(**changes)
    assert info.value.setting == setting and str(info.value.message) == sentence
