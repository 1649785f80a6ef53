"""The terminal's words for the service's terms (:mod:`bot.terms`), in English as everything
the terminal prints: its own keys and commands (``q`` stops, ``durak-bot play`` starts a new
game), never Discord's.
"""

from __future__ import annotations

from bot.terms import ChannelList, Command, Permission, Place
from present.wording import Translations, Wording

__all__ = ["TERMINAL_WORDING", "TerminalWording"]

_COMMANDS: dict[Command, str] = {
    Command.NEW: "'durak-bot play'",
    Command.LEAVE: "'q'",
    Command.STOP: "'q'",
    Command.FORGET_ME: "'durak-bot forget'",
}
_PERMISSIONS: dict[Permission, str] = {
    Permission.MANAGE_CHANNEL: "moderator rights",
    Permission.MANAGE_SERVER: "server administrator rights",
}
_PLACES: dict[Place, str] = {Place.HERE: "here"}


class TerminalWording(Wording):
    """The terms as the terminal words them (see the module; ``t`` is not needed: English)."""

    def command(self, command: Command, t: Translations) -> str:
        return _COMMANDS[command]

    def permission(self, permission: Permission, t: Translations) -> str:
        return _PERMISSIONS[permission]

    def place(self, place: Place, t: Translations) -> str:
        return _PLACES[place]

    def channels(self, channels: ChannelList, t: Translations) -> str:
        return ", ".join(f"#{c}" for c in channels.ids)


#: The terminal's wording.
TERMINAL_WORDING = TerminalWording()
