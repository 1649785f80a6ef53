"""Translations: English, Spanish, French through stdlib :mod:`gettext`.

The catalogues live in ``present/locales/<lang>/LC_MESSAGES/durak.po`` (the source) and ``.mo``
(compiled); both are built from the source markers by Babel: ``python -m present.locales``
(``--check`` in CI).  English is the source language: its catalogue is the identity.

The part without discord.py (:class:`Catalog`, the supported languages, locale choice) lives
in :mod:`present.catalog`, which the web and the terminal use too; :func:`catalog` and
:func:`render` here give its catalogues in Discord's wording of the service's terms
(:mod:`cogs.wording`: ``/durak new``, "Manage Channel", ``<#id>``).

- :func:`pick_locale` chooses the language of a reply: the user's Discord locale, else the
  server's, else English.
- :func:`catalog` gives a cached :class:`Catalog` with ``gettext``-style helpers and
  :meth:`Catalog.render`, which translates a :class:`~rules_engine.messages.Message` (engine
  reasons, service errors and notices, action records) with typed parameters; :func:`render`
  does the same from a locale name.
- :class:`DurakTranslator` localises the ``/durak`` command names, descriptions, option names
  and choice names (``discord.app_commands.Translator``).  Use ``locale_str`` with the English
  strings of :data:`COMMANDS`, :data:`OPTIONS` and :data:`CHOICES` (AI levels:
  :data:`cogs.choices.LEVEL_TEXTS`) in the cog.

Extraction markers (``babel.cfg``): ``Message(key, ...)`` and ``N_(key)`` for messages,
``NC_(context, text)`` for command strings, and the catalogue's own ``gettext``/``ngettext``/
``pgettext``/``fill``/``nfill`` calls.  Message contexts (``msgctxt``): ``cmd-name`` for
command/group/option names (Discord's name rules), ``cmd`` for command/option descriptions and
choice names; messages have no context.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord import app_commands

from cogs.wording import DISCORD_WORDING, valid_command_name
from present import catalog as catalogs
from present.catalog import (
    DOMAIN,
    LOCALEDIR,
    NC_,
    SUPPORTED,
    Catalog,
    language,
)
from present.catalog import pick_locale as _pick_locale
from present.messages import CardText
from rules_engine.messages import Message

__all__ = [
    "CHOICES",
    "COMMANDS",
    "CONFIG_OPTIONS",
    "DOMAIN",
    "KICK_USER",
    "LOCALEDIR",
    "NC_",
    "OPTIONS",
    "SUPPORTED",
    "Catalog",
    "DurakTranslator",
    "catalog",
    "discord_language",
    "pick_locale",
    "render",
]

# ------------------------------------------------------------------------------ source strings
#: ``/durak`` command names → their English description (``locale_str`` these in the cog).
COMMANDS: dict[str, str] = {
    NC_("cmd-name", "durak"): NC_("cmd", "Play Durak, the Russian card game"),
    NC_("cmd-name", "new"): NC_("cmd", "Open a Durak lobby in this channel"),
    NC_("cmd-name", "join"): NC_("cmd", "Take a seat in this channel's lobby"),
    NC_("cmd-name", "leave"): NC_("cmd", "Free your seat (in a running game: a forfeit)"),
    NC_("cmd-name", "addbot"): NC_("cmd", "Seat an AI player (host only)"),
    NC_("cmd-name", "start"): NC_("cmd", "Deal the cards and start the game (host only)"),
    NC_("cmd-name", "hand"): NC_("cmd", "Show your hand privately"),
    NC_("cmd-name", "table"): NC_("cmd", "Post the table again at the bottom of the channel"),
    NC_("cmd-name", "play"): NC_("cmd", "Open this channel's table in Discord or in the browser"),
    NC_("cmd-name", "rules"): NC_("cmd", "Explain the active or a named rule profile"),
    NC_("cmd-name", "stop"): NC_("cmd", "Close the lobby (host), or vote to stop the game"),
    NC_("cmd-name", "series"): NC_("cmd", "Loss counts of the current series in this channel"),
    NC_("cmd-name", "stats"): NC_("cmd", "A player's games, losses, loss rate and rating"),
    NC_("cmd-name", "leaderboard"): NC_("cmd", "This server's players ranked by rating"),
    NC_("cmd-name", "kick"): NC_("cmd", "Free a player's seat (host: lobby; Manage Channel)"),
    NC_("cmd-name", "history"): NC_("cmd", "The server's last finished games, with replays"),
    NC_("cmd-name", "review"): NC_(
        "cmd", "The coach reviews your decisions in a game you played (only you see it)"
    ),
    NC_("cmd-name", "config"): NC_(
        "cmd", "Show or change this server's Durak settings (Manage Server)"
    ),
    NC_("cmd-name", "help"): NC_("cmd", "The commands and how a game goes"),
    NC_("cmd-name", "privacy"): NC_("cmd", "What the bot stores about you, shown to you alone"),
    NC_("cmd-name", "forget-me"): NC_(
        "cmd", "Erase your name and id from every game and rating (asks you first)"
    ),
}
#: The description of ``/durak kick``'s ``user`` (required there, unlike elsewhere).
KICK_USER = NC_("cmd", "The player whose seat to free")
#: Option names → their English description.
OPTIONS: dict[str, str] = {
    NC_("cmd-name", "rules"): NC_("cmd", "Rule profile (default: the server's)"),
    NC_("cmd-name", "transfer"): NC_(
        "cmd", "May the defender transfer the attack? (default: the profile's)"
    ),
    NC_("cmd-name", "throw_in"): NC_(
        "cmd", "Who may add cards: the defender's neighbours or everyone"
    ),
    NC_("cmd-name", "first_round_limit"): NC_("cmd", "Most attacks in the first round: 5 or 6"),
    NC_("cmd-name", "deck"): NC_("cmd", "Pack size: 24, 36 or 52 cards (default: 36)"),
    NC_("cmd-name", "show_trump"): NC_(
        "cmd", "May the defender transfer by showing a trump? (needs transfer)"
    ),
    NC_("cmd-name", "teams"): NC_("cmd", "Play in teams: 2 against 2 or 3 against 3 (no transfer)"),
    NC_("cmd-name", "turn_timeout"): NC_(
        "cmd", "Seconds per turn, 15 to 600 (default: the server's)"
    ),
    NC_("cmd-name", "seats"): NC_("cmd", "Table size, 2 to 6 players (default 6)"),
    NC_("cmd-name", "level"): NC_("cmd", "AI level (default: casual)"),
    NC_("cmd-name", "profile"): NC_("cmd", "Rule profile"),
    NC_("cmd-name", "user"): NC_("cmd", "The player (default: you)"),
    NC_("cmd-name", "min_games"): NC_(
        "cmd", "Only players with at least this many rated games (default 5)"
    ),
    NC_("cmd-name", "page"): NC_("cmd", "Page number"),
    NC_("cmd-name", "game"): NC_(
        "cmd", "The game's number, as /durak history shows it (default: your last game)"
    ),
    NC_("cmd-name", "seat"): NC_("cmd", "A seat's number as the lobby shows it (e.g. an AI seat)"),
    NC_("cmd-name", "add_channel"): NC_("cmd", "Allow games in this channel too"),
    NC_("cmd-name", "remove_channel"): NC_("cmd", "Stop allowing games in this channel"),
    NC_("cmd-name", "count_ai_games"): NC_("cmd", "Do games with AI seats count for ratings?"),
}
#: ``/durak config``'s own descriptions of the options it shares with ``/durak new``.
CONFIG_OPTIONS: dict[str, str] = {
    "profile": NC_("cmd", "Default rule profile of new lobbies"),
    "transfer": NC_("cmd", "Default for transfers (default: the profile's)"),
    "throw_in": NC_("cmd", "Default for who may add cards (default: the profile's)"),
    "first_round_limit": NC_("cmd", "Default most attacks in the first round"),
    "deck": NC_("cmd", "Default pack size of new lobbies"),
    "show_trump": NC_("cmd", "Default for transferring by showing a trump"),
    "teams": NC_("cmd", "Default teams of new lobbies"),
    "turn_timeout": NC_("cmd", "Default seconds per turn, 15 to 600"),
}
#: Choice names (values stay English) → English display name (AI levels: in
#: :data:`cogs.choices.LEVEL_TEXTS`).
CHOICES: dict[str, str] = {
    "podkidnoy": NC_("cmd", "podkidnoy (neighbours add, no transfer)"),
    "perevodnoy": NC_("cmd", "perevodnoy (everyone adds, transfer)"),
    "classic": NC_("cmd", "classic (everyone adds, first round 5)"),
    "neighbours": NC_("cmd", "the defender's neighbours"),
    "all": NC_("cmd", "everyone"),
    "on": NC_("cmd", "on"),
    "off": NC_("cmd", "off"),
    "default": NC_("cmd", "default (reset)"),
    "24": NC_("cmd", "24 cards (9 to ace)"),
    "36": NC_("cmd", "36 cards (6 to ace)"),
    "52": NC_("cmd", "52 cards (2 to ace)"),
    "none": NC_("cmd", "no teams"),
    "2x2": NC_("cmd", "2 against 2"),
    "3x3": NC_("cmd", "3 against 3"),
}


# ------------------------------------------------------------------------------ catalogues
def catalog(locale: str | None) -> Catalog:
    """The catalogue of ``locale`` in Discord's wording (:func:`present.catalog.catalog`)."""
    return catalogs.catalog(locale, DISCORD_WORDING)


