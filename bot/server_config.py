"""Per-server settings of ``/durak config`` (Manage Server): pure values, validation, storage form.

A :class:`ServerConfig` is frozen; :meth:`ServerConfig.with_changes` takes raw values as an
adapter receives them (Discord option values, or text) and returns a new config, or raises
:class:`ConfigProblem` carrying a :class:`~rules_engine.messages.Message` that names the
setting, lists the allowed values and quotes the bad input, for the adapter to show privately
in the reader's language.  Nothing is changed by a refused request: configs are values.

Rule options are checked by the engine itself (:class:`rules_engine.rules.Rules`): the allowed
``throw_in`` values are the engine's ``ThrowIn`` type and the allowed ``first_round_limit``
values are those the engine accepts, so the rules are not written twice.

Decisions:

- ``None`` in :meth:`~ServerConfig.with_changes` means "not given" and changes nothing (an
  adapter can pass every slash option as it comes); the text ``"default"`` resets a setting
  (a house option back to the profile's own value, the turn timeout to 60 s, the channels to
  all).
- House options (``transfer``, ``throw_in``, ``first_round_limit``, and the table options
  ``deck``, ``show_trump``, ``teams`` of RULES.md §10) belong to the server's default
  profile: :meth:`~ServerConfig.lobby_options` applies them when a lobby uses that
  profile, and a lobby opened with another named profile gets that profile's own options
  (a player who asks for ``perevodnoy`` gets transfers).
- ``channels`` empty means every channel; :meth:`~ServerConfig.channel_allowed` takes the id of
  the channel (for a thread, the adapter passes its parent channel).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from bot.limits import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT, RULE_OPTIONS
from rules_engine.errors import InvalidNotationError, InvalidRulesError
from rules_engine.messages import Message
from rules_engine.rules import PROFILES, TEAM_SEATS, Rules, Teams, ThrowIn

__all__ = [
    "CONFIG_VERSION",
    "DECKS",
    "FIRST_ROUND_LIMITS",
    "SETTINGS",
    "TEAMS_VALUES",
    "THROW_IN_VALUES",
    "ConfigProblem",
    "ServerConfig",
]

CONFIG_VERSION = 1
#: Largest Discord snowflake (64-bit unsigned).
_MAX_ID = 2**64 - 1
_QUOTE_MAX = 40
_ON = ("on", "true", "yes", "1")
_OFF = ("off", "false", "no", "0")
_DEFAULT = "default"
#: The pack sizes and team layouts the engine offers (RULES.md §10).
DECKS: tuple[int, ...] = (24, 36, 52)
TEAMS_VALUES: tuple[str, ...] = ("none", *TEAM_SEATS)


def _engine_accepts(**option: Any) -> bool:
    try:
        Rules(**option)
    except InvalidNotationError:
        return False
    return True


#: What the engine accepts (:data:`bot.limits.RULE_OPTIONS`, asked of the engine once).
THROW_IN_VALUES: tuple[str, ...] = tuple(str(v) for v in RULE_OPTIONS["throw_in"])
FIRST_ROUND_LIMITS: tuple[int, ...] = tuple(
    v for v in RULE_OPTIONS["first_round_limit"] if isinstance(v, int)
)


class ConfigProblem(ValueError):
    """A refused setting: ``setting`` is its name, ``message`` says why for the reader."""

    def __init__(self, setting: str, message: Message) -> None:
        self.setting = setting
        self.message = message
        super().__init__(str(message))


def _quote(raw: object) -> str:
    """The bad input as the reader typed it, clipped: a literal, never translated."""
    text = raw if isinstance(raw, str) else repr(raw)
    text = " ".join(text.split())
    if len(text) > _QUOTE_MAX:
        text = text[: _QUOTE_MAX - 1] + "…"
    return f"“{text}”"


def _problem_choice(setting: str, allowed: Iterable[object], raw: object) -> ConfigProblem:
    return ConfigProblem(
        setting,
        Message(
            "{setting} must be one of {allowed}, not {value}",
            setting=setting,
            allowed=", ".join(str(a) for a in allowed),
            value=_quote(raw),
        ),
    )


def _switch(setting: str, raw: object, *, resettable: bool) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        word = raw.strip().lower()
        if word in _ON:
            return True
        if word in _OFF:
            return False
        if resettable and word == _DEFAULT:
            return None
    allowed = ("on", "off", _DEFAULT) if resettable else ("on", "off")
    raise _problem_choice(setting, allowed, raw)


def _whole(raw: object) -> int | None:
    """An int from an int or decimal text (a trailing ``s`` for seconds allowed); else None."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        text = raw.strip().lower().removesuffix("s").strip()
        if text.isascii() and text.isdecimal():
            return int(text)
    return None


