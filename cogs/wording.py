"""Discord's words for the service's terms (:mod:`bot.terms`): ``/durak new`` in the reader's
language (as their Discord shows the command), "Manage Channel", "in this channel", ``<#id>``
mentions.  Every catalogue of the Discord adapter renders with it (:func:`cogs.i18n.catalog`).
"""

from __future__ import annotations

from bot.terms import ChannelList, Command, Permission, Place
from present.wording import Translations, Wording
from rules_engine.messages import N_

__all__ = ["DISCORD_WORDING", "DiscordWording", "valid_command_name"]

#: The name of each permission, as Discord's settings show it.
_PERMISSIONS: dict[Permission, str] = {
    Permission.MANAGE_CHANNEL: N_("Manage Channel"),
    Permission.MANAGE_SERVER: N_("Manage Server"),
}
_PLACES: dict[Place, str] = {Place.HERE: N_("in this channel")}
#: The command group, and the subcommand of each command.
_GROUP = "durak"
_COMMANDS: dict[Command, str] = {
    Command.NEW: "new",
    Command.LEAVE: "leave",
    Command.STOP: "stop",
    Command.FORGET_ME: "forget-me",
}


def valid_command_name(name: str) -> bool:
    """Discord's rule for command, group and option names: 1–32 chars of ``-``, ``_``,
    letters or digits, lowercase."""
    return (
        0 < len(name) <= 32
        and name == name.lower()
        and all(ch in "-_" or ch.isalnum() for ch in name)
        and not any(ch.isspace() for ch in name)
    )


def command_name(name: str, t: Translations) -> str:
    """A command or group name as Discord shows it in the reader's language (its ``cmd-name``
    translation, when it is a valid name; else the English one)."""
    text = t.pgettext("cmd-name", name)
    return text if valid_command_name(text) else name


class DiscordWording(Wording):
    """The terms as Discord words them (see the module)."""

    def command(self, command: Command, t: Translations) -> str:
        return f"/{command_name(_GROUP, t)} {command_name(_COMMANDS[command], t)}"

    def permission(self, permission: Permission, t: Translations) -> str:
        return t.gettext(_PERMISSIONS[permission])

    def place(self, place: Place, t: Translations) -> str:
        return t.gettext(_PLACES[place])

    def channels(self, channels: ChannelList, t: Translations) -> str:
        return ", ".join(f"<#{c}>" for c in channels.ids)


#: The Discord adapter's wording.
DISCORD_WORDING = DiscordWording()