def render(
    message: Message, locale: str | None, names: Sequence[str] = (), *, card_text: CardText = str
) -> str:
    """``message`` translated into ``locale``, in Discord's wording."""
    return catalogs.render(message, locale, DISCORD_WORDING, names, card_text=card_text)


# ------------------------------------------------------------------------------ locales
#: A Discord locale: its string (``es-ES``) or a ``discord.Locale``.
LocaleName = str | discord.Locale


def _language(locale: LocaleName | None) -> str | None:
    if isinstance(locale, discord.Locale):
        locale = locale.value
    return language(locale)


def pick_locale(user_locale: LocaleName | None, guild_locale: LocaleName | None) -> str:
    """The language of a reply: the user's locale if supported, else the server's, else
    English.  Accepts Discord locale strings (``es-ES``, ``es-419``, ``fr``, ``en-US``) or
    ``discord.Locale`` values."""
    return _pick_locale(
        user_locale.value if isinstance(user_locale, discord.Locale) else user_locale,
        guild_locale.value if isinstance(guild_locale, discord.Locale) else guild_locale,
    )


def discord_language(locale: LocaleName | None) -> str | None:
    """The catalogue language of a Discord locale (``es-ES``/``es-419`` → ``es``, ``fr`` →
    ``fr``, English → ``en``), ``None`` when unsupported."""
    return _language(locale)


# ------------------------------------------------------------------------------ commands
_NAME_CONTEXT = "cmd-name"
_NAME_LOCATIONS = frozenset(
    {
        app_commands.TranslationContextLocation.command_name,
        app_commands.TranslationContextLocation.group_name,
        app_commands.TranslationContextLocation.parameter_name,
    }
)
_TEXT_CONTEXT = "cmd"


class DurakTranslator(app_commands.Translator):
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

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """``string`` in ``locale``, or ``None`` to keep the English."""
        language = discord_language(locale)
        if language is None:
            return None
        is_name = context.location in _NAME_LOCATIONS
        return self.translate_text(string.message, language, name=is_name)