def _profile(raw: object) -> str:
    name = raw.strip().lower() if isinstance(raw, str) else None
    if name not in PROFILES:
        raise _problem_choice("profile", PROFILES, raw)
    return name


def _throw_in(raw: object) -> ThrowIn | None:
    value = raw.strip().lower() if isinstance(raw, str) else raw
    if value == _DEFAULT:
        return None
    if isinstance(value, str) and _engine_accepts(throw_in=value):
        return cast(ThrowIn, value)
    raise _problem_choice("throw_in", (*THROW_IN_VALUES, _DEFAULT), raw)


def _first_round_limit(raw: object) -> int | None:
    if isinstance(raw, str) and raw.strip().lower() == _DEFAULT:
        return None
    value = _whole(raw)
    if value is not None and _engine_accepts(first_round_limit=value):
        return value
    raise _problem_choice("first_round_limit", (*FIRST_ROUND_LIMITS, _DEFAULT), raw)


def _deck(raw: object) -> int | None:
    if isinstance(raw, str) and raw.strip().lower() == _DEFAULT:
        return None
    value = _whole(raw)
    if value is not None and value in DECKS:
        return value
    raise _problem_choice("deck", (*DECKS, _DEFAULT), raw)


def _teams(raw: object) -> Teams | None:
    value = raw.strip().lower() if isinstance(raw, str) else raw
    if value == _DEFAULT:
        return None
    if isinstance(value, str) and value in TEAMS_VALUES:
        return cast(Teams, value)
    raise _problem_choice("teams", (*TEAMS_VALUES, _DEFAULT), raw)


def _turn_timeout(raw: object) -> int:
    if isinstance(raw, str) and raw.strip().lower() == _DEFAULT:
        return DEFAULT_TIMEOUT
    value = _whole(raw)
    if value is not None and MIN_TIMEOUT <= value <= MAX_TIMEOUT:
        return value
    raise ConfigProblem(
        "turn_timeout",
        Message(
            "{setting} must be a whole number of seconds from {min} to {max}, not {value}",
            setting="turn_timeout",
            min=MIN_TIMEOUT,
            max=MAX_TIMEOUT,
            value=_quote(raw),
        ),
    )


def _channels(raw: object) -> frozenset[int]:
    if isinstance(raw, str) and raw.strip().lower() == _DEFAULT:
        return frozenset()
    items: Iterable[object]
    if isinstance(raw, str):
        items = raw.replace(",", " ").split()
    elif isinstance(raw, Iterable) and not isinstance(raw, Mapping | bytes):
        items = list(raw)
    else:
        items = (raw,)
    ids = set()
    for item in items:
        text = item.strip().removeprefix("<#").removesuffix(">") if isinstance(item, str) else item
        value = _whole(text)
        if value is None or not 0 < value <= _MAX_ID:
            raise ConfigProblem(
                "channels",
                Message(
                    "{setting} must be channels of this server (or {default} for every "
                    "channel), not {value}",
                    setting="channels",
                    default=_DEFAULT,
                    value=_quote(item),
                ),
            )
        ids.add(value)
    return frozenset(ids)


def _count_ai_games(raw: object) -> bool:
    value = _switch("count_ai_games", raw, resettable=False)
    assert value is not None
    return value


