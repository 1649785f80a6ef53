"""The private answers of ``/durak rules``, ``/durak config`` and ``/durak help``."""

from __future__ import annotations

from typing import Any

from bot.server_config import ServerConfig
from cogs.i18n import COMMANDS, Catalog
from cogs.render.message import (
    BLURPLE,
    FIELD_VALUE_MAX,
    GREEN,
    Reply,
    clip_lines,
    embed_field,
    make_embed,
)
from present.teams import pack_text
from rules_engine.messages import N_

__all__ = ["HELP_COMMANDS", "render_config", "render_help", "render_rules"]


_PROFILE_RULES = {
    "podkidnoy": {"throw_in": "neighbours", "first_round_limit": 6, "transfer": False},
    "perevodnoy": {"throw_in": "all", "first_round_limit": 6, "transfer": True},
    "classic": {"throw_in": "all", "first_round_limit": 5, "transfer": False},
}
_PROFILE_BLURB = {
    "podkidnoy": N_("Podkidnoy: the defender's neighbours throw in, no transfers."),
    "perevodnoy": N_("Perevodnoy: everyone throws in and the defender may transfer."),
    "classic": N_("Classic: everyone throws in, at most 5 attacks in the first round."),
}


def render_rules(profile: str | None, rules: dict[str, Any] | None, t: Catalog) -> Reply:
    """``/durak rules``: the essentials of RULES.md and the options of ``profile`` (or of
    ``rules``, the active table's options); with neither, the three profiles."""
    essentials = [
        t.gettext(
            "36 cards, 6 to ace. Everyone gets 6; the next card turned up is trump and "
            "lies under the stock."
        ),
        t.gettext(
            "A card is beaten by a higher card of its suit, or by any trump; a trump "
            "only by a higher trump."
        ),
        t.gettext(
            "The leader attacks the next player with one card or several of one rank. "
            "The defender covers every attack or takes all the cards."
        ),
        t.gettext(
            "Others may add cards of ranks already on the table, never more attacks than "
            "the defender held cards (and at most 6)."
        ),
        t.gettext(
            "After the round, everyone draws back up to 6, the leader first. Beaten "
            "cards go to the discard pile."
        ),
        t.gettext(
            "When the stock is empty, players without cards are out. The last player "
            "holding cards is the durak (the fool)."
        ),
    ]
    name = profile.strip().lower() if profile else None
    options = dict(rules) if rules else None
    if options is None and name in _PROFILE_RULES:
        options = dict(_PROFILE_RULES[name])
    fields = []
    if options is not None:
        throw_in = str(options.get("throw_in", "neighbours"))
        detail = [
            t.gettext("Throw-in: every player but the defender adds cards, the attacker first.")
            if throw_in == "all"
            else t.gettext("Throw-in: only the defender's two neighbours add cards."),
            t.fill(
                "First round: at most {limit} attacks",
                limit=int(options.get("first_round_limit", 6)),
            ),
        ]
        if options.get("transfer"):
            detail.append(
                t.gettext(
                    "Transfer: before covering anything, the defender may play cards of the "
                    "attacked rank; the next player then defends everything, if their hand is "
                    "big enough."
                )
            )
        else:
            detail.append(t.gettext("No transfers"))
        # the table options (RULES.md §10), in the words of the table's rules summary
        deck = int(options.get("deck", 36))
        if deck != 36:
            detail.append(pack_text(deck, t))
        if options.get("show_trump"):
            detail.append(t.gettext("A trump of the attacked rank may be shown to transfer"))
        teams = str(options.get("teams", "none"))
        if teams != "none":
            detail.append(t.fill("Teams of {size} against {size}", size=teams[0]))
        title = t.fill("Rules — {rules}", rules=name or t.gettext("this table"))
        fields.append(embed_field(t.gettext("Options"), "\n".join(f"• {line}" for line in detail)))
    else:
        title = t.gettext("Durak rules")
        fields.append(
            embed_field(
                t.gettext("Profiles"),
                "\n".join(f"• {t.gettext(b)}" for b in _PROFILE_BLURB.values()),
            )
        )
    fields.append(
        embed_field(
            t.gettext("Turns"),
            t.gettext(
                "Every turn has a time limit: then the defender takes, an attacker passes, a "
                "leader plays the lowest card. After two timeouts in a row the AI plays for you "
                "until you press a button again."
            ),
        )
    )
    embed = make_embed(
        title, "\n".join(f"• {line}" for line in essentials), color=GREEN, fields=fields
    )
    return Reply(embeds=(embed,))


