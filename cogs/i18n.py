"""Translations: English, Spanish, French through stdlib :mod:`gettext`.

The catalogues live in ``cogs/locales/<lang>/LC_MESSAGES/durak.po`` (the source) and ``.mo``
(compiled by ``python cogs/locales/compile.py``; a test checks they are up to date).  English is
the source language: its catalogue is the identity.

- :func:`pick_locale` chooses the language of a reply: the user's Discord locale, else the
  server's, else English.
- :func:`catalog` gives a cached :class:`Catalog` with ``gettext``-style helpers plus
  :meth:`Catalog.reason` (engine reasons) and :meth:`Catalog.error` (service errors).
- :class:`DurakTranslator` localises the ``/durak`` command names, descriptions, option names
  and choice names (``discord.app_commands.Translator``).  Use ``locale_str`` with the English
  strings of :data:`COMMANDS`, :data:`OPTIONS` and :data:`CHOICES` in the cog.

Message contexts (``msgctxt``): ``cmd-name`` for command/group/option names (Discord's name
rules), ``cmd`` for command/option descriptions and choice names; messages have no context.
"""

from __future__ import annotations

import functools
import gettext
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "CHOICES",
    "COMMANDS",
    "DOMAIN",
    "ERROR_DEFAULTS",
    "KNOWN_TEXTS",
    "LOCALEDIR",
    "N_",
    "OPTIONS",
    "REASON_TEMPLATES",
    "SUPPORTED",
    "Catalog",
    "DurakTranslator",
    "catalog",
    "discord_language",
    "match_template",
    "pick_locale",
    "placeholders",
    "valid_command_name",
]

SUPPORTED = ("en", "es", "fr")
DOMAIN = "durak"
LOCALEDIR = Path(__file__).with_name("locales")


def N_(msgid: str) -> str:
    """Mark a string for translation without translating it (it is translated later)."""
    return msgid


# ------------------------------------------------------------------------------ source strings
#: The engine's reasons (``rules_engine.game.Game.explain`` and ``rules_engine.hints``) as
#: templates.  ``rules_engine.reasons.Reason`` carries one of these as ``.template`` with its
#: ``.params``; plain English strings produced by these templates are recognised too.
REASON_TEMPLATES: tuple[str, ...] = (
    # Game.explain
    N_("the game is over"),
    N_("there is no seat {seat} in this game (seats 0–{last})"),
    N_("seat {seat} is out of this game"),
    N_("you are defending: beat an attack or take the cards"),
    N_("you are defending: beat an attack, take the cards, or transfer"),
    N_("the round has just begun: the leader must open it with a card"),
    N_("you have already declared a take"),
    N_("only the defender, seat {defender}, can {action}"),
    # Game._turn_reason
    N_("seat {defender} is defending: cards are added once everything is covered or a take "
       "is declared"),
    N_("seat {leader} leads this round"),
    N_("you have declared a take: the attackers may add cards before you pick up"),
    N_("everything is covered: seat {attacker} may add cards or pass"),
    N_("seat {seat} is not a neighbour of the defender: only the neighbours add cards"),
    N_("seat {seat} has passed: you may add again after the defender's next move"),
    N_("the limit is {limit} attacks this round"),
    N_("you hold no card of a rank on the table"),
    N_("seat {first} adds first: seat {seat} may add after seat {first} passes"),
    # Game._missing_card
    N_("{card} is on the table"),
    N_("{card} is not in your hand"),
    # Game._attack_reason
    N_("cards played together must all be of one rank"),
    N_("no {rank} on the table: you may add only ranks already there ({ranks})"),
    N_("the limit is {limit} attacks this round: {left} more at most"),
    # Game._defend_reason
    N_("{card} is not an attack on the table"),
    N_("{attack} is already covered by {defence}"),
    N_("{card} does not beat {attack}: a trump is beaten only by a higher trump"),
    N_("{card} does not beat {attack}: it must be a higher {suit}"),
    N_("{card} does not beat {attack}: it takes a higher {suit} or a trump ({trump})"),
    # Game._transfer_reason
    N_("transfers are not allowed in these rules"),
    N_("no transfer after the first defence of a round"),
    N_("a transfer must use the attacked rank, {rank}"),
    N_("seat {seat} holds 1 card: a transfer would make {total} attacks"),
    N_("seat {seat} holds {size} cards: a transfer would make {total} attacks"),
    # rules_engine.hints and the service
    N_("this card cannot be played now"),
    N_("that action is not legal now"),
    N_("it is not your turn"),
)

