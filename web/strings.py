"""The page's own words (the ``strings`` of the ``welcome`` frame), as gettext msgids.

The page writes no player-visible text of its own except an English fallback: it shows these,
translated by the server into the reader's language from the same catalogues as Discord.  The
keys are the protocol's (docs/WEB.md); the msgids are English, extracted by Babel (``N_``).
"""

from __future__ import annotations

from present.catalog import Catalog
from rules_engine.messages import N_

__all__ = ["UI_STRINGS", "ui_strings"]

#: Protocol key → English msgid.
UI_STRINGS: dict[str, str] = {
    "take": N_("Take"),
    "pass": N_("Pass"),
    "beaten": N_("Beaten"),
    "transfer": N_("Transfer"),
    "hints": N_("Hints"),
    "hint_on": N_("Hints on"),
    "hint_off": N_("Hints off"),
    "your_turn": N_("Your turn"),
    "waiting": N_("Waiting for the other players."),
    "stock": N_("Stock"),
    "discard": N_("Discard"),
    "trump": N_("Trump"),
    "round": N_("Round"),
    "rematch": N_("Rematch"),
    "end_series": N_("End series"),
    "watching": N_("You are watching this table."),
    "reconnecting": N_("Connection lost: reconnecting…"),
    "choose_action": N_("What should this card do?"),
    "cancel": N_("Cancel"),
    "game_over": N_("Game over"),
    "series": N_("Series"),
    "you": N_("You"),
    "players": N_("Players"),
    "last_moves": N_("Last moves"),
    "autopilot": N_("autopilot"),
    "left": N_("left: the AI plays"),
    "no_cards": N_("No cards."),
    "your_hand": N_("Your hand"),
    "table_empty": N_("The table is empty."),
    "drop_here": N_("Drop a card here to play it"),
    "losses": N_("Losses"),
    "why": N_("Why can this card not be played?"),
    "time_left": N_("Time left"),
}


def ui_strings(t: Catalog) -> dict[str, str]:
    """Every UI string in ``t``'s language, by protocol key."""
    return {key: t.gettext(msgid) for key, msgid in UI_STRINGS.items()}
