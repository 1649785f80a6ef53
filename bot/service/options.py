"""What a command's raw arguments mean: ids, page numbers, lobby options, rules, names,
actions, profiles.

Pure checks: each turns an adapter's raw value into a typed one or raises
:class:`bot.errors.BadOption` (:class:`bot.errors.BadId`) / :class:`bot.errors.BadAction` with
the problem's message.

Ids (channel, server, user, game) are Discord snowflakes: whole numbers from 1 to
:data:`MAX_ID` (2^63 - 1).  Discord's own ids stay below 2^63 until the year 2084 (their top
bits are milliseconds since 2015), and both databases store them as signed 64-bit integers,
so an id outside that range cannot be a real one and would not fit a row: a command given
one is refused before it reads or changes anything (:func:`checked_ids`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec, TypeVar

from bot.errors import BadAction, BadId, BadOption
from bot.limits import MAX_SEATS, MAX_TIMEOUT, MIN_SEATS, MIN_TIMEOUT, seats_ok, timeout_ok
from bot.ratings import TEAM_PROFILE, rating_profile
from bot.seating import LobbyOptions
from bot.server_config import ConfigProblem, ServerConfig
from rules_engine import PROFILES, Action, ActionKind, DurakError, Rules, parse_action
from rules_engine.errors import InvalidRulesError
from rules_engine.messages import Message, Seat
from rules_engine.rules import TEAM_SEATS

__all__ = [
    "ID_PARAMETERS",
    "MAX_ID",
    "checked_ids",
    "clean_name",
    "lobby_options",
    "need_id",
    "need_page",
    "parse_channel_id",
    "parse_player_action",
    "profile_filter",
    "profile_of",
    "rules_of",
    "with_server_defaults",
]

log = logging.getLogger(__name__)

NAME_MAX = 64
_OPTION_KEYS = {f.name for f in dataclasses.fields(LobbyOptions)}

#: The largest id a command accepts (see the module docstring): SQLite's and PostgreSQL's
#: largest integer.
MAX_ID = 2**63 - 1
#: The parameters of a service command that hold an id (checked by :func:`checked_ids`).
ID_PARAMETERS = frozenset(
    {"channel_id", "guild_id", "user_id", "host_id", "requester_id", "parent_id", "game_id"}
)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def need_id(value: object) -> int:
    """``value`` if it is an id (a whole number from 1 to :data:`MAX_ID`, not a bool), else
    :class:`BadId`."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID:
        return value
    raise BadId(Message("{value} is not a valid id", value=repr(value)))


def checked_ids(command: Callable[_P, Awaitable[_R]]) -> Callable[_P, Awaitable[_R]]:
    """Decorate a service command: every argument it is given for a parameter named in
    :data:`ID_PARAMETERS` (``None`` aside, where the parameter allows it) is checked by
    :func:`need_id` before the command runs, so a bad id is refused having changed
    nothing."""
    signature = inspect.signature(command)
    names = [name for name in signature.parameters if name in ID_PARAMETERS]

    @functools.wraps(command)
    async def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        bound = signature.bind_partial(*args, **kwargs)
        for name in names:
            value = bound.arguments.get(name)
            if value is not None:
                need_id(value)
        return await command(*args, **kwargs)

    return checked


def need_page(page: object, pages: int | None = None) -> int:
    """``page`` if it is a page number (a whole number from 1, and at most ``pages`` when
    the number of pages is known), else :class:`BadOption` naming the last page."""
    if not isinstance(page, int) or isinstance(page, bool) or page < 1:
        raise BadOption(Message("page must be a whole number ≥ 1"))
    if pages is not None and page > pages:
        raise BadOption(
            Message("there is no page {page}: the last page is {pages}", page=page, pages=pages)
        )
    return page


def clean_name(name: object, user_id: int) -> str:
    """A display name on one line, at most :data:`NAME_MAX` characters (never empty)."""
    text = " ".join(str(name or "").split())[:NAME_MAX]
    return text or f"Player {user_id}"


def with_server_defaults(
    options: LobbyOptions | Mapping[str, Any] | None, config: ServerConfig
) -> dict[str, Any]:
    """``/durak new``'s options with the server's settings for those not given (``None``)."""
    if options is None:
        given: dict[str, Any] = {}
    elif isinstance(options, LobbyOptions):
        given = dataclasses.asdict(options)
    elif isinstance(options, Mapping):
        given = dict(options)
    else:
        raise BadOption(Message("options must be LobbyOptions or a mapping"))
    return config.lobby_options(given)


def parse_channel_id(raw: object) -> int:
    """A channel id given to ``add_channel``/``remove_channel`` (an int, or its text, from 1
    to :data:`MAX_ID`)."""
    value: object = raw
    if isinstance(raw, str) and raw.strip().isdecimal():
        value = int(raw.strip())
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID:
        return value
    raise ConfigProblem(
        "channels",
        Message(
            "{setting} must be channels of this server (or {default} for every channel), "
            "not {value}",
            setting="channels",
            default="default",
            value=repr(raw),
        ),
    )