#: ``ServiceError.code`` → the English default message of that error (bot/errors.py).
ERROR_DEFAULTS: dict[str, str] = {
    "error": N_("that cannot be done now"),
    "no_lobby": N_("there is no open lobby in this channel: open one with /durak new"),
    "no_game": N_("there is no game in this channel"),
    "channel_busy": N_("this channel already has a lobby or a game: one per channel"),
    "already_started": N_("the game has already started"),
    "already_seated": N_("you already have a seat at this table"),
    "lobby_full": N_("the lobby is full"),
    "not_host": N_("only the host or someone with Manage Channel can do that"),
    "not_seated": N_("you are not seated at this table"),
    "not_enough_players": N_("a game needs at least 2 players"),
    "not_your_turn": N_("it is not your turn"),
    "stale": N_("the table has changed since you looked: here is the current state"),
    "bad_action": N_("that is not an action: try 'attack 8♥', 'defend 8♥ 9♥', 'take' or 'pass'"),
    "game_finished": N_("the game is over"),
    "bad_option": N_("invalid option"),
    "unknown_level": N_("unknown AI level"),
    "storage_failure": N_("the game could not be saved: nothing was changed, please try again"),
    "game_moved": N_("this game is now served by another bot process: press again"),
}

#: Other English texts of the service (specific error messages and public notices) that are
#: recognised and translated, exactly or as templates.
KNOWN_TEXTS: tuple[str, ...] = (
    # errors with a specific message
    N_("the lobby is full ({seats} seats)"),
    N_("you are not seated in this lobby"),
    N_("there is no lobby or game in this channel"),
    N_("the game has not started yet"),
    N_("there is no series in this channel"),
    N_("the game is still running"),
    N_("there is no finished game to follow"),
    N_("a game is running: finish it, or the host can stop it"),
    N_("only the players of this series (or the host) can do that"),
    N_("min_games must be a whole number ≥ 1"),
    N_("page must be a whole number ≥ 1"),
    N_("per_page must be 1–50"),
    N_("turn_timeout must be {min}–{max} seconds, not {value}"),
    N_("seats must be {min}–{max}, not {value}"),
    N_("unknown rules {value}: choose {choices}"),
    N_("unknown profile {value}: choose {choices} or custom"),
    N_("that action is for seat {seat}; you sit at seat {other}"),
    N_("a game needs {min} to {max} players, not {value}"),
    N_("there is no seat {seat} in this lobby"),
    N_("unknown option(s): {value}"),
    # notices (bot/presenter.py NoticeKind)
    N_("the bot restarted: the game continues"),
    N_("the previous series is over"),
    N_("the lobby was closed"),
    N_("the game was stopped: no loss is recorded"),
    N_("the series is over"),
    N_("{name} is back"),
    N_("{name} ran out of time: {action}"),
    N_("{name} is on autopilot until they come back"),
)

#: ``/durak`` command names → their English description (``locale_str`` these in the cog).
COMMANDS: dict[str, str] = {
    "durak": "Play Durak, the Russian card game",
    "new": "Open a Durak lobby in this channel",
    "join": "Take a seat in this channel's lobby",
    "leave": "Free your seat in this channel's lobby",
    "addbot": "Seat an AI player (host only)",
    "start": "Deal the cards and start the game (host only)",
    "hand": "Show your hand privately",
    "table": "Post the table again at the bottom of the channel",
    "rules": "Explain the active or a named rule profile",
    "stop": "End the lobby or game (host or Manage Channel)",
    "series": "Loss counts of the current series in this channel",
    "stats": "A player's games, losses and loss rate",
    "leaderboard": "This server's players ranked by loss rate",
}
#: Option names → their English description.
OPTIONS: dict[str, str] = {
    "rules": "Rule profile (default: podkidnoy)",
    "transfer": "May the defender transfer the attack? (default: the profile's)",
    "throw_in": "Who may add cards: the defender's neighbours or everyone",
    "first_round_limit": "Most attacks in the first round: 5 or 6",
    "turn_timeout": "Seconds per turn, 15 to 600 (default 60)",
    "seats": "Table size, 2 to 6 players (default 6)",
    "level": "AI level (default: casual)",
    "profile": "Rule profile",
    "user": "The player (default: you)",
    "min_games": "Only players with at least this many games",
    "page": "Page number",
}
#: Choice names (values stay English) → English display name.
CHOICES: dict[str, str] = {
    "podkidnoy": "podkidnoy (neighbours add, no transfer)",
    "perevodnoy": "perevodnoy (everyone adds, transfer)",
    "classic": "classic (everyone adds, first round 5)",
    "neighbours": "the defender's neighbours",
    "all": "everyone",
    "beginner": "beginner",
    "casual": "casual",
    "counter": "counter (counts cards)",
    "expert": "expert",
}

# ------------------------------------------------------------------------------ locales
_DISCORD_LANGS = {"es-ES": "es", "es-419": "es", "fr": "fr", "en-US": "en", "en-GB": "en"}


