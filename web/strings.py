"""The pages' own words, as gettext msgids: the one source of every word the table page, the
home page and a room's page write (besides what the frames carry: names, sentences of the
game).

The server writes them into each page in the reader's language (:mod:`web.pages`: the HTML's
``data-s`` elements, and all of the page's strings as JSON for its scripts) and sends them
again where the protocol says (docs/WEB.md): the table's ``welcome`` (:func:`ui_strings`),
``/api/rooms/setup`` (:func:`home_strings`) and the room socket's ``welcome``
(:func:`room_strings`).  Each page's keys are exactly those its HTML and scripts look up
(``tests/web/test_page_strings.py`` reads them); the msgids are English, extracted by Babel
(``N_``) and translated in ``present/locales`` like every other word.  The Activity's sign-in
refusals (:data:`ACTIVITY_REFUSALS`) are here too: the server sends them in the player's
language, and the page shows them as they come.
"""

from __future__ import annotations

from typing import Literal

from present.catalog import Catalog
from present.names import LEVEL_TEXTS
from rules_engine.ai import OFFERED_LEVELS
from rules_engine.messages import N_

__all__ = [
    "ACTIVITY_REFUSALS",
    "HOME_STRINGS",
    "PAGE_STRINGS",
    "ROOM_STRINGS",
    "TABLE_STRINGS",
    "Page",
    "home_strings",
    "page_strings",
    "room_strings",
    "ui_strings",
]

#: The pages with words of their own.
Page = Literal["table", "home", "room"]

#: The table page (``/table``): key → English msgid.
TABLE_STRINGS: dict[str, str] = {
    "take": N_("Take"),
    "pass": N_("Pass"),
    "transfer": N_("Transfer"),
    "show": N_("Show"),
    "settings": N_("Settings"),
    "hints": N_("Hints"),
    "four_colours": N_("Four-colour suits"),
    "players": N_("Players"),
    "your_hand": N_("Your hand"),
    "last_moves": N_("Last moves"),
    "your_turn": N_("Your turn"),
    "watching": N_("You are watching this table."),
    "stock": N_("Stock"),
    "discard": N_("Discard"),
    "trump": N_("Trump"),
    "cards": N_("Cards"),
    "shown": N_("Shown at the deal"),
    "drop_here": N_("Drop a card here to play it"),
    "autopilot": N_("autopilot"),
    "played_by": N_("played by {name}"),
    "losses": N_("Losses"),
    "seconds": N_("{n} s"),
    "choose_action": N_("What should this card do?"),
    "cannot_play": N_("{card} cannot be played now: {reason}"),
    "cannot_beat": N_("{card} does not beat {attack}"),
    "transfer_beside": N_(
        "{card} does not beat {attack}: to transfer it, drop it on the table beside the attacks"
    ),
    "not_your_turn": N_("Not your turn"),
    "cancel": N_("Cancel"),
    "game_over": N_("Game over"),
    "series": N_("Series"),
    "rematch": N_("Rematch"),
    "end_series": N_("End series"),
    "series_over": N_("The series is over."),
    "new_game": N_("New game"),
    "review": N_("Review my game"),
    "review_title": N_("The coach's review"),
    "reviewing": N_("The coach is reviewing your decisions…"),
    "previous": N_("Previous"),
    "next": N_("Next"),
    "close": N_("Close"),
    "chart_alt": N_("Your chance of not being the durak after each of your decisions"),
    "no_game": N_("There is no game at this table now."),
    "new_game_failed": N_("A new game could not be dealt: try again."),
    "connecting": N_("Connecting…"),
    "reconnecting": N_("Connection lost: reconnecting…"),
    "closed": N_("The table was closed."),
    "no_token": N_("This link has no table in it: open the table again from the game's link."),
    "bad_link": N_("This link is not valid: open the table again from the game's link."),
    "not_in_discord": N_("This page is not running inside a Discord Activity."),
    "signin_failed": N_("Discord did not sign you in: close the Activity and start it again."),
    "signin_refused": N_("The sign-in through Discord was refused (error {status})."),
}

#: Both rooms' pages: the title and the name field.
_ROOMS_HEAD: dict[str, str] = {
    "title": N_("Play Durak in your browser"),
    "your_name": N_("Your name"),
    "name_rules": N_("1 to 32 characters, unique in the room."),
}