_PARSERS: dict[str, Callable[[object], object]] = {
    "profile": _profile,
    "transfer": lambda raw: _switch("transfer", raw, resettable=True),
    "throw_in": _throw_in,
    "first_round_limit": _first_round_limit,
    "deck": _deck,
    "show_trump": lambda raw: _switch("show_trump", raw, resettable=True),
    "teams": _teams,
    "turn_timeout": _turn_timeout,
    "channels": _channels,
    "count_ai_games": _count_ai_games,
}
_HOUSE_OPTIONS = ("transfer", "throw_in", "first_round_limit", "deck", "show_trump", "teams")
#: Every setting's name, in the order ``/durak config`` shows them.
SETTINGS: tuple[str, ...] = tuple(_PARSERS)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server's settings.  ``None`` house options keep the profile's own value.

    Constructing one validates every field (raising :class:`ConfigProblem`), so a config value
    is always usable; build changed configs with :meth:`with_changes`.
    """

    profile: str = "podkidnoy"
    transfer: bool | None = None
    throw_in: ThrowIn | None = None
    first_round_limit: int | None = None
    deck: int | None = None
    show_trump: bool | None = None
    teams: Teams | None = None
    turn_timeout: int = DEFAULT_TIMEOUT
    channels: frozenset[int] = frozenset()
    count_ai_games: bool = False

    def __post_init__(self) -> None:
        for name in SETTINGS:
            value = getattr(self, name)
            if value is None and name in _HOUSE_OPTIONS:
                continue
            parsed = _PARSERS[name](value)  # raises ConfigProblem for a bad value
            if parsed != value or type(parsed) is not type(value):
                raise TypeError(
                    f"ServerConfig.{name} must be given in canonical form ({parsed!r}, not "
                    f"{value!r}): use with_changes() for raw input"
                )
        self.rules  # noqa: B018 (the engine checks the combination)

    @property
    def rules(self) -> Rules:
        """The server's default rules: the profile with the house options applied."""
        spec: dict[str, object] = {"profile": self.profile}
        for name in _HOUSE_OPTIONS:
            value = getattr(self, name)
            if value is not None:
                spec[name] = value
        try:
            return Rules.from_spec(spec)
        except InvalidRulesError as exc:  # options that do not go together: the engine says
            setting = next((n for n in ("teams", "show_trump") if spec.get(n)), "transfer")
            raise ConfigProblem(setting, exc.reason) from None
        except InvalidNotationError:  # pragma: no cover - every field was checked alone
            raise _problem_choice("profile", PROFILES, self.profile) from None

    def with_changes(self, **raw: object) -> ServerConfig:
        """A new config with the given settings changed; ``None`` values are ignored.

        Raises :class:`ConfigProblem` for the first bad setting (unknown names included).
        """
        unknown = sorted(set(raw) - set(SETTINGS))
        if unknown:
            raise ConfigProblem(
                unknown[0],
                Message(
                    "unknown setting {value}: the settings are {allowed}",
                    value=_quote(unknown[0]),
                    allowed=", ".join(SETTINGS),
                ),
            )
        changes: dict[str, Any] = {
            name: _PARSERS[name](raw[name])
            for name in SETTINGS
            if name in raw and raw[name] is not None
        }
        return replace(self, **changes)

    def channel_allowed(self, channel_id: int) -> bool:
        """Whether games may be opened in ``channel_id`` (no list: everywhere)."""
        return not self.channels or channel_id in self.channels

    def with_channel(self, channel_id: int, allowed: bool) -> ServerConfig:
        """Add ``channel_id`` to the allowed channels, or remove it.  Adding to an empty list
        (every channel) restricts games to that one channel; removing the last one allows every
        channel again."""
        ids = _channels([channel_id])
        channels = self.channels | ids if allowed else self.channels - ids
        return replace(self, channels=channels)

    def lobby_defaults(self) -> dict[str, str | bool | int | None]:
        """What ``/durak new`` uses for options not given, keyed like ``LobbyOptions``."""
        return {"rules": self.profile, **self._house(), "turn_timeout": self.turn_timeout}

    def _house(self) -> dict[str, str | bool | int | None]:
        """The house options by name (``None``: the profile's own value)."""
        return {name: getattr(self, name) for name in _HOUSE_OPTIONS}

    def lobby_options(self, given: Mapping[str, object]) -> dict[str, object]:
        """``/durak new``'s options (``LobbyOptions`` field names; ``None`` = not given) with
        the server's settings filled in.  House options apply only when the lobby's profile is
        the server's default profile.  Keys this config does not know (``seats``) pass through.
        """
        options = {k: v for k, v in given.items() if v is not None}
        defaults = self.lobby_defaults()
        rules = options.get("rules")
        if isinstance(rules, str) and rules.strip().lower() != self.profile:
            for name in _HOUSE_OPTIONS:
                defaults.pop(name)
        for name, value in defaults.items():
            if name not in options and value is not None:
                options[name] = value
        return options

    def to_json(self) -> dict[str, object]:
        """The storage form: a JSON-safe dict with a schema ``version``."""
        return {
            "version": CONFIG_VERSION,
            "profile": self.profile,
            **self._house(),
            "turn_timeout": self.turn_timeout,
            "channels": sorted(self.channels),
            "count_ai_games": self.count_ai_games,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ServerConfig:
        """Inverse of :meth:`to_json`; every value is validated again.  Missing settings take
        their defaults; an unknown version or setting raises :class:`ConfigProblem`."""
        if not isinstance(data, Mapping) or data.get("version") != CONFIG_VERSION:
            version = data.get("version") if isinstance(data, Mapping) else None
            raise ConfigProblem(
                "version",
                Message(
                    "stored server settings have version {value}; this bot reads version {version}",
                    value=_quote(version),
                    version=CONFIG_VERSION,
                ),
            )
        raw = {k: v for k, v in data.items() if k != "version"}
        return cls().with_changes(**raw)
