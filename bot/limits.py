"""Table limits and lobby options: what a lobby may be set to, in one place.

The seats of a table, the turn timeout's range and default, and the rule options a lobby may
override (derived from the engine's :class:`~rules_engine.rules.Rules`: which options exist and
their allowed values).  The service validates against these; the slash commands build their
choices and ranges from them (``app_commands.Range[int, MIN_TIMEOUT, MAX_TIMEOUT]``,
``rule_choices("throw_in")``); the configuration and the terminal take their defaults here.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from types import MappingProxyType

from rules_engine.errors import InvalidNotationError
from rules_engine.rules import PROFILES, Rules

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_SEATS",
    "MAX_TIMEOUT",
    "MIN_SEATS",
    "MIN_TIMEOUT",
    "RULE_OPTIONS",
    "RULE_PROFILES",
    "option_text",
    "option_value",
    "rule_choices",
    "seats_ok",
    "timeout_ok",
]

#: Seats at a table.
MIN_SEATS, MAX_SEATS = 2, 6
#: Seconds per human turn a lobby or server may choose, and the default.
MIN_TIMEOUT, MAX_TIMEOUT, DEFAULT_TIMEOUT = 15, 600, 60
#: The rules profiles, by name (the first is the default).
RULE_PROFILES: tuple[str, ...] = tuple(PROFILES)

# Whole-number options are probed over this range (the engine's own check decides): the
# first-round limit and the pack's size (24, 36 or 52 cards).
_INT_PROBE = range(0, 53)


def _allowed(name: str, kind: object) -> tuple[object, ...]:
    """The values the engine accepts for the rule option ``name`` of type ``kind``."""
    if kind is bool:
        return (True, False)
    if typing.get_origin(kind) is typing.Literal:
        return typing.get_args(kind)
    values = []
    for value in _INT_PROBE:
        try:
            Rules(**{name: value})  # type: ignore[arg-type]
        except InvalidNotationError:
            continue
        values.append(value)
    return tuple(values)


def _rule_options() -> Mapping[str, tuple[object, ...]]:
    hints = typing.get_type_hints(Rules)
    return MappingProxyType(
        {f.name: _allowed(f.name, hints[f.name]) for f in dataclasses.fields(Rules)}
    )


#: The rule options a lobby may override, each with its allowed values.
RULE_OPTIONS: Mapping[str, tuple[object, ...]] = _rule_options()


def option_text(value: object) -> str:
    """A rule option value as a command shows it: ``on``/``off`` for a switch."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def rule_choices(name: str) -> tuple[str, ...]:
    """The allowed values of the rule option ``name`` as command choices (texts)."""
    return tuple(option_text(v) for v in RULE_OPTIONS[name])


def option_value(name: str, text: str) -> object:
    """The value of the rule option ``name`` that a command choice ``text`` stands for;
    :class:`ValueError` if it is none of them."""
    for value in RULE_OPTIONS[name]:
        if option_text(value) == text.strip().lower():
            return value
    raise ValueError(f"{name} must be one of {', '.join(rule_choices(name))}, not {text!r}")


def timeout_ok(seconds: object) -> bool:
    """Whether ``seconds`` is a turn timeout a lobby may have (a whole number in range)."""
    return _whole_in(seconds, MIN_TIMEOUT, MAX_TIMEOUT)


def seats_ok(seats: object) -> bool:
    """Whether ``seats`` is a table size a lobby may have (a whole number in range)."""
    return _whole_in(seats, MIN_SEATS, MAX_SEATS)


def _whole_in(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