_SWITCH = {True: N_("on"), False: N_("off")}
_VALUE_NAMES = {
    "neighbours": N_("the defender's neighbours"),
    "all": N_("everyone"),
    "none": N_("no teams"),
    "2x2": N_("2 against 2"),
    "3x3": N_("3 against 3"),
}


def _house(value: object, t: Catalog) -> str:
    """A house option as the reader sees it (``None``: the profile's own value)."""
    if value is None:
        return t.gettext("the profile's")
    if isinstance(value, bool):
        return t.gettext(_SWITCH[value])
    if isinstance(value, str):
        return t.gettext(_VALUE_NAMES.get(value, value))
    return str(value)


def render_config(config: ServerConfig, t: Catalog, *, saved: bool = False) -> Reply:
    """``/durak config``: the server's settings (``saved``: just changed)."""
    channels = (
        ", ".join(f"<#{c}>" for c in sorted(config.channels))
        if config.channels
        else t.gettext("every channel")
    )
    lines = [
        t.fill("Rules profile: **{value}**", value=config.profile),
        t.fill("Transfer: **{value}**", value=_house(config.transfer, t)),
        t.fill("Who adds cards: **{value}**", value=_house(config.throw_in, t)),
        t.fill("First round limit: **{value}**", value=_house(config.first_round_limit, t)),
        t.fill(
            "Pack: **{value}**",
            value=_house(None, t) if config.deck is None else pack_text(config.deck, t),
        ),
        t.fill("Transfer by showing a trump: **{value}**", value=_house(config.show_trump, t)),
        t.fill("Teams: **{value}**", value=_house(config.teams, t)),
        t.fill("Turn time: {seconds} s", seconds=config.turn_timeout),
        t.fill("Games may be opened in: {channels}", channels=channels),
        t.fill(
            "Games with AI seats count for ratings: **{value}**",
            value=t.gettext("yes") if config.count_ai_games else t.gettext("no"),
        ),
    ]
    if saved:
        lines.insert(0, t.gettext("✅ **Settings saved.** New lobbies use them."))
    embed = make_embed(
        t.gettext("Server settings"),
        "\n".join(lines),
        color=BLURPLE,
        footer=t.gettext(
            "Members with Manage Server change them with /durak config; “default” resets a setting."
        ),
    )
    return Reply(embeds=(embed,))


#: The commands listed by ``/durak help``, in the order a game uses them.
HELP_COMMANDS = (
    "new",
    "join",
    "addbot",
    "start",
    "hand",
    "table",
    "play",
    "leave",
    "kick",
    "stop",
    "rules",
    "series",
    "stats",
    "leaderboard",
    "history",
    "review",
    "config",
    "privacy",
    "forget-me",
    "help",
)


def _command_name(name: str, t: Catalog) -> str:
    """``/durak <name>`` with the names Discord shows the reader (localised when they are)."""
    group = t.pgettext("cmd-name", "durak")
    sub = t.pgettext("cmd-name", name)
    return f"/{group} {sub}"


def render_help(t: Catalog) -> Reply:
    """``/durak help``: the commands and how a game goes, in the reader's language."""
    commands = [
        f"`{_command_name(name, t)}` — {t.pgettext('cmd', COMMANDS[name])}"
        for name in HELP_COMMANDS
        if name in COMMANDS
    ]
    steps = [
        t.gettext("1. Someone opens a lobby with /durak new; others press Join."),
        t.gettext("2. The host may add AI players, then presses Start (2 to 6 seats)."),
        t.gettext(
            "3. Press “Show my hand” on the table: your cards and your moves are shown to you "
            "alone."
        ),
        t.gettext(
            "4. The leader attacks, the defender covers or takes, the others add cards; "
            "the table shows whose turn it is and how long is left."
        ),
        t.gettext(
            "5. Whoever still holds cards at the end is the durak. Rematch keeps the seats "
            "and counts the losses of the series."
        ),
    ]
    # Two fields, since the whole list outgrows one field's 1,024 characters in some languages.
    half = (len(commands) + 1) // 2
    fields = [
        embed_field(t.gettext("Commands"), clip_lines(commands[:half], FIELD_VALUE_MAX)),
        embed_field("\u200b", clip_lines(commands[half:], FIELD_VALUE_MAX)),
        embed_field(t.gettext("How a game goes"), clip_lines(steps, FIELD_VALUE_MAX)),
    ]
    embed = make_embed(
        t.gettext("Durak — help"),
        t.gettext("Durak is the card game where nobody wins: the last player holding cards loses."),
        color=GREEN,
        fields=fields,
        footer=t.gettext("The rules in detail: /durak rules"),
    )
    return Reply(embeds=(embed,))