def _language(locale: object) -> str | None:
    if locale is None:
        return None
    text = str(getattr(locale, "value", locale)).strip()
    if not text:
        return None
    lang = text.replace("_", "-").split("-", 1)[0].lower()
    return lang if lang in SUPPORTED else None


def pick_locale(user_locale: str | None, guild_locale: str | None) -> str:
    """The language of a reply: the user's locale if supported, else the server's, else
    English.  Accepts Discord locale strings (``es-ES``, ``es-419``, ``fr``, ``en-US``) or
    ``discord.Locale`` values."""
    return _language(user_locale) or _language(guild_locale) or "en"


def discord_language(locale: object) -> str | None:
    """The catalogue language of a Discord locale (``es-ES``/``es-419`` → ``es``, ``fr`` →
    ``fr``, English → ``en``), ``None`` when unsupported."""
    return _language(locale)


# ------------------------------------------------------------------------------ formatting
class _Keep(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: str, params: Mapping[str, Any]) -> str:
    """``template.format(**params)`` that never fails: unknown placeholders stay as they are."""
    if not params or "{" not in template:
        return template
    try:
        return template.format_map(_Keep(params))
    except (ValueError, IndexError, AttributeError, KeyError):
        out = template
        for key, value in params.items():
            out = out.replace("{" + key + "}", str(value))
        return out


_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of a template, in order."""
    return _PLACEHOLDER.findall(text)


def _template_regex(template: str) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts), re.DOTALL)


@functools.cache
def _matchers() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Templates with placeholders, most specific (most literal text) first."""
    templates = [t for t in (*REASON_TEMPLATES, *KNOWN_TEXTS) if placeholders(t)]
    templates.sort(key=lambda t: -len(_PLACEHOLDER.sub("", t)))
    return tuple((_template_regex(t), t) for t in templates)


def match_template(text: str) -> tuple[str, dict[str, str]] | None:
    """The known English template that produced ``text`` and its parameters, if any."""
    for regex, template in _matchers():
        m = regex.fullmatch(text)
        if m:
            return template, m.groupdict()
    return None


# ------------------------------------------------------------------------------ catalogue
#: Bare verbs (the ``{action}`` parameter of a reason may be one of them).
_VERBS = {
    "attack": N_("attack"),
    "defend": N_("defend"),
    "transfer": N_("transfer"),
    "take": N_("take"),
    "pass": N_("pass"),
}
_ACTION_LABELS = {
    "attack": N_("attack {cards}"),
    "transfer": N_("transfer {cards}"),
    "take": N_("take"),
    "pass": N_("pass"),
}
_CARD = re.compile(r"^(?:10|[6-9JQKA])[♠♥♦♣]$")


class Catalog:
    """One language's messages.  English (``en``) returns the msgids themselves."""

    def __init__(self, locale: str, translations: gettext.NullTranslations) -> None:
        self.locale = locale
        self._t = translations

    def __repr__(self) -> str:
        return f"Catalog({self.locale!r})"

    # gettext -------------------------------------------------------------
    def gettext(self, msgid: str) -> str:
        return self._t.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._t.ngettext(singular, plural, n)

    def pgettext(self, context: str, msgid: str) -> str:
        return self._t.pgettext(context, msgid)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._t.npgettext(context, singular, plural, n)

    def format(self, msgid: str, /, **params: Any) -> str:
        """Translate ``msgid`` and fill its ``{placeholders}`` with ``params``."""
        return _fill(self.gettext(msgid), params)

    def nformat(self, singular: str, plural: str, n: int, /, **params: Any) -> str:
        """Plural-aware :meth:`format`; ``{count}`` is ``n`` unless given."""
        params.setdefault("count", n)
        return _fill(self.ngettext(singular, plural, n), params)

    def translates(self, msgid: str, context: str | None = None) -> bool:
        """True if the catalogue has a translation for ``msgid`` (English: always)."""
        if self.locale == "en":
            return True
        catalog: dict[Any, str] = getattr(self._t, "_catalog", {})
        key = msgid if context is None else f"{context}\x04{msgid}"
        return key in catalog

    # game texts ----------------------------------------------------------
    def action(self, text: str) -> str:
        """A canonical action text (``defend 8♥ 9♥``) in words: ``cover 8♥ with 9♥``."""
        words = str(text).split()
        if not words:
            return str(text)
        verb, cards = words[0], words[1:]
        if not cards and verb in _VERBS:
            return self.gettext(_VERBS[verb])
        if not all(_CARD.match(c) for c in cards):
            return str(text)
        if verb == "defend" and len(cards) == 2:
            return self.format(N_("cover {attack} with {card}"), attack=cards[0], card=cards[1])
        label = _ACTION_LABELS.get(verb)
        if label is None or verb in ("take", "pass"):
            return str(text)
        return self.format(label, cards=" ".join(cards))

    def _params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(params)
        if "action" in out:
            out["action"] = self.action(str(out["action"]))
        return out

    def known(self, text: str) -> str | None:
        """Translate an English text the service or engine produces (exactly, or through a
        known template); ``None`` when unknown."""
        text = str(text)
        if self.translates(text):
            return self.gettext(text)
        found = match_template(text)
        if found is None:
            return None
        template, params = found
        return _fill(self.gettext(template), self._params(params))

    def reason(self, text: str) -> str:
        """Translate an engine reason: a ``Reason`` (``.template`` + ``.params``) or a plain
        string (recognised if it comes from a known template; else returned as it is)."""
        template = getattr(text, "template", None)
        if isinstance(template, str):
            params = getattr(text, "params", None) or {}
            return _fill(self.gettext(template), self._params(params))
        known = self.known(text)
        return str(text) if known is None else known

    def error(self, err: BaseException) -> str:
        """Translate a ``ServiceError`` (by its message if known, else by its ``.code`` with
        ``.details`` as parameters), falling back to its English message."""
        message = getattr(err, "message", None) or str(err)
        code = getattr(err, "code", None)
        details: Mapping[str, Any] = getattr(err, "details", None) or {}
        if code in ("illegal_move", "not_your_turn"):
            reason = getattr(err, "reason", None) or details.get("reason") or message
            return self.reason(reason)
        if getattr(message, "template", None) is not None:
            return self.reason(message)
        known = self.known(message)
        if known is not None:
            return known
        default = ERROR_DEFAULTS.get(str(code)) if code is not None else None
        if default is None or self.locale == "en":
            return str(message)
        generic = _fill(self.gettext(default), details)
        if code in ("bad_option", "unknown_level", "bad_action") and message != default:
            # The English detail names the option or the text: better than nothing.
            return f"{generic}: {message}"
        return generic


