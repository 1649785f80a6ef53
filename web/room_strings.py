"""The home and room pages' own words, as gettext msgids (as :mod:`web.strings` for the table).

The pages write no player-visible text of their own except an English fallback: they show
these, translated by the server (``GET /api/rooms/setup?lang=…`` and the room socket's
``welcome``), from the same catalogues as Discord.
"""

from __future__ import annotations

from present.catalog import Catalog
from present.names import LEVEL_TEXTS
from rules_engine.ai import OFFERED_LEVELS
from rules_engine.messages import N_

__all__ = ["ROOM_STRINGS", "room_strings"]

#: Key → English msgid.
ROOM_STRINGS: dict[str, str] = {
    "title": N_("Play Durak in your browser"),
    "intro": N_(
        "Create a room, share the invite link, and play with 2 to 6 people. Free seats can "
        "be taken by AI players. No account needed."
    ),
    "your_name": N_("Your name"),
    "rules": N_("Rules"),
    "seats": N_("Seats"),
    "turn_timeout": N_("Seconds per turn"),
    "transfer": N_("Transfers"),
    "throw_in": N_("Who may add cards"),
    "first_round_limit": N_("Attacks in the first round"),
    "profile_default": N_("As the rules say"),
    "on": N_("on"),
    "off": N_("off"),
    "neighbours": N_("the defender's neighbours"),
    "all": N_("every player"),
    "create": N_("Create the room"),
    "invite": N_("Invite link"),
    "invite_help": N_("Send this link to the people you want to play with."),
    "copy": N_("Copy"),
    "copied": N_("Copied"),
    "share": N_("Share"),
    "join_title": N_("Join the room"),
    "join": N_("Sit down"),
    "lobby": N_("Waiting for players"),
    "host": N_("host"),
    "you": N_("you"),
    "empty_seat": N_("free seat"),
    "add_ai": N_("Add an AI player"),
    "remove": N_("Remove"),
    "start": N_("Start the game"),
    "leave": N_("Leave"),
    "stop": N_("Vote to stop"),
    "keep_playing": N_("Keep playing"),
    "forfeit_confirm": N_(
        "Leaving a running game counts as a loss, and the AI plays your seat to the end. Leave?"
    ),
    "yes_leave": N_("Leave the game"),
    "stay": N_("Stay"),
    "waiting_host": N_("Waiting for the host to start."),
    "need_players": N_("At least two seats are needed to start."),
    "series_over": N_("The series is over."),
    "standings": N_("Standings"),
    "losses": N_("Losses"),
    "games": N_("Games"),
    "new_room": N_("Create a new room"),
    "closed": N_("This room is closed."),
    "left": N_("You left this room."),
    "reconnecting": N_("Connection lost: reconnecting…"),
    "name_rules": N_("1 to 32 characters, unique in the room."),
}


def room_strings(t: Catalog) -> dict[str, str]:
    """Every string in ``t``'s language, by key, and each offered AI level's name
    (``level_<name>``)."""
    strings = {key: t.gettext(msgid) for key, msgid in ROOM_STRINGS.items()}
    for level in OFFERED_LEVELS:
        texts = LEVEL_TEXTS.get(level)
        if texts is not None:
            strings[f"level_{level}"] = t.gettext(texts.label)
    return strings