#: The home page (``/``): create a room.
HOME_STRINGS: dict[str, str] = {
    **_ROOMS_HEAD,
    "intro": N_(
        "Create a room, share the invite link, and play with 2 to 6 people. Free seats can "
        "be taken by AI players. No account needed."
    ),
    "rules": N_("Rules"),
    "seats": N_("Seats"),
    "turn_timeout": N_("Seconds per turn"),
    "transfer": N_("Transfers"),
    "throw_in": N_("Who may add cards"),
    "first_round_limit": N_("Attacks in the first round"),
    "deck": N_("Pack"),
    "deck_cards": N_("{n} cards"),
    "show_trump": N_("Transfer by showing a trump"),
    "teams": N_("Teams"),
    "teams_none": N_("no teams"),
    "teams_2x2": N_("2 against 2"),
    "teams_3x3": N_("3 against 3"),
    "profile_default": N_("As the rules say"),
    "on": N_("on"),
    "off": N_("off"),
    "neighbours": N_("the defender's neighbours"),
    "all": N_("every player"),
    "create": N_("Create the room"),
}

#: A room's page (``/room``): the lobby, the game's bar, the end.
ROOM_STRINGS: dict[str, str] = {
    **_ROOMS_HEAD,
    "join_title": N_("Join the room"),
    "join": N_("Sit down"),
    "lobby": N_("Waiting for players"),
    "invite": N_("Invite link"),
    "invite_help": N_("Send this link to the people you want to play with."),
    "copy": N_("Copy"),
    "copied": N_("Copied"),
    "share": N_("Share"),
    "host": N_("host"),
    "you": N_("you"),
    "empty_seat": N_("free seat"),
    "switch_team": N_("Switch team"),
    "ai_level": N_("AI level"),
    "add_ai": N_("Add an AI player"),
    "remove": N_("Remove"),
    "start": N_("Start the game"),
    "leave": N_("Leave"),
    "waiting_host": N_("Waiting for the host to start."),
    "need_players": N_("At least two seats are needed to start."),
    "need_teams": N_("Both teams must be full to start."),
    "stop": N_("Vote to stop"),
    "keep_playing": N_("Keep playing"),
    "forfeit_confirm": N_(
        "Leaving a running game counts as a loss, and the AI plays your seat to the end. Leave?"
    ),
    "yes_leave": N_("Leave the game"),
    "stay": N_("Stay"),
    "losses": N_("Losses"),
    "series_over": N_("The series is over."),
    "closed": N_("This room is closed."),
    "left": N_("You left this room."),
    "new_room": N_("Create a new room"),
    "bad_invite": N_("This invite link is not valid: ask for the link again."),
    "reconnecting": N_("Connection lost: reconnecting…"),
}

#: The Activity's sign-in refusals (``POST /api/activity/session``, :mod:`web.activity`):
#: reason → English msgid.  The server answers them in the player's language as the refusal's
#: ``error``, which the page shows as it comes.
ACTIVITY_REFUSALS: dict[str, str] = {
    "not_enabled": N_("The Discord Activity is not enabled on this bot."),
    "bad_request": N_("The sign-in was not valid: close the Activity and start it again."),
    "origin": N_("This page may not sign in from where it was loaded."),
    "code_refused": N_(
        "Discord did not accept the sign-in: close the Activity and start it again."
    ),
    "discord_down": N_("Discord could not be reached: try again."),
    "no_game": N_("There is no game in this channel: start one, then open the Activity again."),
    "not_in_instance": N_(
        "You are not in this Activity: start it again from the channel of the game."
    ),
    "elsewhere": N_(
        "This Activity runs in another channel: start it again from the channel of the game."
    ),
    "not_member": N_("Only members of this server can open its tables."),
    "cannot_view": N_("You cannot see this channel, so you cannot open its table."),
}

#: Every page's words.
PAGE_STRINGS: dict[Page, dict[str, str]] = {
    "table": TABLE_STRINGS,
    "home": HOME_STRINGS,
    "room": ROOM_STRINGS,
}


def page_strings(page: Page, t: Catalog) -> dict[str, str]:
    """Every word of ``page`` in ``t``'s language, by key (a room's page: with each offered
    AI level's name, ``level_<name>``)."""
    strings = {key: t.gettext(msgid) for key, msgid in PAGE_STRINGS[page].items()}
    if page == "room":
        for level in OFFERED_LEVELS:
            texts = LEVEL_TEXTS.get(level)
            if texts is not None:
                strings[f"level_{level}"] = t.gettext(texts.label)
    return strings


def ui_strings(t: Catalog) -> dict[str, str]:
    """The table page's words (the table's ``welcome``)."""
    return page_strings("table", t)


def home_strings(t: Catalog) -> dict[str, str]:
    """The home page's words (``/api/rooms/setup``)."""
    return page_strings("home", t)


def room_strings(t: Catalog) -> dict[str, str]:
    """A room page's words (the room socket's ``welcome``)."""
    return page_strings("room", t)
