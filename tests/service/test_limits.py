"""Table limits and lobby options (bot/limits.py): the rule options come from the engine."""

from __future__ import annotations

import dataclasses

import pytest

from bot.limits import (
    DEFAULT_TIMEOUT,
    MAX_SEATS,
    MAX_TIMEOUT,
    MIN_SEATS,
    MIN_TIMEOUT,
    RULE_OPTIONS,
    RULE_PROFILES,
    option_text,
    option_value,
    rule_choices,
    seats_ok,
    timeout_ok,
)
from rules_engine import PROFILES, Rules


def test_rule_options_are_the_engines() -> None:
    assert set(RULE_OPTIONS) == {field.name for field in dataclasses.fields(Rules)}
    assert set(Rules().to_dict()) <= set(RULE_OPTIONS)
    assert RULE_OPTIONS["throw_in"] == ("neighbours", "all")
    assert RULE_OPTIONS["first_round_limit"] == (5, 6)
    assert RULE_OPTIONS["transfer"] == (True, False)
    assert RULE_OPTIONS["deck"] == (24, 36, 52)
    assert RULE_OPTIONS["teams"] == ("none", "2x2", "3x3")
    assert tuple(PROFILES) == RULE_PROFILES and RULE_PROFILES[0] == "podkidnoy"
    for rules in PROFILES.values():  # every profile uses allowed values only
        for name, value in rules.to_dict().items():
            assert value in RULE_OPTIONS[name]


def test_choices_and_their_values() -> None:
    assert rule_choices("transfer") == ("on", "off")
    assert rule_choices("first_round_limit") == ("5", "6")
    for name in RULE_OPTIONS:
        for text in rule_choices(name):
            assert option_text(option_value(name, text)) == text
    with pytest.raises(ValueError, match="first_round_limit"):
        option_value("first_round_limit", "4")


def test_ranges() -> None:
    assert (MIN_SEATS, MAX_SEATS) == (2, 6)
    assert (MIN_TIMEOUT, DEFAULT_TIMEOUT, MAX_TIMEOUT) == (15, 60, 600)
    assert timeout_ok(MIN_TIMEOUT) and timeout_ok(MAX_TIMEOUT) and timeout_ok(DEFAULT_TIMEOUT)
    assert not timeout_ok(MIN_TIMEOUT - 1) and not timeout_ok(MAX_TIMEOUT + 1)
    assert not timeout_ok(True) and not timeout_ok(60.0) and not timeout_ok("60")
    assert seats_ok(2) and seats_ok(6)
    assert not seats_ok(1) and not seats_ok(7) and not seats_ok(True)