def lobby_options(options: LobbyOptions | Mapping[str, Any] | None) -> LobbyOptions:
    """Checked lobby options (profile name lower-cased)."""
    if options is None:
        opts = LobbyOptions()
    elif isinstance(options, LobbyOptions):
        opts = options
    elif isinstance(options, Mapping):
        unknown = set(options) - _OPTION_KEYS
        if unknown:
            raise BadOption(
                Message("unknown option(s): {value}", value=", ".join(sorted(map(str, unknown))))
            )
        given = {k: v for k, v in options.items() if v is not None}
        if "seats" not in given:
            given["seats"] = _default_seats(given)
        opts = LobbyOptions(**given)
    else:
        raise BadOption(Message("options must be LobbyOptions or a mapping"))
    if not isinstance(opts.rules, str) or opts.rules.strip().lower() not in PROFILES:
        raise BadOption(
            Message(
                "unknown rules {value}: choose {choices}",
                value=repr(opts.rules),
                choices=", ".join(PROFILES),
            )
        )
    t = opts.turn_timeout
    if t is not None and not timeout_ok(t):
        raise BadOption(
            Message(
                "turn_timeout must be {min}–{max} seconds, not {value}",
                min=MIN_TIMEOUT,
                max=MAX_TIMEOUT,
                value=repr(t),
            )
        )
    n = opts.seats
    if not seats_ok(n):
        raise BadOption(
            Message(
                "seats must be {min}–{max}, not {value}",
                min=MIN_SEATS,
                max=MAX_SEATS,
                value=repr(n),
            )
        )
    _check_table_options(opts)
    return dataclasses.replace(opts, rules=opts.rules.strip().lower())


def _default_seats(given: Mapping[str, Any]) -> int:
    """The table size of options that name none: what the teams need, at most 4 with a
    24-card pack (the most it deals six cards to), else 6."""
    teams = given.get("teams")
    if isinstance(teams, str) and teams in TEAM_SEATS:
        return TEAM_SEATS[teams]
    if given.get("deck") == 24:
        return 4
    return MAX_SEATS


def _check_table_options(opts: LobbyOptions) -> None:
    """The values of the table options alone (RULES.md §10); how they combine with the other
    options and the seats is the engine's to say (:func:`rules_of`)."""
    deck = opts.deck
    if deck is not None and (isinstance(deck, bool) or deck not in (24, 36, 52)):
        raise BadOption(Message("deck must be 24, 36 or 52, not {value}", value=repr(deck)))
    if opts.show_trump is not None and not isinstance(opts.show_trump, bool):
        raise BadOption(
            Message("show_trump must be true or false, not {value}", value=repr(opts.show_trump))
        )
    if opts.teams is not None and opts.teams not in ("none", *TEAM_SEATS):
        raise BadOption(
            Message("teams must be none, 2x2 or 3x3, not {value}", value=repr(opts.teams))
        )


def rules_of(opts: LobbyOptions) -> Rules:
    """The engine rules of checked lobby options (rule overrides checked here).  Options that
    do not go together, or do not suit the lobby's seats, are refused with the engine's
    sentence (:class:`~rules_engine.errors.InvalidRulesError`)."""
    spec: dict[str, Any] = {"profile": opts.rules}
    for key in ("deck", "show_trump", "teams"):
        value = getattr(opts, key)
        if value is not None:
            spec[key] = value
    if opts.transfer is not None:
        spec["transfer"] = opts.transfer
    if opts.throw_in is not None:
        spec["throw_in"] = opts.throw_in
    if opts.first_round_limit is not None:
        spec["first_round_limit"] = opts.first_round_limit
    if opts.throw_in is not None and opts.throw_in not in ("neighbours", "all"):
        raise BadOption(
            Message("throw_in must be neighbours or all, not {value}", value=repr(opts.throw_in))
        )
    if opts.first_round_limit is not None and opts.first_round_limit not in (5, 6):
        raise BadOption(
            Message(
                "first_round_limit must be 5 or 6, not {value}", value=repr(opts.first_round_limit)
            )
        )
    if opts.transfer is not None and not isinstance(opts.transfer, bool):
        raise BadOption(
            Message("transfer must be true or false, not {value}", value=repr(opts.transfer))
        )
    try:
        return Rules.from_spec(spec, players=opts.seats)
    except InvalidRulesError as exc:
        log.info("rule options refused: %s", exc)
        raise BadOption(exc.reason) from exc
    except DurakError as exc:
        log.info("rule options refused: %s", exc)
        raise BadOption() from exc


def profile_of(rules: Rules) -> str:
    """The profile name stats and ratings file ``rules`` under (``custom`` if none, ``teams``
    for every game played in teams: :func:`bot.ratings.rating_profile`)."""
    return rating_profile(rules)


def profile_filter(profile: str | None) -> str | None:
    """A checked profile name to filter stats by (``None``: every profile)."""
    if profile is None:
        return None
    p = str(profile).strip().lower()
    if p not in PROFILES and p not in ("custom", TEAM_PROFILE):
        raise BadOption(
            Message(
                "unknown profile {value}: choose {choices} or custom",
                value=repr(profile),
                choices=", ".join([*PROFILES, TEAM_PROFILE]),
            )
        )
    return p


def parse_player_action(action: str | Action, seat: int) -> Action:
    """The action a player at ``seat`` typed or pressed (the seat may be left out)."""
    if isinstance(action, Action):
        act = action
    else:
        if not isinstance(action, str) or not action.strip():
            raise BadAction()
        typed = action.strip()
        text = typed if typed.split()[0].isdigit() else f"{seat} {typed}"
        try:
            act = parse_action(text)
        except DurakError as exc:
            raise BadAction(
                Message(
                    "{text} is not an action: try 'attack 8♥', 'defend 8♥ 9♥', 'take' or 'pass'",
                    text=repr(typed),
                )
            ) from exc
    if act.seat != seat:
        raise BadAction(
            Message(
                "that action is for {seat}; you sit at {other}",
                seat=Seat(act.seat),
                other=Seat(seat),
            )
        )
    if act.kind not in ActionKind:  # pragma: no cover - Action validates its kind
        raise BadAction()
    return act