def catalog(locale: str | None) -> Catalog:
    """The cached catalogue of ``locale`` (a supported language or any Discord locale string;
    unsupported or ``None`` → English).  ``catalog("es-ES") is catalog("es")``."""
    return _load(_language(locale) or "en")


@functools.cache
def _load(lang: str) -> Catalog:
    if lang == "en":
        return Catalog("en", gettext.NullTranslations())
    try:
        translations: gettext.NullTranslations = gettext.translation(
            DOMAIN, localedir=str(LOCALEDIR), languages=[lang]
        )
    except OSError:  # no compiled catalogue: English rather than a crash
        translations = gettext.NullTranslations()
    return Catalog(lang, translations)


# ------------------------------------------------------------------------------ commands
_NAME_CONTEXT = "cmd-name"
_TEXT_CONTEXT = "cmd"


def valid_command_name(name: str) -> bool:
    """Discord's rule for command, group and option names: 1–32 chars of ``-``, ``_``,
    letters or digits, lowercase."""
    return (
        0 < len(name) <= 32
        and name == name.lower()
        and all(ch in "-_" or ch.isalnum() for ch in name)
        and not any(ch.isspace() for ch in name)
    )


def command_strings() -> Iterable[tuple[str, str]]:
    """Every (context, msgid) the translator may be asked for."""
    names = set(COMMANDS) | set(OPTIONS)
    for name in sorted(names):
        yield _NAME_CONTEXT, name
    for text in (*COMMANDS.values(), *OPTIONS.values(), *CHOICES.values()):
        yield _TEXT_CONTEXT, text


try:  # discord.py is a dependency; keep the rest of this module importable without it
    from discord import app_commands as _app_commands
except ImportError:  # pragma: no cover
    _app_commands = None  # type: ignore[assignment]


class DurakTranslator(_app_commands.Translator if _app_commands else object):  # type: ignore[misc]
    """Localises ``locale_str`` command names, descriptions, option names and choice names
    into Spanish (``es-ES``, ``es-419``) and French (``fr``) from the gettext catalogues.

    Install with ``await bot.tree.set_translator(DurakTranslator())`` before syncing."""

    def translate_text(self, message: str, language: str, *, name: bool) -> str | None:
        """The translation of one command string, or ``None`` (keep the English)."""
        if language not in SUPPORTED or language == "en":
            return None
        cat = catalog(language)
        if name:
            text = cat.pgettext(_NAME_CONTEXT, message)
            if text == message or not valid_command_name(text):
                return None
            return text
        text = cat.pgettext(_TEXT_CONTEXT, message)
        if text == message or not 0 < len(text) <= 100:
            return None
        return text

    async def translate(self, string: Any, locale: Any, context: Any) -> str | None:
        language = discord_language(locale)
        if language is None:
            return None
        location = getattr(getattr(context, "location", None), "name", "")
        is_name = location in ("command_name", "group_name", "parameter_name")
        return self.translate_text(str(getattr(string, "message", string)), language,
                                   name=is_name)
