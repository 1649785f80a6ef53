"""Custom ids of the bot's buttons and selects (pure: no Discord objects).

Game components: ``durak:<game_id>:<version>:<action>`` where ``action`` is

- a canonical action text without the seat, as :meth:`GameService.act` accepts it:
  ``attack 8♥ 8♠``, ``defend 8♥ 9♥``, ``transfer 9♦``, ``show 9♦``, ``take``, ``pass`` (cards of
  every pack: ranks ``2``–``A``);
- ``pick <card>``: a playable card with several possible actions (re-render the hand with that
  card selected);
- ``why <card>``: a card that cannot be played now (answer privately with its reason);
- ``page <n>``: show page ``n`` (0-based) of a long hand; also the "Back" of a selected card;
- ``hand``: Show my hand (``version`` 0 is allowed: the table's button works on any version);
- ``rematch``, ``endseries``: game-over buttons;
- ``stop``: the table's Stop button (opens a stop vote, or agrees to the open one);
  ``keep``: Keep playing (a no to the open stop vote); ``leave``: the table's Leave button
  (answers with a private confirmation); ``forfeit``: that confirmation's "Leave and
  forfeit" button.  These four act on the game ``game_id`` whatever its version.

Lobby components: ``durak:lobby:<channel_id>:<join|leave|addai|start|stop|switch>`` (``addai``
is a string select whose option values are AI levels; ``switch``: Switch team, in a team lobby).

Replay buttons: ``durak:replay:<game_id>:<frame>:<nav>``: show frame ``frame`` (0 = the deal)
of the finished game ``game_id``.  ``nav`` names the button (``open``: the Replay button of
``/durak history``, which opens a new private replay; ``prevround``, ``prev``, ``next``,
``nextround``: the replay's own buttons, which edit it), so that two buttons leading to the
same frame still have different ids.

Review pages: ``durak:review:<game_id>:<page>:<nav>``: page ``page`` of the coach's review of
the presser's own decisions in game ``game_id`` (0: the summary, then one page per marked
decision).  ``nav``: ``open`` (the game-over message's "Review my game", which opens a new
private review), ``prev``, ``next`` (the review's own buttons, which edit it).

History pages: ``durak:history:<user_id>:<page>:<prev|next>``: show page ``page`` (1-based) of
``/durak history`` (``user_id`` 0: the whole server), editing the private history message.

The ``/durak forget-me`` confirmation: ``durak:forget:<user_id>:<expires_at>:<confirm|cancel>``:
the erasure asked for by ``user_id``, which may be confirmed until ``expires_at`` (whole epoch
seconds); the service checks both against the press.

The templates are meant for ``discord.ui.DynamicItem`` (which ``fullmatch``-es them against
the whole custom id); they never match each other's ids.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "CARD_PATTERN",
    "FORGET_ACTIONS",
    "FORGET_TEMPLATE",
    "GAME_ACTIONS",
    "GAME_TEMPLATE",
    "HISTORY_NAVS",
    "HISTORY_TEMPLATE",
    "LOBBY_ACTIONS",
    "LOBBY_TEMPLATE",
    "MAX_CUSTOM_ID",
    "REPLAY_NAVS",
    "REPLAY_TEMPLATE",
    "REVIEW_NAVS",
    "REVIEW_TEMPLATE",
    "AnyButton",
    "ForgetButton",
    "GameButton",
    "HistoryButton",
    "LobbyButton",
    "ReplayButton",
    "ReviewButton",
    "forget_id",
    "game_id",
    "history_id",
    "lobby_id",
    "parse_forget_id",
    "parse_game_id",
    "parse_history_id",
    "parse_lobby_id",
    "parse_replay_id",
    "parse_review_id",
    "replay_id",
    "review_id",
    "route_of",
]

#: Discord's limit on a component's ``custom_id``.
MAX_CUSTOM_ID = 100
PREFIX = "durak"

#: One card in canonical text: rank then suit, e.g. ``10♦``.
CARD_PATTERN = r"(?:10|[2-9JQKA])[♠♥♦♣]"
_CARDS = rf"{CARD_PATTERN}(?: {CARD_PATTERN})*"
#: Every action a game component may carry (see the module docstring).
ACTION_PATTERN = (
    rf"(?:attack {_CARDS}|defend {CARD_PATTERN} {CARD_PATTERN}|transfer {_CARDS}"
    rf"|show {CARD_PATTERN}|take|pass"
    rf"|pick {CARD_PATTERN}|why {CARD_PATTERN}|page (?:0|[1-9][0-9]{{0,3}})"
    r"|hand|rematch|endseries|stop|keep|leave|forfeit)"
)
#: The game actions a hand's buttons send to the service (the cards follow the verb).
GAME_ACTIONS = ("attack", "defend", "transfer", "show", "take", "pass")
LOBBY_ACTIONS = ("join", "leave", "addai", "start", "stop", "switch")

#: ``discord.ui.DynamicItem`` template of game components (groups game_id, version, action).
GAME_TEMPLATE = (
    rf"{PREFIX}:(?P<game_id>0|[1-9][0-9]{{0,19}}):(?P<version>0|[1-9][0-9]{{0,9}})"
    rf":(?P<action>{ACTION_PATTERN})"
)
#: ``discord.ui.DynamicItem`` template of lobby components (groups channel_id, action).
LOBBY_TEMPLATE = (
    rf"{PREFIX}:lobby:(?P<channel_id>0|[1-9][0-9]{{0,19}})"
    rf":(?P<action>{'|'.join(LOBBY_ACTIONS)})"
)
#: The buttons of a replay (see the module docstring).
REPLAY_NAVS = ("open", "prevround", "prev", "next", "nextround")
#: ``discord.ui.DynamicItem`` template of replay buttons (groups game_id, frame, nav).
REPLAY_TEMPLATE = (
    rf"{PREFIX}:replay:(?P<game_id>[1-9][0-9]{{0,19}}):(?P<frame>0|[1-9][0-9]{{0,5}})"
    rf":(?P<nav>{'|'.join(REPLAY_NAVS)})"
)
#: The buttons of a review (see the module docstring).
REVIEW_NAVS = ("open", "prev", "next")
#: ``discord.ui.DynamicItem`` template of review buttons (groups game_id, page, nav).
REVIEW_TEMPLATE = (
    rf"{PREFIX}:review:(?P<game_id>[1-9][0-9]{{0,19}}):(?P<page>0|[1-9][0-9]{{0,3}})"
    rf":(?P<nav>{'|'.join(REVIEW_NAVS)})"
)
#: The buttons of a history page.
HISTORY_NAVS = ("prev", "next")
#: ``discord.ui.DynamicItem`` template of history paging buttons (groups user_id, page, nav).
HISTORY_TEMPLATE = (
    rf"{PREFIX}:history:(?P<user_id>0|[1-9][0-9]{{0,19}}):(?P<page>[1-9][0-9]{{0,4}})"
    rf":(?P<nav>{'|'.join(HISTORY_NAVS)})"
)

#: The buttons of a ``/durak forget-me`` confirmation.
FORGET_ACTIONS = ("confirm", "cancel")
#: ``discord.ui.DynamicItem`` template of those buttons (groups user_id, expires_at, action).
FORGET_TEMPLATE = (
    rf"{PREFIX}:forget:(?P<user_id>[1-9][0-9]{{0,19}}):(?P<expires_at>0|[1-9][0-9]{{0,11}})"
    rf":(?P<action>{'|'.join(FORGET_ACTIONS)})"
)

_FORGET_RE = re.compile(FORGET_TEMPLATE)
_GAME_RE = re.compile(GAME_TEMPLATE)
_HISTORY_RE = re.compile(HISTORY_TEMPLATE)
_LOBBY_RE = re.compile(LOBBY_TEMPLATE)
_REPLAY_RE = re.compile(REPLAY_TEMPLATE)
_REVIEW_RE = re.compile(REVIEW_TEMPLATE)


class GameButton(NamedTuple):
    game_id: int
    version: int
    action: str

    @property
    def verb(self) -> str:
        """The first word of the action: ``attack``, ``pick``, ``why``, ``page``, ``hand``…"""
        return self.action.split(" ", 1)[0]

    @property
    def argument(self) -> str | None:
        """What follows the verb (the card of ``pick``/``why``, the page number, the cards of
        an action), or ``None``."""
        parts = self.action.split(" ", 1)
        return parts[1] if len(parts) == 2 else None

    @property
    def is_game_action(self) -> bool:
        """True for an action to send to the service (attack/defend/transfer/take/pass)."""
        return self.verb in GAME_ACTIONS

    @classmethod
    def from_match(cls, m: re.Match[str]) -> GameButton:
        """The button of a match of :data:`GAME_TEMPLATE`."""
        return cls(int(m["game_id"]), int(m["version"]), m["action"])


class LobbyButton(NamedTuple):
    channel_id: int
    action: str

    @classmethod
    def from_match(cls, m: re.Match[str]) -> LobbyButton:
        """The button of a match of :data:`LOBBY_TEMPLATE`."""
        return cls(int(m["channel_id"]), m["action"])


class ReplayButton(NamedTuple):
    game_id: int
    frame: int
    nav: str

    @classmethod
    def from_match(cls, m: re.Match[str]) -> ReplayButton:
        """The button of a match of :data:`REPLAY_TEMPLATE`."""
        return cls(int(m["game_id"]), int(m["frame"]), m["nav"])


class ReviewButton(NamedTuple):
    game_id: int
    page: int
    nav: str

    @classmethod
    def from_match(cls, m: re.Match[str]) -> ReviewButton:
        """The button of a match of :data:`REVIEW_TEMPLATE`."""
        return cls(int(m["game_id"]), int(m["page"]), m["nav"])


class HistoryButton(NamedTuple):
    user_id: int | None  # None: the whole server
    page: int
    nav: str

    @classmethod
    def from_match(cls, m: re.Match[str]) -> HistoryButton:
        """The button of a match of :data:`HISTORY_TEMPLATE`."""
        return cls(int(m["user_id"]) or None, int(m["page"]), m["nav"])


class ForgetButton(NamedTuple):
    user_id: int  # who asked for the erasure
    expires_at: int  # until when it may be confirmed (epoch seconds)
    action: str

    @classmethod
    def from_match(cls, m: re.Match[str]) -> ForgetButton:
        """The button of a match of :data:`FORGET_TEMPLATE`."""
        return cls(int(m["user_id"]), int(m["expires_at"]), m["action"])


#: Any of the bot's component buttons, as read from its custom id.
AnyButton = GameButton | LobbyButton | ReplayButton | ReviewButton | HistoryButton | ForgetButton
_KINDS: dict[type[AnyButton], str] = {
    GameButton: "game",
    LobbyButton: "lobby",
    ReplayButton: "replay",
    ReviewButton: "review",
    HistoryButton: "history",
    ForgetButton: "forget",
}


def route_of(button: AnyButton) -> tuple[str, str]:
    """What a press asks for, as ``(kind, verb)``: ``("game", "attack")``, ``("lobby",
    "join")``, ``("replay", "next")``, ``("history", "prev")``, ``("forget", "confirm")``."""
    verb = button.verb if isinstance(button, GameButton) else button[-1]
    return _KINDS[type(button)], str(verb)


def _checked(custom_id: str, pattern: re.Pattern[str], valid: bool, what: str) -> str:
    """``custom_id`` if ``valid`` and it matches ``pattern`` within Discord's length limit;
    else ``ValueError``."""
    if not valid or not pattern.fullmatch(custom_id):
        raise ValueError(f"not a valid {what} component id: {custom_id!r}")
    if len(custom_id) > MAX_CUSTOM_ID:
        raise ValueError(f"custom id longer than {MAX_CUSTOM_ID} characters: {custom_id!r}")
    return custom_id


def _match(s: str, pattern: re.Pattern[str], what: str) -> re.Match[str]:
    """The match of a received custom id; ``ValueError`` if it is not one of ``what``."""
    m = pattern.fullmatch(s) if len(s) <= MAX_CUSTOM_ID else None
    if m is None:
        raise ValueError(f"not a {what} component id: {s!r}")
    return m


def game_id(game_id: int, version: int, action: str) -> str:
    """The custom id of a game component; ``ValueError`` if malformed or over 100 chars."""
    custom_id = f"{PREFIX}:{int(game_id)}:{int(version)}:{action}"
    return _checked(custom_id, _GAME_RE, game_id >= 0 and version >= 0, "game")


def lobby_id(channel_id: int, action: str) -> str:
    """The custom id of a lobby component; ``ValueError`` if malformed or over 100 chars."""
    custom_id = f"{PREFIX}:lobby:{int(channel_id)}:{action}"
    return _checked(custom_id, _LOBBY_RE, channel_id >= 0, "lobby")


def replay_id(game_id: int, frame: int, nav: str) -> str:
    """The custom id of a replay button; ``ValueError`` if malformed."""
    custom_id = f"{PREFIX}:replay:{int(game_id)}:{int(frame)}:{nav}"
    return _checked(custom_id, _REPLAY_RE, game_id >= 1 and frame >= 0, "replay")


def review_id(game_id: int, page: int, nav: str) -> str:
    """The custom id of a review button; ``ValueError`` if malformed."""
    custom_id = f"{PREFIX}:review:{int(game_id)}:{int(page)}:{nav}"
    return _checked(custom_id, _REVIEW_RE, game_id >= 1 and page >= 0, "review")


def history_id(user_id: int | None, page: int, nav: str) -> str:
    """The custom id of a history paging button; ``ValueError`` if malformed."""
    custom_id = f"{PREFIX}:history:{int(user_id or 0)}:{int(page)}:{nav}"
    return _checked(custom_id, _HISTORY_RE, (user_id or 0) >= 0, "history")


def forget_id(user_id: int, expires_at: int, action: str) -> str:
    """The custom id of a ``/durak forget-me`` confirmation button; ``ValueError`` if
    malformed."""
    custom_id = f"{PREFIX}:forget:{int(user_id)}:{int(expires_at)}:{action}"
    return _checked(custom_id, _FORGET_RE, user_id >= 1 and expires_at >= 0, "forget")


def parse_forget_id(s: str) -> ForgetButton:
    """Read a ``/durak forget-me`` confirmation button id; ``ValueError`` if it is not one."""
    return ForgetButton.from_match(_match(s, _FORGET_RE, "forget"))


def parse_game_id(s: str) -> GameButton:
    """Read a game component id; ``ValueError`` if it is not one."""
    return GameButton.from_match(_match(s, _GAME_RE, "game"))


def parse_lobby_id(s: str) -> LobbyButton:
    """Read a lobby component id; ``ValueError`` if it is not one."""
    return LobbyButton.from_match(_match(s, _LOBBY_RE, "lobby"))


def parse_replay_id(s: str) -> ReplayButton:
    """Read a replay button id; ``ValueError`` if it is not one."""
    return ReplayButton.from_match(_match(s, _REPLAY_RE, "replay"))


def parse_review_id(s: str) -> ReviewButton:
    """Read a review button id; ``ValueError`` if it is not one."""
    return ReviewButton.from_match(_match(s, _REVIEW_RE, "review"))


def parse_history_id(s: str) -> HistoryButton:
    """Read a history paging id; ``ValueError`` if it is not one."""
    return HistoryButton.from_match(_match(s, _HISTORY_RE, "history"))
